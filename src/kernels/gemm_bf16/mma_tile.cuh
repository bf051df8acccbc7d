// The mma.sync kernel of rungs 3-5: a 128x128x32 block tile, 8 warps of 64x32, each k16 step
// a warp's 4 A fragments (ldmatrix.x4) and 4 B fragments (2 ldmatrix.x4.trans) feed 16
// mma.sync.m16n8k16. The tiles' shared layout is a parameter (padded or swizzled, layout.cuh)
// and so is the staging: STAGES == 1 loads each k-tile through registers between two
// barriers; STAGES >= 2 is a cp.async pipeline with STAGES - 1 k-tiles in flight.
#pragma once

#include "common.cuh"
#include "kernels/gemm/index.cuh"
#include "layout.cuh"

namespace memhier::gemm_bf16::detail {

/// Elements of one stage (the A tile, then the B tile) in layout L.
template <Layout L>
constexpr int stage_elems() {
  return tile_elems(L, MmaTile::BM, MmaTile::BK) + tile_elems(L, MmaTile::BK, MmaTile::BN);
}

template <Layout L, int STAGES>
constexpr int mma_smem_bytes() {
  return (STAGES < 1 ? 1 : STAGES) * stage_elems<L>() * 2;
}

/// Stages k-tile k0 of A and B into As and Bs: each thread two 16-byte chunks of each tile,
/// by cp.async (zero-filling past the edges) where `async` and the operand allows 16-byte
/// accesses, else through registers.
template <Layout L>
__device__ __forceinline__ void stage_tile(const Params& p, int m0, int n0, int k0, int tid,
                                           __nv_bfloat16* As, __nv_bfloat16* Bs, bool async) {
  using T = MmaTile;
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int idx = tid + i * T::THREADS;
    int ar = 0, ac = 0, br = 0, bc = 0;
    staging_chunk(idx, T::BK, &ar, &ac);
    staging_chunk(idx, T::BN, &br, &bc);
    const bool a_in = m0 + ar < p.m;
    const int a_avail = a_in ? p.k - (k0 + ac) : 0;
    const __nv_bfloat16* a_src = a_avail > 0 ? p.A + rm_offset(m0 + ar, k0 + ac, p.lda) : p.A;
    __nv_bfloat16* a_dst = As + tile_offset(L, ar, ac, T::BK);
    const bool b_in = k0 + br < p.k;
    const int b_avail = b_in ? p.n - (n0 + bc) : 0;
    const __nv_bfloat16* b_src = b_avail > 0 ? p.B + rm_offset(k0 + br, n0 + bc, p.ldb) : p.B;
    __nv_bfloat16* b_dst = Bs + tile_offset(L, br, bc, T::BN);
    if (async && p.vec_a)
      ptx::cp_async_cg_16_zfill(a_dst, a_src, 2 * (a_avail < 0 ? 0 : (a_avail > 8 ? 8 : a_avail)));
    else
      *reinterpret_cast<uint4*>(a_dst) = load8(a_src, a_avail, p.vec_a);
    if (async && p.vec_b)
      ptx::cp_async_cg_16_zfill(b_dst, b_src, 2 * (b_avail < 0 ? 0 : (b_avail > 8 ? 8 : b_avail)));
    else
      *reinterpret_cast<uint4*>(b_dst) = load8(b_src, b_avail, p.vec_b);
  }
}

/// One staged k-tile multiplied into the warp's accumulators.
template <Layout L>
__device__ __forceinline__ void multiply_tile(const __nv_bfloat16* As, const __nv_bfloat16* Bs,
                                              int wm, int wn, int lane,
                                              float (&acc)[MmaTile::FM][MmaTile::FN][4]) {
  using T = MmaTile;
  int ar = 0, ac = 0, br = 0, bc = 0;
  a_ldmatrix_lane(lane, &ar, &ac);
  b_ldmatrix_lane(lane, &br, &bc);
#pragma unroll
  for (int kk = 0; kk < T::BK; kk += 16) {
    unsigned a[T::FM][4], b[T::FN / 2][4];
#pragma unroll
    for (int i = 0; i < T::FM; ++i)
      ldmatrix_x4(a[i], As + tile_offset(L, wm + 16 * i + ar, kk + ac, T::BK));
#pragma unroll
    for (int j = 0; j < T::FN / 2; ++j)
      ldmatrix_x4_trans(b[j], Bs + tile_offset(L, kk + br, wn + 16 * j + bc, T::BN));
#pragma unroll
    for (int i = 0; i < T::FM; ++i)
#pragma unroll
      for (int j = 0; j < T::FN; ++j)
        mma_bf16(acc[i][j], a[i], b[j / 2][(j % 2) * 2], b[j / 2][(j % 2) * 2 + 1]);
  }
}

template <Layout L, int STAGES>
__global__ void __launch_bounds__(MmaTile::THREADS, 2) mma_kernel(const Params p) {
  using T = MmaTile;
  static_assert(STAGES >= 1 && STAGES <= 6, "1..6 stages");
  extern __shared__ __align__(16) unsigned char smem_raw[];
  __nv_bfloat16* smem = reinterpret_cast<__nv_bfloat16*>(smem_raw);
  constexpr int kA = tile_elems(L, T::BM, T::BK), kStage = stage_elems<L>();
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  // Grouped rasterization (the SGEMM ladder's helper): consecutive blocks walk down 8 row
  // tiles before moving right, so the blocks resident together share A and B panels in L2.
  int tm = 0, tn = 0;
  gemm::detail::grouped_tile(static_cast<int>(blockIdx.y * gridDim.x + blockIdx.x),
                             static_cast<int>(gridDim.y), static_cast<int>(gridDim.x), 8, &tm, &tn);
  const int m0 = tm * T::BM, n0 = tn * T::BN;
  const int wm = (warp / T::WARPS_N) * T::WM, wn = (warp % T::WARPS_N) * T::WN;
  const int nk = (p.k + T::BK - 1) / T::BK;
  float acc[T::FM][T::FN][4] = {};

  if constexpr (STAGES == 1) {
    for (int kt = 0; kt < nk; ++kt) {
      if (kt > 0) __syncthreads();  // every warp is done with the previous tile
      stage_tile<L>(p, m0, n0, kt * T::BK, tid, smem, smem + kA, false);
      __syncthreads();
      multiply_tile<L>(smem, smem + kA, wm, wn, lane, acc);
    }
  } else {
    // Prologue: tiles 0 .. STAGES-2 in flight, one commit group each (empty groups keep the
    // count uniform when there are fewer tiles).
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
      if (s < nk)
        stage_tile<L>(p, m0, n0, s * T::BK, tid, smem + s * kStage, smem + s * kStage + kA, true);
      ptx::cp_async_commit_group();
    }
    for (int kt = 0; kt < nk; ++kt) {
      // Of the groups committed so far (tiles up to kt + STAGES - 2), all but the newest
      // STAGES - 2 are complete: tile kt has landed; the barrier makes it everyone's and
      // says every warp is done with tile kt - 1, whose stage is refilled next.
      ptx::cp_async_wait_group<STAGES - 2>();
      __syncthreads();
      const int next = kt + STAGES - 1;
      if (next < nk) {
        __nv_bfloat16* st = smem + (next % STAGES) * kStage;
        stage_tile<L>(p, m0, n0, next * T::BK, tid, st, st + kA, true);
      }
      ptx::cp_async_commit_group();
      const __nv_bfloat16* st = smem + (kt % STAGES) * kStage;
      multiply_tile<L>(st, st + kA, wm, wn, lane, acc);
    }
    ptx::cp_async_wait_group<0>();
  }

  // The m16n8 accumulator: c0, c1 at row lane/4, columns 2(lane%4) + {0, 1}; c2, c3 8 rows down.
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int i = 0; i < T::FM; ++i)
#pragma unroll
    for (int j = 0; j < T::FN; ++j) {
      const int row = m0 + wm + 16 * i + g, col = n0 + wn + 8 * j + 2 * t;
      store2(p, row, col, acc[i][j][0], acc[i][j][1]);
      store2(p, row + 8, col, acc[i][j][2], acc[i][j][3]);
    }
}

/// The launcher of mma_kernel<L, STAGES> through `launch`.
template <Layout L, int STAGES>
Launcher mma_launcher_for(void (*launch)(const Params&, cudaStream_t)) {
  return {launch,           [] { return reinterpret_cast<const void*>(mma_kernel<L, STAGES>); },
          MmaTile::THREADS, mma_smem_bytes<L, STAGES>(),
          MmaTile::BM,      MmaTile::BN};
}

template <Layout L, int STAGES>
void launch_mma(const Params& p, cudaStream_t s, const char* what) {
  using T = MmaTile;
  constexpr int kBytes = mma_smem_bytes<L, STAGES>();
  const auto kernel = mma_kernel<L, STAGES>;
  prepare_dynamic_smem(reinterpret_cast<const void*>(kernel), kBytes, what);
  const dim3 grid = grid_2d((p.n + T::BN - 1) / T::BN, (p.m + T::BM - 1) / T::BM, what);
  launch_kernel(kernel, grid, dim3(T::THREADS), static_cast<std::size_t>(kBytes), s, p);
}

}  // namespace memhier::gemm_bf16::detail
