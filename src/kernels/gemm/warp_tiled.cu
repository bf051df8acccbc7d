// Rung 10, warp_tiled: a third level of tiling between the block and the thread. The
// 128 x 128 block tile (BK = 16, 128 threads) is split into four 64 x 64 warp tiles; each
// warp walks its tile in 4 sub-tiles of 64 x 16, every thread computing 8 x 4 outputs of
// each (128 outputs per thread). A warp's shared reads stay inside its own 64-row and
// 64-column strips, which keeps the fragments it loads few and contiguous, and the
// per-thread ILP high (128 independent accumulators).
#include "common.cuh"

namespace memhier::gemm::detail {
namespace {

constexpr int BM = 128, BN = 128, BK = 16;
constexpr int WM = 64, WN = 64;                              // warp tile
constexpr int WNITER = 4;                                    // sub-tiles along N per warp
constexpr int TM = 8, TN = 4;                                // thread tile per sub-tile
constexpr int kThreads = 32 * (BM / WM) * (BN / WN);         // 128
constexpr int WMITER = (WM * WN) / (32 * TM * TN * WNITER);  // 1
constexpr int WSUBM = WM / WMITER, WSUBN = WN / WNITER;      // 64 x 16
constexpr int kAVec = BM * BK / 4 / kThreads, kBVec = BK * BN / 4 / kThreads;  // 4 and 4
static_assert(WMITER >= 1 && (WSUBM / TM) * (WSUBN / TN) == 32, "a sub-tile is one warp");
static_assert(kAVec * kThreads * 4 == BM * BK && kBVec * kThreads * 4 == BK * BN, "loads");

__global__ void __launch_bounds__(kThreads) warp_tiled_kernel(const Params p) {
  __shared__ __align__(16) float As[BK * BM];  // transposed: [BK][BM]
  __shared__ __align__(16) float Bs[BK * BN];  // [BK][BN]
  const int tid = static_cast<int>(threadIdx.x);
  const int m0 = static_cast<int>(blockIdx.y) * BM, n0 = static_cast<int>(blockIdx.x) * BN;
  const int warp = tid / 32, lane = tid % 32;
  const int w_row = warp / (BN / WN), w_col = warp % (BN / WN);
  const int t_row = lane / (WSUBN / TN), t_col = lane % (WSUBN / TN);  // 8 x 4 threads
  float acc[WMITER * TM][WNITER * TN];
#pragma unroll
  for (int i = 0; i < WMITER * TM; ++i)
#pragma unroll
    for (int j = 0; j < WNITER * TN; ++j) acc[i][j] = 0.f;

  for (int k0 = 0; k0 < p.k; k0 += BK) {
#pragma unroll
    for (int v = 0; v < kAVec; ++v) {
      const int idx = tid + v * kThreads;
      const int r = idx / (BK / 4), c = (idx % (BK / 4)) * 4;
      const int row = m0 + r, kc = k0 + c;
      const float* src = p.A + static_cast<std::size_t>(row < p.m ? row : 0) * p.lda + kc;
      const float4 a = load4(src, row < p.m ? p.k - kc : 0, p.vec_a);
      As[(c + 0) * BM + r] = a.x;
      As[(c + 1) * BM + r] = a.y;
      As[(c + 2) * BM + r] = a.z;
      As[(c + 3) * BM + r] = a.w;
    }
#pragma unroll
    for (int v = 0; v < kBVec; ++v) {
      const int idx = tid + v * kThreads;
      const int r = idx / (BN / 4), c = (idx % (BN / 4)) * 4;
      const int kr = k0 + r, col = n0 + c;
      const float* src = p.B + static_cast<std::size_t>(kr < p.k ? kr : 0) * p.ldb + col;
      *reinterpret_cast<float4*>(&Bs[r * BN + c]) = load4(src, kr < p.k ? p.n - col : 0, p.vec_b);
    }
    __syncthreads();
#pragma unroll
    for (int dot = 0; dot < BK; ++dot) {
      float a[WMITER * TM], b[WNITER * TN];
#pragma unroll
      for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
        for (int i = 0; i < TM; i += 4) {
          const float4 v = *reinterpret_cast<const float4*>(
              &As[dot * BM + w_row * WM + wm * WSUBM + t_row * TM + i]);
          a[wm * TM + i] = v.x;
          a[wm * TM + i + 1] = v.y;
          a[wm * TM + i + 2] = v.z;
          a[wm * TM + i + 3] = v.w;
        }
#pragma unroll
      for (int wn = 0; wn < WNITER; ++wn) {
        const float4 v =
            *reinterpret_cast<const float4*>(&Bs[dot * BN + w_col * WN + wn * WSUBN + t_col * TN]);
        b[wn * TN] = v.x;
        b[wn * TN + 1] = v.y;
        b[wn * TN + 2] = v.z;
        b[wn * TN + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < WMITER * TM; ++i)
#pragma unroll
        for (int j = 0; j < WNITER * TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int row = m0 + w_row * WM + wm * WSUBM + t_row * TM + i;
#pragma unroll
      for (int wn = 0; wn < WNITER; ++wn) {
        const float* c = &acc[wm * TM + i][wn * TN];
        store4(p.C, p.ldc, p.m, p.n, row, n0 + w_col * WN + wn * WSUBN + t_col * TN,
               make_float4(c[0], c[1], c[2], c[3]), p.alpha, p.beta, p.vec_c);
      }
    }
}

void launch(const Params& p, cudaStream_t s) {
  const dim3 grid = grid_2d(ceil_div(p.n, BN), ceil_div(p.m, BM), "warp_tiled");
  launch_kernel(warp_tiled_kernel, grid, dim3(kThreads), 0, s, p);
}

const void* symbol() {
  return reinterpret_cast<const void*>(warp_tiled_kernel);
}

}  // namespace

Launcher warp_tiled_launcher() {
  return {launch, symbol, kThreads, 0};
}

}  // namespace memhier::gemm::detail
