// `best`: each candidate configuration is tried once per device, shape class and
// alignment, on the caller's A and B into a scratch C, and the fastest is kept in memory
// and on disk ($MEMHIER_CACHE_DIR/gemm-tuning.json, else $XDG_CACHE_HOME/memhier/... or
// ~/.cache/memhier/...; off with MEMHIER_NO_TUNE_CACHE=1). An entry's key names the device,
// driver, toolkit, runtime, memhier version and candidate list, so a change to any of them
// re-tunes by itself. A missing, corrupt or unwritable cache never fails a run
// (tuning_cache.cpp).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "memhier/core/cache_dir.hpp"
#include "candidate_timer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/device.hpp"
#include "memhier/kernels/gemm.hpp"
#include "memhier/kernels/gemm_tuning_cache.hpp"
#include "variants.hpp"

#ifndef MEMHIER_VERSION
#define MEMHIER_VERSION "0.0.0"
#endif

namespace memhier::gemm {
namespace detail {
namespace {

enum class ShapeClass { tiny, small, medium, large };

/// By flops = 2mnk: tiny below 2^24 (launch-bound: not worth tuning), small below 2^30
/// (about 800^3), medium below 2^34 (up to 2048^3), large from there.
ShapeClass classify(const Params& p) {
  const double flops = 2.0 * p.m * static_cast<double>(p.n) * p.k;
  if (flops < 16777216.0) return ShapeClass::tiny;
  if (flops < 1073741824.0) return ShapeClass::small;
  if (flops < 17179869184.0) return ShapeClass::medium;
  return ShapeClass::large;
}

const char* class_name(ShapeClass c) {
  switch (c) {
    case ShapeClass::tiny:
      return "tiny";
    case ShapeClass::small:
      return "small";
    case ShapeClass::medium:
      return "medium";
    case ShapeClass::large:
      return "large";
  }
  return "?";
}

/// Before (or without) tuning: 128 x 128 tiles fill the SMs only on large shapes.
Variant default_for(ShapeClass c) {
  return c == ShapeClass::large ? Variant::double_buffered : Variant::cfg_64x64x16_4x4;
}

bool is_candidate(Variant v) {
  const auto& c = best_candidates();
  return std::find(c.begin(), c.end(), v) != c.end();
}

class Tuner {
 public:
  Variant choose(const Params& p, cudaStream_t stream) {
    const ShapeClass cls = classify(p);
    if (cls == ShapeClass::tiny) return default_for(cls);
    const std::string key = key_for(p, cls);
    std::lock_guard<std::mutex> lock(mu_);
    load_disk_once();
    const auto it = choices_.find(key);
    if (it != choices_.end()) return it->second;
    // Tuning synchronizes and allocates: not allowed while the stream is being captured.
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
      cudaGetLastError();
      return default_for(cls);
    }
    if (capture != cudaStreamCaptureStatusNone) return default_for(cls);
    std::map<std::string, double> times;
    const Variant v = tune(p, stream, cls, &times);
    choices_[key] = v;
    if (!times.empty()) save_disk(key, v, p, times);
    return v;
  }

  std::string cached(const Params& p) {
    const ShapeClass cls = classify(p);
    if (cls == ShapeClass::tiny) return to_string(default_for(cls));
    const std::string key = key_for(p, cls);
    std::lock_guard<std::mutex> lock(mu_);
    load_disk_once();
    const auto it = choices_.find(key);
    return it == choices_.end() ? std::string() : std::string(to_string(it->second));
  }

  void forget() {
    std::lock_guard<std::mutex> lock(mu_);
    choices_.clear();
    disk_loaded_ = false;
  }

 private:
  std::string key_for(const Params& p, ShapeClass cls) {
    int dev = 0;
    MEMHIER_CUDA(cudaGetDevice(&dev));
    std::string prefix;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = prefixes_.find(dev);
      if (it == prefixes_.end()) it = prefixes_.emplace(dev, key_prefix_for(dev)).first;
      prefix = it->second;
    }
    const bool aligned = p.vec_a && p.vec_b && p.vec_c;
    return prefix + "|" + class_name(cls) + "|" + (aligned ? "aligned" : "unaligned");
  }

  /// The facts a choice on device `dev` depends on, and the candidates in table order.
  static std::string key_prefix_for(int dev) {
    cudaDeviceProp prop{};
    MEMHIER_CUDA(cudaGetDeviceProperties(&prop, dev));
    const core::Versions versions = core::cuda_versions();
    tuning::DeviceFacts facts;
    facts.device =
        std::string(prop.name) + "|sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
    facts.driver = versions.driver_release + " (CUDA " + versions.driver + ")";
    facts.toolkit = std::to_string(CUDART_VERSION);
    facts.runtime = versions.runtime;
    facts.memhier_version = MEMHIER_VERSION;
    std::vector<std::string> names;
    for (Variant v : best_candidates()) names.emplace_back(to_string(v));
    return tuning::key_prefix(facts, names);
  }

  /// Times every candidate (candidate_timer.hpp) on the caller's A and B into a scratch C;
  /// returns the default when scratch memory cannot be had or no candidate ran.
  Variant tune(const Params& p, cudaStream_t stream, ShapeClass cls,
               std::map<std::string, double>* times) {
    const std::vector<Variant>& candidates = best_candidates();
    std::vector<double> ms;
    const int i = fastest_on_scratch(p, candidates, launcher_for, stream, &ms);
    for (std::size_t j = 0; j < candidates.size(); ++j)
      if (ms[j] >= 0) (*times)[to_string(candidates[j])] = ms[j];
    return i < 0 ? default_for(cls) : candidates[static_cast<std::size_t>(i)];
  }

  void load_disk_once() {
    if (disk_loaded_) return;
    disk_loaded_ = true;
    const std::string path = tuning_cache_path();
    if (path.empty()) return;
    // Entries under other keys (another card, driver or toolkit) load but never match.
    const nlohmann::json entries = tuning::read_entries(path, tuning::process_warnings());
    for (const auto& [key, entry] : entries.items()) {
      Variant v;
      if (parse_variant(entry["choice"].get<std::string>(), &v) && is_candidate(v))
        choices_.emplace(key, v);  // a choice made in this process wins
    }
  }

  static void save_disk(const std::string& key, Variant v, const Params& p,
                        const std::map<std::string, double>& times) {
    const std::string path = tuning_cache_path();
    if (path.empty()) return;
    nlohmann::json entry;
    entry["choice"] = to_string(v);
    entry["tuned_on"] = std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
    entry["min_ms"] = times;
    // An unwritable cache only costs a re-tune in the next process.
    tuning::write_entry(path, key, entry, tuning::process_warnings());
  }

  std::mutex mu_;
  std::map<std::string, Variant> choices_;
  std::map<int, std::string> prefixes_;  // device -> key prefix
  bool disk_loaded_ = false;
};

Tuner& tuner() {
  static Tuner* t = new Tuner();  // never destroyed: usable from other static destructors
  return *t;
}

}  // namespace

Variant choose_best(const Params& p, cudaStream_t stream) {
  return tuner().choose(p, stream);
}

std::string cached_best(const Params& p) {
  return tuner().cached(p);
}

}  // namespace detail

std::string tuning_cache_path() {
  const char* off = std::getenv("MEMHIER_NO_TUNE_CACHE");
  if (off && *off && std::string(off) != "0") return {};
  const std::string dir = core::cache_dir();
  return dir.empty() ? dir : dir + "/gemm-tuning.json";
}

void forget_tuning() {
  detail::tuner().forget();
}

}  // namespace memhier::gemm
