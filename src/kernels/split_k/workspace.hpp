// Split-K's scratch memory: each split of a tile stores its partial sums there, and the last
// split to arrive at the tile's counter adds them up (split_k.cuh). Kept per (device, stream)
// across launches, so a tuned GEMM's call allocates nothing after the first.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace memhier::kernels::split_k {

/// Device memory for one launch: `partials` holds at least the floats asked for; `counters`
/// one arrival counter per tile, zero between launches (each tile's last split resets its own).
struct Workspace {
  float* partials = nullptr;
  unsigned* counters = nullptr;
};

/// The workspace of launches on `stream` of the current device, grown to `floats` partial sums
/// and `tiles` counters (a larger problem waits for the stream's queued work first: it may
/// still read the old memory). Throws CudaError when the memory cannot be had.
Workspace workspace_for(std::size_t floats, std::size_t tiles, cudaStream_t stream);

}  // namespace memhier::kernels::split_k
