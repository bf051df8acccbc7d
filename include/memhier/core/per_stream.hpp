// Scratch state kept per (device, stream) across calls, for kernels whose launches need device
// memory of their own (staging copies, split-K partial sums): the first call on a stream makes
// it, later calls reuse it, so a tuned launch allocates nothing.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "memhier/core/buffer.hpp"
#include "memhier/core/check.hpp"

namespace memhier::core {

/// Device memory a stream's launches reuse, which only grows. Outgrown memory is kept until
/// the scratch is destroyed, never freed under queued work or under a CUDA graph captured with
/// it (such a graph replays safely; graphs captured on one stream share its scratch, so replay
/// them there one at a time, as cuBLAS asks of its workspace). Each growth at least doubles,
/// so what is kept stays below what is in use.
template <typename T>
class Scratch {
 public:
  /// At least `count` elements on `stream`. Returns true when the memory is new (its contents
  /// undefined). Throws std::invalid_argument, naming `what`, when it must grow while `stream`
  /// is being captured (allocating is not a stream operation), and CudaError without memory.
  bool reserve(std::size_t count, cudaStream_t stream, const char* what) {
    if (now_.size() >= count) return false;
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    MEMHIER_CUDA(cudaStreamIsCapturing(stream, &capture));
    if (capture != cudaStreamCaptureStatusNone)
      throw std::invalid_argument(std::string(what) +
                                  " needs more scratch memory on this stream, which cannot be "
                                  "allocated while the stream is being captured: run the shape "
                                  "once on this stream before capturing");
    DeviceBuffer<T> grown(std::max(count, 2 * now_.size()));
    if (now_.size() > 0) outgrown_.push_back(std::move(now_));
    now_ = std::move(grown);
    return true;
  }
  T* data() { return now_.data(); }
  std::size_t size() const { return now_.size(); }
  std::size_t bytes() const { return now_.bytes(); }

 private:
  DeviceBuffer<T> now_;
  std::vector<DeviceBuffer<T>> outgrown_;
};

template <typename T>
class PerStream {
 public:
  /// fn(T&) under the lock, with the current device's T for `stream` (default-made the first
  /// time); returns what fn returns. Buffers in T grow as Scratch does (queued work and
  /// captured graphs may still use the old ones).
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
