// Rung 1: one warp per 16x16 tile of C, its A and B fragments loaded with
// wmma::load_matrix_sync straight from global memory. A fragment needs a 32-byte aligned
// address and a leading dimension that is a multiple of 8: where the tile crosses an edge of
// A or B, or the layout forbids it, the fragment goes through a zero-filled 16x16 staging
// tile of the warp's own instead.
#include <mma.h>

#include <cstdint>

#include "common.cuh"
#include "layout.cuh"

namespace memhier::gemm_bf16::detail {
namespace {

namespace wmma = nvcuda::wmma;

constexpr int kWarps = kWmmaGlobalWarps;  // a block is 2 x 2 warps: a 32 x 32 tile of C
constexpr int kThreads = kWarps * 32;

/// The 16x16 block of a row-major matrix (rows x cols, ld) at (r0, c0), zero past the edges,
/// into `tile` (16 x 16, row-major): each lane copies half a row.
__device__ void stage16(__nv_bfloat16* tile, const __nv_bfloat16* x, int rows, int cols, int ld,
                        int r0, int c0, int lane) {
  int r = 0, c = 0;
  half_row_lane(lane, &r, &c);
  const bool in = r0 + r < rows;
  const int avail = in ? cols - (c0 + c) : 0;
  const __nv_bfloat16* src = in ? x + rm_offset(r0 + r, c0 + c, ld) : x;
  *reinterpret_cast<uint4*>(tile + r * 16 + c) = load8(src, avail, false);
}

__global__ void __launch_bounds__(kThreads)
    wmma_global_kernel(const Params p, bool direct_a, bool direct_b) {
  __shared__ __align__(32) __nv_bfloat16 sa[kWarps][16 * 16];
  __shared__ __align__(32) __nv_bfloat16 sb[kWarps][16 * 16];
  __shared__ __align__(32) float sc[kWarps][16 * 16];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int row0 = (blockIdx.y * 2 + warp / 2) * 16, col0 = (blockIdx.x * 2 + warp % 2) * 16;
  if (row0 >= p.m || col0 >= p.n) return;  // a whole warp outside C

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.f);
  const bool rows_in = row0 + 16 <= p.m, cols_in = col0 + 16 <= p.n;
  for (int k0 = 0; k0 < p.k; k0 += 16) {
    const bool k_in = k0 + 16 <= p.k;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b;
    if (direct_a && rows_in && k_in) {
      wmma::load_matrix_sync(a, p.A + rm_offset(row0, k0, p.lda), p.lda);
    } else {
      stage16(sa[warp], p.A, p.m, p.k, p.lda, row0, k0, lane);
      __syncwarp();
      wmma::load_matrix_sync(a, sa[warp], 16);
    }
    if (direct_b && cols_in && k_in) {
      wmma::load_matrix_sync(b, p.B + rm_offset(k0, col0, p.ldb), p.ldb);
    } else {
      stage16(sb[warp], p.B, p.k, p.n, p.ldb, k0, col0, lane);
      __syncwarp();
      wmma::load_matrix_sync(b, sb[warp], 16);
    }
    wmma::mma_sync(acc, a, b, acc);
    __syncwarp();  // the staging tiles are rewritten next step
  }
  wmma::store_matrix_sync(sc[warp], acc, 16, wmma::mem_row_major);
  __syncwarp();
  int r = 0, c = 0;
  half_row_lane(lane, &r, &c);
  if (row0 + r >= p.m) return;
  for (int i = 0; i < 8 && col0 + c + i < p.n; ++i)
    store1(p, row0 + r, col0 + c + i, sc[warp][r * 16 + c + i]);
}

/// WMMA reads a fragment from memory at a 32-byte aligned address with ld % 8 == 0; every
/// 16x16 tile's address then is (16 rows of ld elements, 16 columns of 2 bytes).
bool wmma_direct(const void* base, int ld) {
  return reinterpret_cast<std::uintptr_t>(base) % 32 == 0 && ld % 8 == 0;
}

void launch(const Params& p, cudaStream_t s) {
  const dim3 grid = grid_2d((p.n + 31) / 32, (p.m + 31) / 32, "wmma_global");
  launch_kernel(wmma_global_kernel, grid, dim3(kThreads), 0, s, p, wmma_direct(p.A, p.lda),
                wmma_direct(p.B, p.ldb));
}

}  // namespace

Launcher wmma_global_launcher() {
  return {launch, [] { return reinterpret_cast<const void*>(wmma_global_kernel); }, kThreads, 0};
}

}  // namespace memhier::gemm_bf16::detail
