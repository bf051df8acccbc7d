// Index math of the GEMM rungs, __host__ __device__ so the kernels and a cost-model
// prediction for them (shared_cost / global_cost) use the same functions.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "memhier/core/hd.hpp"
#include "memhier/core/math.hpp"

namespace memhier::gemm::detail {

using core::ceil_div;  // deduced from both operands: tile counts in int, overflow-free

/// Offset in floats of element (row, col) of a row-major matrix with leading dimension ld,
/// in 64 bits (m * ld can pass 2^31).
MEMHIER_HD inline std::size_t rm_offset(int row, int col, int ld) {
  return static_cast<std::size_t>(row) * static_cast<std::size_t>(ld) +
         static_cast<std::size_t>(col);
}

/// Grouped rasterization (block swizzle for L2 reuse): consecutive block ids walk down
/// `group_m` row-tiles before moving one column-tile right, so the blocks resident at
/// one time share a few A panels and a few B panels instead of one A panel and all of B.
MEMHIER_HD inline void grouped_tile(int pid, int tiles_m, int tiles_n, int group_m, int* tile_m,
                                    int* tile_n) {
  const int in_group = group_m * tiles_n;
  const int first_m = (pid / in_group) * group_m;
  const int rows = (tiles_m - first_m) < group_m ? (tiles_m - first_m) : group_m;
  const int r = pid % in_group;
  *tile_m = first_m + r % rows;
  *tile_n = r / rows;
}

/// Word offset of A(m, kk) in a transposed A tile (k-major, BM floats per k-row) padded
/// by 4 floats per row: the transposing stores of a warp (16 rows x 2 k-groups for
/// BK = 8) land in 32 different banks, and rows stay 16-byte aligned for LDS.128.
MEMHIER_HD inline int a_tile_padded(int kk, int m, int bm) {
  return kk * (bm + 4) + m;
}

/// The same with an XOR swizzle instead of padding: the k-group (kk / 4) flips bits of
/// the row index in units of 128 / BK (a multiple of 4, so a float4 of 4 rows stays
/// contiguous and aligned), which spreads the transposing stores over all 32 banks.
MEMHIER_HD inline int a_tile_swizzled(int kk, int m, int bm, int bk) {
  return kk * bm + (m ^ ((kk >> 2) * (128 / bk)));
}

/// Thread (ty, tx) of a block's thread grid from its id: warps are 4 thread-rows by 8
/// thread-columns, so a quarter-warp shares one A fragment (broadcast) and reads 8
/// consecutive B float4s (128 contiguous bytes): conflict-free LDS.128.
MEMHIER_HD inline void warp_grid_coords(int tid, int thread_cols, int* ty, int* tx) {
  const int warps_x = thread_cols / 8;
  const int warp = tid >> 5, lane = tid & 31;
  *ty = (warp / warps_x) * 4 + (lane >> 3);
  *tx = (warp % warps_x) * 8 + (lane & 7);
}

}  // namespace memhier::gemm::detail
