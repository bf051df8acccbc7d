// Grid sizing from the occupancy calculator, for kernels that fill the device once.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace memhier::core {

/// Blocks of `kernel` resident on the current device at once: SMs x blocks per SM at
/// `block_threads` threads and `dynamic_smem` bytes (at least 1 per SM), capped at
/// `max_per_sm` per SM when that is positive. With `prefer_max_shared` the kernel's
/// shared-memory carveout is first set to the maximum (for kernels whose occupancy
/// shared memory bounds). Cached per device, kernel and arguments; thread-safe.
int resident_grid(const void* kernel, int block_threads, std::size_t dynamic_smem = 0,
                  int max_per_sm = 0, bool prefer_max_shared = false);

/// Clusters of `cluster` blocks (`threads` each, `smem` dynamic bytes) of `kernel` the
/// current device can hold at once; 0 when the device has no thread-block clusters or
/// such a cluster cannot run. Cached per device, kernel and arguments; thread-safe.
int max_active_clusters(const void* kernel, int cluster, int threads, std::size_t smem = 0);

/// Launches `kernel` as a 1-D grid of `blocks` blocks in clusters of `cluster` along x.
void launch_clustered(const void* kernel, void** args, int blocks, int cluster, int threads,
                      std::size_t smem, cudaStream_t stream);

}  // namespace memhier::core
