// The shared-memory tiled kernel of rungs 3-6: a block stages a TILE x TILE tile of A and
// one of B in shared memory, every element loaded from global memory once per block and
// then read TILE times from shared memory. Each thread owns ROWS outputs of one column
// (ROWS = 1 but for TILE = 64, where 64 x 64 threads would exceed 1024 per block).
// PAD adds columns to each shared row (the source texts' [32][33] trick).
#pragma once

#include "common.cuh"

namespace memhier::gemm::detail {

template <int TILE, int PAD, int ROWS>
__global__ void __launch_bounds__(TILE* TILE / ROWS) smem_tile_kernel(const Params p) {
  constexpr int kThreadRows = TILE / ROWS;  // a thread owns rows ty, ty + kThreadRows, ...
  __shared__ float As[TILE][TILE + PAD];
  __shared__ float Bs[TILE][TILE + PAD];
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int row0 = static_cast<int>(blockIdx.y) * TILE;
  const int col = static_cast<int>(blockIdx.x) * TILE + tx;
  float acc[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS; ++r) acc[r] = 0.f;

  for (int k0 = 0; k0 < p.k; k0 += TILE) {
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const int lr = ty + r * kThreadRows;
      const int arow = row0 + lr, acol = k0 + tx;  // A: a row of the tile per thread-row
      As[lr][tx] = (arow < p.m && acol < p.k) ? p.A[rm_offset(arow, acol, p.lda)] : 0.f;
      const int brow = k0 + lr;  // B: consecutive threads read consecutive columns
      Bs[lr][tx] = (brow < p.k && col < p.n) ? p.B[rm_offset(brow, col, p.ldb)] : 0.f;
    }
    __syncthreads();
#pragma unroll 16
    for (int kk = 0; kk < TILE; ++kk) {
      const float b = Bs[kk][tx];  // consecutive lanes, consecutive banks
#pragma unroll
      for (int r = 0; r < ROWS; ++r)
        acc[r] = fmaf(As[ty + r * kThreadRows][kk], b, acc[r]);  // one address per warp
    }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const int row = row0 + ty + r * kThreadRows;
    if (row < p.m && col < p.n) store1(p.C + rm_offset(row, col, p.ldc), acc[r], p.alpha, p.beta);
  }
}

template <int TILE, int PAD, int ROWS>
void launch_smem_tile(const Params& p, cudaStream_t s, const char* what) {
  const dim3 grid = grid_2d(ceil_div(p.n, TILE), ceil_div(p.m, TILE), what);
  launch_kernel(smem_tile_kernel<TILE, PAD, ROWS>, grid, dim3(TILE, TILE / ROWS), 0, s, p);
}

}  // namespace memhier::gemm::detail
