// Rung 8, reg_tile_2d: 2-D register tiling. A 128 x 128 block tile with BK = 8 and 256
// threads; each thread keeps an 8 x 8 tile of C in registers and, per k, loads 8 values
// of A and 8 of B from shared memory for 64 FMAs (an outer product): 4 FMAs per shared
// load instead of 1. Loads stay scalar; A is stored row-major.
#include "common.cuh"

namespace memhier::gemm::detail {
namespace {

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int kThreads = (BM / TM) * (BN / TN);  // 256
constexpr int kARowStep = kThreads / BK;         // 32 rows of A staged per pass
constexpr int kBRowStep = kThreads / BN;         // 2 rows of B staged per pass

__global__ void __launch_bounds__(kThreads) reg_tile_2d_kernel(const Params p) {
  __shared__ float As[BM * BK];  // row-major [BM][BK]
  __shared__ float Bs[BK * BN];  // row-major [BK][BN]
  const int tid = static_cast<int>(threadIdx.x);
  const int m0 = static_cast<int>(blockIdx.y) * BM, n0 = static_cast<int>(blockIdx.x) * BN;
  const int t_row = tid / (BN / TN), t_col = tid % (BN / TN);
  const int a_r = tid / BK, a_c = tid % BK;
  const int b_r = tid / BN, b_c = tid % BN;
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;

  for (int k0 = 0; k0 < p.k; k0 += BK) {
#pragma unroll
    for (int off = 0; off < BM; off += kARowStep) {
      const int row = m0 + a_r + off, kc = k0 + a_c;
      As[(a_r + off) * BK + a_c] = (row < p.m && kc < p.k) ? p.A[rm_offset(row, kc, p.lda)] : 0.f;
    }
#pragma unroll
    for (int off = 0; off < BK; off += kBRowStep) {
      const int kr = k0 + b_r + off, col = n0 + b_c;
      Bs[(b_r + off) * BN + b_c] = (kr < p.k && col < p.n) ? p.B[rm_offset(kr, col, p.ldb)] : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int dot = 0; dot < BK; ++dot) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[(t_row * TM + i) * BK + dot];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = Bs[dot * BN + t_col * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = m0 + t_row * TM + i;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int col = n0 + t_col * TN + j;
      if (row < p.m && col < p.n)
        store1(p.C + rm_offset(row, col, p.ldc), acc[i][j], p.alpha, p.beta);
    }
  }
}

void launch(const Params& p, cudaStream_t s) {
  const dim3 grid = grid_2d(ceil_div(p.n, BN), ceil_div(p.m, BM), "reg_tile_2d");
  launch_kernel(reg_tile_2d_kernel, grid, dim3(kThreads), 0, s, p);
}

const void* symbol() {
  return reinterpret_cast<const void*>(reg_tile_2d_kernel);
}

}  // namespace

Launcher reg_tile_2d_launcher() {
  return {launch, symbol, kThreads, 0};
}

}  // namespace memhier::gemm::detail
