// The kernels and the timing the host and peer probes share: a spin kernel that holds a
// stream until the host releases it (so the copies of one sample start back to back, as
// nvbandwidth does), SM copies and reads through any pointer the device can reach (mapped
// host memory, a peer GPU's memory), a dependent-load chase, and an arithmetic-only kernel.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "memhier/core/check.hpp"

namespace memhier::probe::outer {

/// Puts the caller's device back on scope exit (the other probes run on it).
struct RestoreDevice {
  int home = 0;
  RestoreDevice() { MEMHIER_CUDA(cudaGetDevice(&home)); }
  ~RestoreDevice() { cudaSetDevice(home); }
};

/// Peer access enabled for a probe and disabled again after it (what the caller had enabled
/// stays enabled).
struct PeerAccess {
  std::vector<std::pair<int, int>> enabled;
  void enable(int from, int to) {
    MEMHIER_CUDA(cudaSetDevice(from));
    const cudaError_t e = cudaDeviceEnablePeerAccess(to, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) {
      cudaGetLastError();  // enabled by the caller before us: leave it as found
      return;
    }
    MEMHIER_CUDA(e);
    enabled.emplace_back(from, to);
  }
  ~PeerAccess() {
    for (auto [from, to] : enabled) {
      cudaSetDevice(from);
      cudaDeviceDisablePeerAccess(to);
    }
  }
};

/// Blocks of kStrideThreads threads for a grid-stride loop over `n` items (1 to 4096): the
/// fill and check kernels around the collectives.
inline constexpr int kStrideThreads = 256;
inline int stride_blocks(std::uint64_t n) {
  return static_cast<int>(
      std::clamp<std::uint64_t>((n + kStrideThreads - 1) / kStrideThreads, 1, 4096));
}

/// Seconds per call over `iterations` calls enqueued back to back, by the host's clock until
/// `finish` (every stream done) returns: nccl-tests' timing, used alike for NCCL and our own
/// collective kernels.
inline double host_seconds_per_call(int iterations, const std::function<void()>& call,
                                    const std::function<void()>& finish) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) call();
  finish();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() /
         iterations;
}

/// Throws std::invalid_argument unless 1 <= `ranks` <= the visible GPUs (`what`: the probe).
inline void require_ranks(const char* what, int ranks) {
  int n = 0;
  MEMHIER_CUDA(cudaGetDeviceCount(&n));
  if (ranks < 1 || ranks > n)
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(ranks) +
                                " ranks asked, " + std::to_string(n) + " GPUs visible");
}

/// A CUDA event on the current device, destroyed with its owner.
struct Event {
  cudaEvent_t e = nullptr;
  explicit Event(unsigned flags = cudaEventDefault);
  ~Event() { cudaEventDestroy(e); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
};

/// A non-blocking stream on the current device, destroyed with its owner.
struct Stream {
  cudaStream_t s = nullptr;
  Stream();
  ~Stream() { cudaStreamDestroy(s); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

/// Milliseconds between two events recorded and completed (synchronizes on `stop`).
double elapsed_ms(const Event& start, const Event& stop);

/// A flag in pinned host memory that every device can read: hold() puts a spin kernel on
/// a stream, release() lets every held stream go. The spin gives up after a few seconds so
/// that a host that never releases cannot hang the GPU.
class StreamGate {
 public:
  StreamGate();
  ~StreamGate();
  StreamGate(const StreamGate&) = delete;
  StreamGate& operator=(const StreamGate&) = delete;
  /// Enqueues the spin on `s` (on the current device, which must be the stream's).
  void hold(cudaStream_t s);
  /// Lets every held stream go; the next hold() holds again.
  void release();

 private:
  volatile int* flag_ = nullptr;
};

/// Copies `bytes` from `src` to `dst` with every SM (16-byte loads and stores where both
/// are aligned), on `s` of the current device.
void sm_copy(void* dst, const void* src, std::size_t bytes, cudaStream_t s);

/// Reads every byte of `src` with every SM and folds it into `sink` (one device word).
void sm_read(const void* src, std::size_t bytes, std::uint32_t* sink, cudaStream_t s);

/// Follows `steps` dependent 4-byte loads from `ring` (each word the byte offset of the next
/// slot, make_ring's layout) with one thread; returns SM cycles per load (clock64 around the
/// loop), after one untimed lap of `steps` to warm the translation path.
double chase_cycles(const void* ring, int steps);

/// One block per SM doing `iters` dependent FMAs per thread: compute with no memory
/// traffic, to overlap with a copy.
void arithmetic(int iters, std::uint32_t* sink, cudaStream_t s);

/// The median, over `reps` samples, of milliseconds per operation: each sample enqueues
/// `batch` calls of `op` on `s` between two events; with `gate`, the stream is held behind
/// its spin kernel until the whole sample is enqueued (pageable copies block the host until
/// staged, so they run without it).
double time_batch(cudaStream_t s, int batch, int reps, const std::function<void(cudaStream_t)>& op,
                  StreamGate* gate);

}  // namespace memhier::probe::outer
