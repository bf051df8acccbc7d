// The tuning cache on disk every tuned family shares, host-only (no CUDA): the key derived from
// the device facts, the candidate list, the family and the exact problem (each family writes
// its shape part), reading that tolerates any file, and atomic merged writes under a lock.
// The tuner (kernels/tuning/tuner.hpp) gathers the facts from the device; the CPU tests pass
// them as data.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace memhier::tuning {

/// The file's schema; entries for other devices, toolkits or families live under other keys.
inline constexpr const char* kFormat = "memhier-gemm-tuning/1";

/// What a tuned choice depends on besides the shape: a change to any of them re-tunes.
struct DeviceFacts {
  std::string device;           ///< the device's name and compute capability, "<name>|sm_<cc>"
  std::string driver;           ///< driver release and the CUDA version it supports
  std::string toolkit;          ///< CUDA toolkit memhier was built with
  std::string runtime;          ///< CUDA runtime loaded at run time
  std::string memhier_version;  ///< memhier's own version
};

/// A stable 64-bit FNV-1a fingerprint of the candidate names in order, as 16 hex digits.
std::string candidates_fingerprint(const std::vector<std::string>& candidate_names);

/// The key prefix every entry for these facts and candidates starts with.
std::string key_prefix(const DeviceFacts& facts, const std::vector<std::string>& candidate_names);

/// Largest power of two dividing `address`, at most 256 (what cudaMalloc guarantees): the
/// alignment class a choice is keyed by (16 bytes opens the vector paths, 128 the fast TMA).
int alignment_class(std::uintptr_t address);

/// The key of `family`'s choice for a problem whose shape part is `shape` (the family's own
/// text: extents, leading dimensions, alignment classes) under `prefix` (key_prefix's).
std::string entry_key(const std::string& prefix, const std::string& family,
                      const std::string& shape);

/// Says once per instance that a cache file is ignored, on one line of `out`.
class Warnings {
 public:
  /// Warnings written to `out` (std::cerr for the process, a string stream in tests).
  explicit Warnings(std::ostream& out) : out_(out) {}
  /// Writes "memhier: ignoring the tuning cache at PATH: REASON" the first time only.
  void ignoring(const std::string& path, const std::string& reason);

 private:
  std::ostream& out_;
  std::mutex mu_;
  bool warned_ = false;
};

/// The process's warnings, on std::cerr.
Warnings& process_warnings();

/// The entries object of a cache file's text, or null with `reason` set when the text is
/// not a valid cache (bad JSON, wrong types: corrupt; another format: foreign).
nlohmann::json parse_entries(const std::string& text, std::string* reason);

/// The entries in the file at `path`: an empty object when it is missing or unreadable,
/// and also (with one warning) when it is corrupt or foreign. Never throws.
nlohmann::json read_entries(const std::string& path, Warnings& warnings);

/// Sets entries[key] = entry in the file at `path`, merged with what is on disk just
/// before, through a temporary file in the same directory renamed over the target, under an
/// exclusive flock on `path`.lock so that processes writing at once keep each other's. Returns
/// false (the file untouched) when it cannot be written. Never throws.
bool write_entry(const std::string& path, const std::string& key, const nlohmann::json& entry,
                 Warnings& warnings);

/// A family's choices in this process, backed by the cache file: the in-process memo and the
/// disk share one key (entry_key), so a shape known to either costs no tuning.
class Memo {
 public:
  /// The choice for `key`: from memory, else from the file at `path` (read once per Memo
  /// after each forget(); "" for no file), else what `tune()` returns (an entry with a string
  /// "choice", remembered and merged into the file; null: nothing remembered, "" returned).
  /// With `retune`, tune() runs even for a known key. A remembered choice that `valid`
  /// rejects (an older table's name) counts as unknown. `*tuned` says whether tune() ran.
  /// tune() runs under the memo's lock: one tuning at a time per family.
  std::string choose(const std::string& key, const std::string& path, bool retune,
                     const std::function<bool(const std::string&)>& valid,
                     const std::function<nlohmann::json()>& tune, bool* tuned = nullptr,
                     Warnings& warnings = process_warnings());

  /// The choice known for `key` (memory or the file), "" if none; never tunes.
  std::string known(const std::string& key, const std::string& path,
                    const std::function<bool(const std::string&)>& valid,
                    Warnings& warnings = process_warnings());

  /// Forgets what is in memory; the file is read again at the next call.
  void forget();

 private:
  void load_once(const std::string& path, Warnings& warnings);

  std::mutex mu_;
  std::map<std::string, std::string> choices_;
  bool loaded_ = false;
};

}  // namespace memhier::tuning
