// The GEMM tuning cache on disk, host-only (no CUDA): the key derived from the device facts
// and the candidate list, reading that tolerates any file, and atomic merged writes. The
// tuner (tuner.cpp) gathers the facts from the device; the CPU tests pass them as data.
#pragma once

#include <mutex>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace memhier::gemm::tuning {

/// The file's schema; entries for other devices or toolkits live under other keys.
inline constexpr const char* kFormat = "memhier-gemm-tuning/1";

/// What a tuned choice depends on besides the shape: a change to any of them re-tunes.
struct DeviceFacts {
  std::string device;           ///< name and compute capability, e.g. "NVIDIA H100|sm_90"
  std::string driver;           ///< driver release and the CUDA version it supports
  std::string toolkit;          ///< CUDA toolkit memhier was built with
  std::string runtime;          ///< CUDA runtime loaded at run time
  std::string memhier_version;  ///< memhier's own version
};

/// A stable 64-bit FNV-1a fingerprint of the candidate names in order, as 16 hex digits.
std::string candidates_fingerprint(const std::vector<std::string>& candidate_names);

/// The key prefix every entry for these facts and candidates starts with.
std::string key_prefix(const DeviceFacts& facts, const std::vector<std::string>& candidate_names);

/// Says once per instance that a cache file is ignored, on one line of `out`.
class Warnings {
 public:
  /// Warnings written to `out` (std::cerr for the process, a string stream in tests).
  explicit Warnings(std::ostream& out) : out_(out) {}
  /// Writes "memhier: ignoring the GEMM tuning cache at PATH: REASON" the first time only.
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

}  // namespace memhier::gemm::tuning
