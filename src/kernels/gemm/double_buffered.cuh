// The double-buffered block-tile kernel (rung 11 and candidates of `best`): two shared
// stages, the next k-tile prefetched from global memory into registers while the current
// one is computed, stored to the other stage at the end of the tile, one __syncthreads per
// k-tile; fragments are double-buffered in registers too (k+1 loaded while k computes).
#pragma once

#include "block_tile.cuh"

namespace memhier::gemm::detail {

/// The k-tiles [kt0, kt1) of the block's tile (kt1 > kt0) into `acc`, double-buffered
/// through As and Bs (two stages each); the split-K kernel runs it over its split's range.
/// STEP: k-tiles wholly inside K of a block inside M and N load through running pointers.
template <class T, bool STEP = true>
__device__ __forceinline__ void accumulate_double_buffered(const Params& p,
                                                           float (*As)[T::A_FLOATS],
                                                           float (*Bs)[T::B_FLOATS], int m0, int n0,
                                                           int tid, int ty, int tx, int kt0,
                                                           int kt1, float (&acc)[T::TM][T::TN]) {
  float4 ra[T::A_VEC], rb[T::B_VEC];
  load_tile_regs<T>(p, m0, n0, kt0 * T::BK, tid, ra, rb);
  store_tile_smem<T>(As[0], Bs[0], tid, ra, rb);
  __syncthreads();
  float4 fa[2][T::RM], fb[2][T::RN];
  load_fragments<T>(As[0], Bs[0], 0, ty, tx, fa[0], fb[0]);
  const bool interior = STEP && p.vec_a && p.vec_b && m0 + T::BM <= p.m && n0 + T::BN <= p.n;
  const int kt_whole = interior ? p.k / T::BK : 0;  // uniform over the block
  TileSources src = tile_sources<T>(p, m0, n0, (kt0 + 1) * T::BK, tid);
  const std::size_t b_tile = static_cast<std::size_t>(T::BK) * p.ldb;

  for (int kt = kt0; kt < kt1; ++kt) {
    const int cur = (kt - kt0) & 1;
    const bool has_next = kt + 1 < kt1;  // uniform over the block
    if (has_next) {
      if (kt + 1 < kt_whole)
        load_tile_regs_interior<T>(src, ra, rb);
      else
        load_tile_regs<T>(p, m0, n0, (kt + 1) * T::BK, tid, ra, rb);
      src.a += T::BK;
      src.b += b_tile;
    }
#pragma unroll
    for (int kk = 0; kk < T::BK; ++kk) {
      if (kk < T::BK - 1) {
        load_fragments<T>(As[cur], Bs[cur], kk + 1, ty, tx, fa[(kk + 1) & 1], fb[(kk + 1) & 1]);
      } else if (has_next) {
        // The other stage was last read before the previous barrier: safe to overwrite.
        store_tile_smem<T>(As[cur ^ 1], Bs[cur ^ 1], tid, ra, rb);
        __syncthreads();
        load_fragments<T>(As[cur ^ 1], Bs[cur ^ 1], 0, ty, tx, fa[0], fb[0]);
      }
      outer_product<T>(acc, fa[kk & 1], fb[kk & 1]);
    }
  }
}

template <class T, int MIN_BLOCKS, bool STEP>
__global__ void __launch_bounds__(T::THREADS, MIN_BLOCKS) double_buffered_kernel(const Params p) {
  __shared__ __align__(16) float As[2][T::A_FLOATS];
  __shared__ __align__(16) float Bs[2][T::B_FLOATS];
  const auto [tid, m0, n0, ty, tx, nk] = tile_start<T>(p);
  float acc[T::TM][T::TN];
  zero<T>(acc);
  accumulate_double_buffered<T, STEP>(p, As, Bs, m0, n0, tid, ty, tx, 0, nk, acc);
  write_tile<T>(p, m0, n0, ty, tx, acc);
}

/// The launcher of double_buffered_kernel<T, MIN_BLOCKS, STEP> through `launch`.
template <class T, int MIN_BLOCKS, bool STEP = true>
Launcher double_buffered_launcher_for(void (*launch)(const Params&, cudaStream_t)) {
  const void* (*symbol)() = [] {
    return reinterpret_cast<const void*>(double_buffered_kernel<T, MIN_BLOCKS, STEP>);
  };
  return block_tile_launcher<T>(launch, symbol);
}

template <class T, int MIN_BLOCKS, bool STEP = true>
void launch_double_buffered(const Params& p, cudaStream_t s, const char* what) {
  launch_kernel(double_buffered_kernel<T, MIN_BLOCKS, STEP>, block_tile_grid<T>(p, what),
                dim3(T::THREADS), 0, s, p);
}

}  // namespace memhier::gemm::detail
