// Rung 9, vectorized: reg_tile_2d with 16-byte accesses. A and B are read from global
// memory as float4 (one load instruction per 4 floats), A is stored transposed in shared
// memory ([BK][BM]) so a thread's 8 A values for one k are contiguous, and the fragments
// are read with LDS.128: 4 shared loads per 64 FMAs instead of 16. C is written as float4.
// Where 16-byte access is not legal (misaligned base, ld % 4 != 0, edges) it falls back
// to guarded scalar accesses.
#include "common.cuh"

namespace memhier::gemm::detail {
namespace {

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int kThreads = (BM / TM) * (BN / TN);  // 256
static_assert(BM * BK / 4 == kThreads && BK * BN / 4 == kThreads, "one float4 of A and B each");

__global__ void __launch_bounds__(kThreads) vectorized_kernel(const Params p) {
  __shared__ __align__(16) float As[BK * BM];  // transposed: [BK][BM]
  __shared__ __align__(16) float Bs[BK * BN];  // [BK][BN]
  const int tid = static_cast<int>(threadIdx.x);
  const int m0 = static_cast<int>(blockIdx.y) * BM, n0 = static_cast<int>(blockIdx.x) * BN;
  const int t_row = tid / (BN / TN), t_col = tid % (BN / TN);
  const int a_r = tid / (BK / 4), a_c = (tid % (BK / 4)) * 4;  // A row, first k of its float4
  const int b_r = tid / (BN / 4), b_c = (tid % (BN / 4)) * 4;  // B k-row, first column
  const bool a_row_ok = m0 + a_r < p.m;
  const float* a_row = p.A + rm_offset(a_row_ok ? m0 + a_r : 0, a_c, p.lda);
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;

  for (int k0 = 0; k0 < p.k; k0 += BK) {
    const float4 a = load4(a_row + k0, a_row_ok ? p.k - (k0 + a_c) : 0, p.vec_a);
    As[(a_c + 0) * BM + a_r] = a.x;
    As[(a_c + 1) * BM + a_r] = a.y;
    As[(a_c + 2) * BM + a_r] = a.z;
    As[(a_c + 3) * BM + a_r] = a.w;
    const int kr = k0 + b_r;
    const float* b_src = p.B + rm_offset(kr < p.k ? kr : 0, n0 + b_c, p.ldb);
    *reinterpret_cast<float4*>(&Bs[b_r * BN + b_c]) =
        load4(b_src, kr < p.k ? p.n - (n0 + b_c) : 0, p.vec_b);
    __syncthreads();
#pragma unroll
    for (int dot = 0; dot < BK; ++dot) {
      const float4 a0 = *reinterpret_cast<const float4*>(&As[dot * BM + t_row * TM]);
      const float4 a1 = *reinterpret_cast<const float4*>(&As[dot * BM + t_row * TM + 4]);
      const float4 b0 = *reinterpret_cast<const float4*>(&Bs[dot * BN + t_col * TN]);
      const float4 b1 = *reinterpret_cast<const float4*>(&Bs[dot * BN + t_col * TN + 4]);
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        const float ai = i < 4 ? f4(a0, i) : f4(a1, i - 4);
#pragma unroll
        for (int j = 0; j < TN; ++j)
          acc[i][j] = fmaf(ai, j < 4 ? f4(b0, j) : f4(b1, j - 4), acc[i][j]);
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = m0 + t_row * TM + i;
#pragma unroll
    for (int j = 0; j < TN; j += 4)
      store4(p.C, p.ldc, p.m, p.n, row, n0 + t_col * TN + j,
             make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]), p.alpha, p.beta,
             p.vec_c);
  }
}

void launch(const Params& p, cudaStream_t s) {
  const dim3 grid = grid_2d(ceil_div(p.n, BN), ceil_div(p.m, BM), "vectorized");
  launch_kernel(vectorized_kernel, grid, dim3(kThreads), 0, s, p);
}

const void* symbol() {
  return reinterpret_cast<const void*>(vectorized_kernel);
}

}  // namespace

Launcher vectorized_launcher() {
  return {launch, symbol, kThreads, 0};
}

}  // namespace memhier::gemm::detail
