// Launch helpers: grid sizing from the occupancy calculator, the dynamic shared-memory opt-in,
// 2-D grids within the launch limits, clustered launches.
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

/// Raises `kernel`'s dynamic shared-memory limit when it needs more than 48 KiB (once per
/// device); throws std::invalid_argument, naming `what`, when the device cannot give that much.
void prepare_dynamic_smem(const void* kernel, int bytes, const char* what);

/// The grid for `tiles_x` x `tiles_y` blocks; throws std::invalid_argument, naming `what`,
/// when the shape needs more blocks than a grid allows.
dim3 grid_2d(long long tiles_x, long long tiles_y, const char* what);

/// Launches `kernel` as a 1-D grid of `blocks` blocks in clusters of `cluster` along x.
void launch_clustered(const void* kernel, void** args, int blocks, int cluster, int threads,
                      std::size_t smem, cudaStream_t stream);

}  // namespace memhier::core
