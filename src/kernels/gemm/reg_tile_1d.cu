// Rung 7, reg_tile_1d: 1-D register tiling. A 64 x 64 block tile with BK = 8 and 512
// threads; each thread accumulates a column of 8 outputs in registers, so one value of B
// read from shared memory feeds 8 FMAs (shared loads per FMA: 1 + 1/8 instead of 2).
#include "common.cuh"

namespace memhier::gemm::detail {
namespace {

constexpr int BM = 64, BN = 64, BK = 8, TM = 8;
constexpr int kThreads = BM * BN / TM;  // 512
static_assert(kThreads == BM * BK && kThreads == BK * BN, "one A and one B element per thread");

__global__ void __launch_bounds__(kThreads) reg_tile_1d_kernel(const Params p) {
  __shared__ float As[BM * BK];  // row-major [BM][BK]
  __shared__ float Bs[BK * BN];  // row-major [BK][BN]
  const int tid = static_cast<int>(threadIdx.x);
  const int m0 = static_cast<int>(blockIdx.y) * BM, n0 = static_cast<int>(blockIdx.x) * BN;
  const int t_col = tid % BN, t_row = tid / BN;  // 64 columns x 8 groups of 8 rows
  const int a_r = tid / BK, a_c = tid % BK;      // the A element this thread stages
  const int b_r = tid / BN, b_c = tid % BN;      // the B element this thread stages
  const bool a_row_ok = m0 + a_r < p.m, b_col_ok = n0 + b_c < p.n;
  const float* a_row = p.A + rm_offset(a_row_ok ? m0 + a_r : 0, 0, p.lda);
  float acc[TM];
#pragma unroll
  for (int i = 0; i < TM; ++i) acc[i] = 0.f;

  for (int k0 = 0; k0 < p.k; k0 += BK) {
    As[a_r * BK + a_c] = (a_row_ok && k0 + a_c < p.k) ? a_row[k0 + a_c] : 0.f;
    Bs[b_r * BN + b_c] =
        (b_col_ok && k0 + b_r < p.k) ? p.B[rm_offset(k0 + b_r, n0 + b_c, p.ldb)] : 0.f;
    __syncthreads();
#pragma unroll
    for (int dot = 0; dot < BK; ++dot) {
      const float b = Bs[dot * BN + t_col];
#pragma unroll
      for (int i = 0; i < TM; ++i) acc[i] = fmaf(As[(t_row * TM + i) * BK + dot], b, acc[i]);
    }
    __syncthreads();
  }
  const int col = n0 + t_col;
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = m0 + t_row * TM + i;
    if (row < p.m && col < p.n) store1(p.C + rm_offset(row, col, p.ldc), acc[i], p.alpha, p.beta);
  }
}

void launch(const Params& p, cudaStream_t s) {
  const dim3 grid = grid_2d(ceil_div(p.n, BN), ceil_div(p.m, BM), "reg_tile_1d");
  launch_kernel(reg_tile_1d_kernel, grid, dim3(kThreads), 0, s, p);
}

const void* symbol() {
  return reinterpret_cast<const void*>(reg_tile_1d_kernel);
}

}  // namespace

Launcher reg_tile_1d_launcher() {
  return {launch, symbol, kThreads, 0};
}

}  // namespace memhier::gemm::detail
