// Rung 2: a 64x64x32 block tile of A and B staged in shared memory with 16-byte loads (zero
// past the edges), 4 warps of 32x32, each a 2x2 grid of WMMA 16x16x16 fragments read from the
// tiles: each element loaded from global memory feeds two warps' fragments. Rows are padded
// by 8 elements (16 bytes), which keeps every fragment 32-byte aligned.
#include <mma.h>

#include "common.cuh"
#include "layout.cuh"

namespace memhier::gemm_bf16::detail {
namespace {

namespace wmma = nvcuda::wmma;

constexpr int BM = WmmaSmemTile::BM, BN = WmmaSmemTile::BN, BK = WmmaSmemTile::BK;
constexpr int kThreads = WmmaSmemTile::THREADS;
constexpr int kLdA = WmmaSmemTile::LDA, kLdB = WmmaSmemTile::LDB;

__global__ void __launch_bounds__(kThreads) wmma_smem_kernel(const Params p) {
  __shared__ __align__(32) __nv_bfloat16 As[BM * kLdA];
  __shared__ __align__(32) __nv_bfloat16 Bs[BK * kLdB];
  __shared__ __align__(32) float Cs[kThreads / 32][16 * 16];
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int wm = (warp / 2) * 32, wn = (warp % 2) * 32;

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
  for (auto& row : acc)
    for (auto& f : row) wmma::fill_fragment(f, 0.f);

  for (int k0 = 0; k0 < p.k; k0 += BK) {
#pragma unroll
    for (int i = 0; i < 2; ++i) {  // 256 chunks of 8 elements in each tile, 2 per thread
      const int idx = tid + i * kThreads;
      const int ar = idx / (BK / 8), ac = (idx % (BK / 8)) * 8;
      const bool a_in = m0 + ar < p.m;
      const uint4 va = load8(a_in ? p.A + rm_offset(m0 + ar, k0 + ac, p.lda) : p.A,
                             a_in ? p.k - (k0 + ac) : 0, p.vec_a);
      const int br = idx / (BN / 8), bc = (idx % (BN / 8)) * 8;
      const bool b_in = k0 + br < p.k;
      const uint4 vb = load8(b_in ? p.B + rm_offset(k0 + br, n0 + bc, p.ldb) : p.B,
                             b_in ? p.n - (n0 + bc) : 0, p.vec_b);
      *reinterpret_cast<uint4*>(As + ar * kLdA + ac) = va;
      *reinterpret_cast<uint4*>(Bs + br * kLdB + bc) = vb;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a[2];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b[2];
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        wmma::load_matrix_sync(a[i], As + (wm + 16 * i) * kLdA + kk, kLdA);
        wmma::load_matrix_sync(b[i], Bs + kk * kLdB + wn + 16 * i, kLdB);
      }
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
    __syncthreads();  // the tiles are rewritten next
  }
  // Each fragment through the warp's 16x16 buffer: guarded stores with the epilogue.
  int r = 0, c = 0;
  half_row_lane(lane, &r, &c);
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      wmma::store_matrix_sync(Cs[warp], acc[i][j], 16, wmma::mem_row_major);
      __syncwarp();
      const int row = m0 + wm + 16 * i + r, col = n0 + wn + 16 * j + c;
      if (row < p.m)
        for (int e = 0; e < 8 && col + e < p.n; ++e)
          store1(p, row, col + e, Cs[warp][r * 16 + c + e]);
      __syncwarp();
    }
}

void launch(const Params& p, cudaStream_t s) {
  const dim3 grid = grid_2d((p.n + BN - 1) / BN, (p.m + BM - 1) / BM, "wmma_smem");
  launch_kernel(wmma_smem_kernel, grid, dim3(kThreads), 0, s, p);
}

}  // namespace

Launcher wmma_smem_launcher() {
  return {launch, [] { return reinterpret_cast<const void*>(wmma_smem_kernel); }, kThreads, 0};
}

}  // namespace memhier::gemm_bf16::detail
