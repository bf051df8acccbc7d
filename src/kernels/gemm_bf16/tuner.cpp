// `best`: each candidate of the table is tried once per device, shape class and alignment, on
// the caller's A and B into a scratch C, and the fastest is kept for the process. A candidate
// that cannot run on the device or the shape is skipped (gemm/candidate_timer.hpp).
#include <cuda_runtime_api.h>

#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>

#include "kernels/gemm/candidate_timer.hpp"
#include "memhier/core/check.hpp"
#include "variants.hpp"

namespace memhier::gemm_bf16::detail {
namespace {

/// By flops = 2mnk: tiny below 2^24 (launch-bound: not worth tuning), small below 2^30,
/// medium below 2^34 (up to 2048^3), large from there.
int shape_class(const Params& p) {
  const double flops = 2.0 * p.m * static_cast<double>(p.n) * p.k;
  if (flops < 16777216.0) return 0;
  if (flops < 1073741824.0) return 1;
  if (flops < 17179869184.0) return 2;
  return 3;
}

/// What runs untuned (tiny shapes, stream capture, no scratch memory): the first candidate,
/// which runs on every device the ladder supports.
Variant fallback() {
  return best_candidates().front();
}

class Tuner {
 public:
  Variant choose(const Params& p, cudaStream_t stream) {
    const int cls = shape_class(p);
    if (cls == 0) return fallback();
    const Key key = key_for(p, cls);
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = choices_.find(key);
    if (it != choices_.end()) return it->second;
    // Tuning synchronizes and allocates: not allowed while the stream is being captured.
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
      cudaGetLastError();
      return fallback();
    }
    if (capture != cudaStreamCaptureStatusNone) return fallback();
    const Variant v = tune(p, stream);
    choices_[key] = v;
    return v;
  }

  std::string cached(const Params& p) {
    const int cls = shape_class(p);
    if (cls == 0) return to_string(fallback());
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = choices_.find(key_for(p, cls));
    return it == choices_.end() ? std::string() : std::string(to_string(it->second));
  }

 private:
  using Key = std::tuple<int, int, bool>;  // device, shape class, 16-byte rows

  static Key key_for(const Params& p, int cls) {
    int dev = 0;
    MEMHIER_CUDA(cudaGetDevice(&dev));
    return {dev, cls, p.vec_a && p.vec_b};
  }

  /// Times every candidate (the SGEMM tuner's loop, gemm/candidate_timer.hpp) on the
  /// caller's A and B into a scratch C; the fallback when none ran or no scratch memory.
  static Variant tune(const Params& p, cudaStream_t stream) {
    const std::vector<Variant>& candidates = best_candidates();
    const int i = gemm::detail::fastest_on_scratch(p, candidates, launcher_for, stream);
    return i < 0 ? fallback() : candidates[static_cast<std::size_t>(i)];
  }

  std::mutex mu_;
  std::map<Key, Variant> choices_;
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

}  // namespace memhier::gemm_bf16::detail
