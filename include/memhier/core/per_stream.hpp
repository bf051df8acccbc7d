// Scratch state kept per (device, stream) across calls, for kernels whose launches need device
// memory of their own (staging copies, split-K partial sums): the first call on a stream makes
// it, later calls reuse it, so a tuned launch allocates nothing.
#pragma once

#include <cuda_runtime_api.h>

#include <map>
#include <mutex>
#include <utility>

#include "memhier/core/check.hpp"

namespace memhier::core {

template <typename T>
class PerStream {
 public:
  /// fn(T&) under the lock, with the current device's T for `stream` (default-made the first
  /// time); returns what fn returns. fn may grow the buffers: synchronize the stream first,
  /// queued work may still read the old ones.
  template <typename F>
  decltype(auto) with(cudaStream_t stream, F fn) {
    int dev = 0;
    MEMHIER_CUDA(cudaGetDevice(&dev));
    const std::lock_guard<std::mutex> lock(mu_);
    return fn(all_[{dev, stream}]);
  }

 private:
  std::mutex mu_;
  std::map<std::pair<int, cudaStream_t>, T> all_;
};

}  // namespace memhier::core
