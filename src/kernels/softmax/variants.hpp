// Private to the softmax ladder: one host launch function per variant (each in its own
// .cu, named for its technique), the kernel symbols for the registry, and the device
// limits the launches size their grids from.
#pragma once

#include <cuda_runtime_api.h>

#include "memhier/core/launch.hpp"

namespace memhier::softmax::detail {

/// One validated call: device pointers, the shape, whether every row is 16-byte aligned
/// (cols % 4 == 0 and both pointers 16-byte aligned), the stream.
struct Problem {
  const float* in = nullptr;
  float* out = nullptr;
  int rows = 0;
  int cols = 0;
  bool vec4 = false;
  cudaStream_t stream = nullptr;
};

/// The current device's limits, read once per device and process.
struct DeviceLimits {
  int device = 0;
  int sm_count = 0;
  int smem_optin = 0;  ///< largest dynamic + static shared memory per block, bytes
  int cc_major = 0;
  bool clusters = false;  ///< thread-block clusters (compute capability 9.0+)
};
const DeviceLimits& device_limits();

using core::launch_clustered;
using core::max_active_clusters;  // memhier/core/launch.hpp

/// Sets, once per kernel and device, the largest dynamic shared memory the device allows
/// (an opt-in above 48 KB), the max-shared carveout and, for cluster kernels, cluster sizes
/// above 8. Returns the dynamic bytes a block of `kernel` may use.
int prepare_smem_kernel(const void* kernel, bool cluster);

/// Allows, once per kernel and device, cluster sizes above the portable 8 (sm_90: 16).
void allow_large_clusters(const void* kernel);

/// The smallest power of two >= v (v >= 1).
int pow2_ceil(int v);
/// The largest power of two <= v (v >= 1).
int pow2_floor(int v);

// ---- the rungs (softmax_rungs.inc): each launch in its own .cu, and its main kernel ------

// launch_x(p) runs rung x; it throws std::invalid_argument when the rung cannot hold the
// row (warp_per_row: cols > 1024; block_per_row, cluster_per_row: a row or a chunk larger
// than shared memory). x_symbol() is its main kernel, for cudaFuncGetAttributes.
#define MEMHIER_RUNG(name, launch, symbol, ...) \
  void launch(const Problem& p);                \
  const void* symbol();
#define MEMHIER_BEST(...)
#include "memhier/kernels/softmax_rungs.inc"

/// The cluster size cluster_per_row uses for this shape (1 when one block per row is
/// best), or 0 when even the largest cluster's chunk does not fit in shared memory.
int cluster_per_row_plan(int rows, int cols, bool vec4);
/// Whether block_per_row can cache a row of `cols` in shared memory.
bool block_per_row_fits(int cols);

/// Largest cols warp_per_row takes.
constexpr int kWarpPerRowMaxCols = 1024;

}  // namespace memhier::softmax::detail
