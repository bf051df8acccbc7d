// `best`: each candidate configuration is tried once per device, shape class and
// alignment, on the caller's A and B into a scratch C, and the fastest is kept in memory
// and on disk ($XDG_CACHE_HOME/memhier/gemm-tuning.json or ~/.cache/memhier/...; off with
// MEMHIER_NO_TUNE_CACHE=1). A missing, unreadable or unwritable cache never fails a run.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "memhier/core/check.hpp"
#include "memhier/kernels/gemm.hpp"
#include "variants.hpp"

#if defined(_WIN32)
#include <process.h>
#define MEMHIER_GETPID _getpid
#else
#include <unistd.h>
#define MEMHIER_GETPID getpid
#endif

namespace memhier::gemm {
namespace detail {
namespace {

constexpr const char* kFormat = "memhier-gemm-tuning/1";  // bump when the candidates change

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
    std::string device;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = devices_.find(dev);
      if (it == devices_.end()) {
        cudaDeviceProp prop{};
        MEMHIER_CUDA(cudaGetDeviceProperties(&prop, dev));
        it = devices_
                 .emplace(dev, std::string(prop.name) + "|sm_" + std::to_string(prop.major) +
                                   std::to_string(prop.minor))
                 .first;
      }
      device = it->second;
    }
    const bool aligned = p.vec_a && p.vec_b && p.vec_c;
    return device + "|" + class_name(cls) + "|" + (aligned ? "aligned" : "unaligned");
  }

  /// Times every candidate (1 warm-up, then 3+ runs, the minimum) on the caller's A and B
  /// into a scratch C; returns the default when scratch memory cannot be had.
  Variant tune(const Params& p, cudaStream_t stream, ShapeClass cls,
               std::map<std::string, double>* times) {
    struct Scratch {
      float* c = nullptr;
      cudaEvent_t start = nullptr, stop = nullptr;
      ~Scratch() {
        if (c) cudaFree(c);
        if (start) cudaEventDestroy(start);
        if (stop) cudaEventDestroy(stop);
      }
    } s;
    const std::size_t elems = static_cast<std::size_t>(p.m) * static_cast<std::size_t>(p.ldc);
    if (cudaMalloc(reinterpret_cast<void**>(&s.c), elems * sizeof(float)) != cudaSuccess) {
      cudaGetLastError();  // out of memory is not sticky: fall back, do not fail the run
      s.c = nullptr;
      return default_for(cls);
    }
    MEMHIER_CUDA(cudaEventCreate(&s.start));
    MEMHIER_CUDA(cudaEventCreate(&s.stop));
    Params q = p;
    q.C = s.c;
    q.alpha = 1.f;
    q.beta = 0.f;  // the scratch is never read

    Variant fastest = default_for(cls);
    double fastest_ms = -1;
    for (Variant v : best_candidates()) {
      const Launcher l = launcher_for(v);
      try {
        MEMHIER_CUDA(cudaEventRecord(s.start, stream));
        l.launch(q, stream);
        MEMHIER_CUDA(cudaEventRecord(s.stop, stream));
        MEMHIER_CUDA(cudaEventSynchronize(s.stop));
      } catch (const std::invalid_argument&) {
        continue;  // this candidate cannot run here (grid or shared-memory limits)
      } catch (const core::CudaError&) {
        // A launch the device refuses (resources) is not sticky: skip the candidate. A
        // fault is: the stream reports it again, and it is the caller's to see.
        if (cudaStreamSynchronize(stream) != cudaSuccess) throw;
        cudaGetLastError();
        continue;
      }
      float warm_ms = 0;
      MEMHIER_CUDA(cudaEventElapsedTime(&warm_ms, s.start, s.stop));
      // At least 3 runs, more for short kernels (about 5 ms in all), at most 50.
      const int reps = std::clamp(warm_ms > 0 ? static_cast<int>(5.0 / warm_ms) : 50, 3, 50);
      double best_ms = -1;
      for (int r = 0; r < reps; ++r) {
        MEMHIER_CUDA(cudaEventRecord(s.start, stream));
        l.launch(q, stream);
        MEMHIER_CUDA(cudaEventRecord(s.stop, stream));
        MEMHIER_CUDA(cudaEventSynchronize(s.stop));
        float ms = 0;
        MEMHIER_CUDA(cudaEventElapsedTime(&ms, s.start, s.stop));
        if (best_ms < 0 || ms < best_ms) best_ms = ms;
      }
      (*times)[to_string(v)] = best_ms;
      if (fastest_ms < 0 || best_ms < fastest_ms) {
        fastest_ms = best_ms;
        fastest = v;
      }
    }
    return fastest;
  }

  void load_disk_once() {
    if (disk_loaded_) return;
    disk_loaded_ = true;
    const nlohmann::json j = read_file();
    if (!j.is_object() || !j.contains("entries") || !j["entries"].is_object()) return;
    for (const auto& [key, entry] : j["entries"].items()) {
      if (!entry.is_object() || !entry.contains("choice") || !entry["choice"].is_string()) continue;
      Variant v;
      if (parse_variant(entry["choice"].get<std::string>(), &v) && is_candidate(v))
        choices_.emplace(key, v);  // a choice made in this process wins
    }
  }

  static nlohmann::json read_file() {
    const std::string path = tuning_cache_path();
    if (path.empty()) return {};
    try {
      std::ifstream in(path);
      if (!in) return {};
      nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
      if (j.is_discarded() || !j.is_object() || !j.contains("format") || j["format"] != kFormat)
        return {};
      return j;
    } catch (...) {
      return {};
    }
  }

  static void save_disk(const std::string& key, Variant v, const Params& p,
                        const std::map<std::string, double>& times) {
    const std::string path = tuning_cache_path();
    if (path.empty()) return;
    try {
      nlohmann::json j = read_file();  // merge with what other processes wrote
      if (!j.is_object()) j = nlohmann::json::object();
      j["format"] = kFormat;
      if (!j.contains("entries") || !j["entries"].is_object())
        j["entries"] = nlohmann::json::object();
      nlohmann::json entry;
      entry["choice"] = to_string(v);
      entry["tuned_on"] =
          std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
      entry["min_ms"] = times;
      j["entries"][key] = entry;
      namespace fs = std::filesystem;
      std::error_code ec;
      const fs::path target(path);
      fs::create_directories(target.parent_path(), ec);
      if (ec) return;
      const fs::path tmp = target.string() + ".tmp." + std::to_string(MEMHIER_GETPID());
      {
        std::ofstream out(tmp, std::ios::trunc);
        if (!out) return;
        out << j.dump(2) << "\n";
        if (!out) {
          out.close();
          fs::remove(tmp, ec);
          return;
        }
      }
      fs::rename(tmp, target, ec);  // atomic replace: readers see the old or the new file
      if (ec) fs::remove(tmp, ec);
    } catch (...) {
      // An unwritable cache only costs a re-tune in the next process.
    }
  }

  std::mutex mu_;
  std::map<std::string, Variant> choices_;
  std::map<int, std::string> devices_;
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
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/memhier/gemm-tuning.json";
  const char* home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.cache/memhier/gemm-tuning.json";
  return {};
}

void forget_tuning() {
  detail::tuner().forget();
}

}  // namespace memhier::gemm
