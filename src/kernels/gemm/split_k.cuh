// The split-K block-tile kernel (candidates of `best` for skinny shapes): a shape whose tiles
// leave most of the card idle splits K over the idle slots. Each split runs the
// double-buffered main loop over its share of the k-tiles, stores alpha x its sums to its
// slice of the workspace, and the tile's last split to arrive (split_k.cuh of
// kernels/split_k) adds the slices in split order and writes C, so C has the same bits
// whichever split ends last.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include "double_buffered.cuh"
#include "kernels/split_k/split_k.cuh"
#include "kernels/split_k/workspace.hpp"
#include "memhier/core/launch.hpp"
#include "memhier/kernels/gemm_preselect.hpp"

namespace memhier::gemm::detail {

namespace split_k = memhier::kernels::split_k;

/// Fewest k-tiles a split takes: four load 4 BK (BM + BN) floats, at least as many as the
/// BM x BN partial sums the split then stores (as many for 128x128x16, more for the rest).
inline constexpr int kMinSplitSteps = 4;

/// The first k-tile of split s of `splits` over nk k-tiles (s == splits: nk): shares that
/// differ by at most one k-tile.
__device__ __forceinline__ int split_begin(int nk, int splits, int s) {
  return static_cast<int>(static_cast<long long>(nk) * s / splits);
}

/// alpha x this thread's accumulators into a slice of the workspace (rows past m are zero
/// sums and stay inside the slice; columns past ldw are dropped).
template <class T>
__device__ __forceinline__ void store_partials(float* slice, int ldw, float alpha, int m0, int n0,
                                               int ty, int tx, const float (&acc)[T::TM][T::TN]) {
  for_each_output4<T>(m0, n0, ty, tx, [&](int row, int col, int r, int c) {
    if (col < ldw)
      __stcg(reinterpret_cast<float4*>(slice + rm_offset(row, col, ldw)),
             make_float4(alpha * acc[r][c], alpha * acc[r][c + 1], alpha * acc[r][c + 2],
                         alpha * acc[r][c + 3]));
  });
}

/// The last split: C = the sum of the slices (alpha already applied) + beta C, over the
/// elements this thread stored.
template <class T>
__device__ __forceinline__ void write_split_sum(const Params& p, const split_k::Args& w, int m0,
                                                int n0, int ty, int tx) {
  for_each_output4<T>(m0, n0, ty, tx, [&](int row, int col, int, int) {
    if (row >= p.m || col >= p.n) return;
    const float4 sum = split_k::sum4(w.partials, static_cast<std::size_t>(w.slice), w.splits,
                                     rm_offset(row, col, w.ld));
    store4(p.C, p.ldc, p.m, p.n, row, col, sum, 1.f, p.beta, p.vec_c);
  });
}

/// blockIdx.x: the tile (grouped rasterization, as double_buffered_kernel); blockIdx.y: the split.
template <class T, int MIN_BLOCKS>
__global__ void __launch_bounds__(T::THREADS, MIN_BLOCKS)
    split_k_kernel(const Params p, const split_k::Args w) {
  __shared__ __align__(16) float As[2][T::A_FLOATS];
  __shared__ __align__(16) float Bs[2][T::B_FLOATS];
  __shared__ int last;
  const auto [tid, m0, n0, ty, tx, nk] = tile_start<T>(p);
  const int s = static_cast<int>(blockIdx.y);
  float acc[T::TM][T::TN];
  zero<T>(acc);
  accumulate_double_buffered<T>(p, As, Bs, m0, n0, tid, ty, tx, split_begin(nk, w.splits, s),
                                split_begin(nk, w.splits, s + 1), acc);
  store_partials<T>(w.partials + s * w.slice, w.ld, p.alpha, m0, n0, ty, tx, acc);
  if (split_k::arrive_last(w.counters + blockIdx.x, w.splits, tid == 0, &last,
                           [] { __syncthreads(); }))
    write_split_sum<T>(p, w, m0, n0, ty, tx);
}

/// The launcher of split_k_kernel<T, MIN_BLOCKS> through `launch`.
template <class T, int MIN_BLOCKS>
Launcher split_k_launcher_for(void (*launch)(const Params&, cudaStream_t)) {
  const void* (*symbol)() = [] {
    return reinterpret_cast<const void*>(split_k_kernel<T, MIN_BLOCKS>);
  };
  return block_tile_launcher<T>(launch, symbol, 0, false, gemm::tuning::SplitK::always);
}

/// Splits K as the tuner's model does (tuning::split_count over this device's slots);
/// declines where that gives one split, which a candidate without split-K already runs.
template <class T, int MIN_BLOCKS>
void launch_split_k(const Params& p, cudaStream_t s, const char* what) {
  const auto kernel = split_k_kernel<T, MIN_BLOCKS>;
  const long long tiles = ceil_div<long long>(p.m, T::BM) * ceil_div<long long>(p.n, T::BN);
  const long long slots = core::resident_grid(reinterpret_cast<const void*>(kernel), T::THREADS);
  const int splits =
      tuning::split_count(tiles, slots, ceil_div<long long>(p.k, T::BK), kMinSplitSteps);
  if (splits < 2)
    throw std::invalid_argument(
        split_k::no_split(what, tiles, T::BM, T::BN, static_cast<int>(slots)));
  // Rows past m hold zero sums inside their slice: slices of whole tiles.
  const split_k::Args w =
      split_k::args_for(static_cast<int>(ceil_div<long long>(p.m, T::BM) * T::BM), p.n, splits,
                        static_cast<std::size_t>(tiles), s);
  launch_kernel(kernel, dim3(static_cast<unsigned>(tiles), static_cast<unsigned>(splits)),
                dim3(T::THREADS), 0, s, p, w);
}

}  // namespace memhier::gemm::detail
