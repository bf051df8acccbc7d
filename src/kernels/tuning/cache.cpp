// The tuning cache on disk (see memhier/kernels/tuning_cache.hpp). A bad cache only costs a
// re-tune, so nothing here throws or fails a run.
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <system_error>
#include <utility>

#include "memhier/kernels/tuning_cache.hpp"

#if defined(_WIN32)
#include <process.h>
#define MEMHIER_GETPID _getpid
#else
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#define MEMHIER_GETPID getpid
#endif

namespace memhier::tuning {

std::string candidates_fingerprint(const std::vector<std::string>& candidate_names) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a offset basis
  auto mix = [&h](unsigned char c) {
    h ^= c;
    h *= 1099511628211ull;
  };
  for (const std::string& name : candidate_names) {
    for (char c : name) mix(static_cast<unsigned char>(c));
    mix(0);  // a separator no name contains: ("ab","c") and ("a","bc") differ
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

std::string key_prefix(const DeviceFacts& facts, const std::vector<std::string>& candidate_names) {
  return facts.device + "|driver " + facts.driver + "|toolkit " + facts.toolkit + "|runtime " +
         facts.runtime + "|memhier " + facts.memhier_version + "|candidates " +
         candidates_fingerprint(candidate_names);
}

int alignment_class(std::uintptr_t address) {
  int a = 1;
  while (a < 256 && address % (2u * static_cast<unsigned>(a)) == 0) a *= 2;
  return a;
}

std::string entry_key(const std::string& prefix, const std::string& family,
                      const std::string& shape) {
  return prefix + "|" + family + "|" + shape;
}

void Warnings::ignoring(const std::string& path, const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu_);
  if (warned_) return;
  warned_ = true;
  out_ << "memhier: ignoring the tuning cache at " << path << ": " << reason << "\n";
  out_.flush();
}

Warnings& process_warnings() {
  static Warnings* w = new Warnings(std::cerr);  // never destroyed, like the tuner
  return *w;
}

nlohmann::json parse_entries(const std::string& text, std::string* reason) {
  const auto reject = [reason](std::string why) {
    *reason = std::move(why);
    return nlohmann::json();
  };
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return reject("not valid JSON");
  if (!j.is_object()) return reject("not a JSON object");
  const auto format = j.find("format");
  if (format == j.end() || !format->is_string())
    return reject("no \"format\" field (another program's file?)");
  if (*format != kFormat)
    return reject("format \"" + format->get<std::string>() + "\", not \"" + kFormat + "\"");
  const auto entries = j.find("entries");
  if (entries == j.end() || !entries->is_object()) return reject("\"entries\" is not an object");
  for (const auto& [key, entry] : entries->items()) {
    if (!entry.is_object() || !entry.contains("choice") || !entry["choice"].is_string())
      return reject("entry \"" + key + "\" has no string \"choice\"");
  }
  return *entries;
}

nlohmann::json read_entries(const std::string& path, Warnings& warnings) {
  try {
    std::ifstream in(path, std::ios::binary);
    if (!in) return nlohmann::json::object();  // missing: nothing tuned yet
    std::ostringstream text;
    text << in.rdbuf();
    if (!in.good() && !in.eof()) return nlohmann::json::object();
    std::string reason;
    nlohmann::json entries = parse_entries(text.str(), &reason);
    if (entries.is_null()) {
      warnings.ignoring(path, reason);
      return nlohmann::json::object();
    }
    return entries;
  } catch (...) {
    return nlohmann::json::object();
  }
}

namespace {

/// A temporary name beside `target` no other process or thread picks: pid, a per-process
/// counter and a random number.
std::filesystem::path temp_beside(const std::filesystem::path& target) {
  static std::atomic<unsigned> counter{0};
  std::random_device rd;
  const unsigned long long r =
      (static_cast<unsigned long long>(rd()) << 32) ^ static_cast<unsigned long long>(rd());
  char suffix[64];
  std::snprintf(suffix, sizeof suffix, ".tmp.%ld.%u.%016llx", static_cast<long>(MEMHIER_GETPID()),
                counter.fetch_add(1), r);
  return target.parent_path() / (target.filename().string() + suffix);
}

/// An exclusive flock on `<cache>.lock` for one read-merge-write: two processes tuning at
/// once would otherwise each write the file read before the other's entry (a lost entry).
/// Without the lock (no such file can be made) the write goes on: a lost entry costs a re-tune.
class FileLock {
 public:
  explicit FileLock(const std::filesystem::path& target) {
#if !defined(_WIN32)
    const std::string name = target.string() + ".lock";
    fd_ = ::open(name.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    while (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0)
      if (errno != EINTR) {
        ::close(fd_);
        fd_ = -1;
      }
#else
    (void)target;
#endif
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock() {
#if !defined(_WIN32)
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
#endif
  }

 private:
  int fd_ = -1;
};

}  // namespace

bool write_entry(const std::string& path, const std::string& key, const nlohmann::json& entry,
                 Warnings& warnings) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path tmp;
  try {
    const fs::path target(path);
    if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
    if (ec) return false;
    const FileLock lock(target);  // held until the renamed file is in place
    nlohmann::json file = nlohmann::json::object();
    file["format"] = kFormat;
    file["entries"] = read_entries(path, warnings);  // other processes' entries are kept
    file["entries"][key] = entry;
    tmp = temp_beside(target);
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out) return false;
      out << file.dump(2) << "\n";
      out.close();
      if (!out) {
        fs::remove(tmp, ec);
        return false;
      }
    }
    fs::rename(tmp, target, ec);  // atomic: readers see the old file or the new one
    if (ec) {
      fs::remove(tmp, ec);
      return false;
    }
    return true;
  } catch (...) {
    if (!tmp.empty()) fs::remove(tmp, ec);
    return false;
  }
}

void Memo::load_once(const std::string& path, Warnings& warnings) {
  if (loaded_) return;
  loaded_ = true;
  if (path.empty()) return;
  // Entries under other keys (another card, family or shape) load but never match.
  const nlohmann::json entries = read_entries(path, warnings);
  for (const auto& [key, entry] : entries.items())
    choices_.emplace(key, entry["choice"].get<std::string>());  // this process's choice wins
}

std::string Memo::choose(const std::string& key, const std::string& path, bool retune,
                         const std::function<bool(const std::string&)>& valid,
                         const std::function<nlohmann::json()>& tune, bool* tuned,
                         Warnings& warnings) {
  if (tuned) *tuned = false;
  std::lock_guard<std::mutex> lock(mu_);
  load_once(path, warnings);
  const auto it = choices_.find(key);
  if (!retune && it != choices_.end() && valid(it->second)) return it->second;
  nlohmann::json entry = tune();
  if (tuned) *tuned = true;
  if (!entry.is_object() || !entry.contains("choice") || !entry["choice"].is_string()) return {};
  std::string choice = entry["choice"].get<std::string>();
  choices_[key] = choice;
  // An unwritable cache only costs a re-tune in the next process.
  if (!path.empty()) write_entry(path, key, entry, warnings);
  return choice;
}

std::string Memo::known(const std::string& key, const std::string& path,
                        const std::function<bool(const std::string&)>& valid, Warnings& warnings) {
  std::lock_guard<std::mutex> lock(mu_);
  load_once(path, warnings);
  const auto it = choices_.find(key);
  return it != choices_.end() && valid(it->second) ? it->second : std::string();
}

void Memo::forget() {
  std::lock_guard<std::mutex> lock(mu_);
  choices_.clear();
  loaded_ = false;
}

}  // namespace memhier::tuning
