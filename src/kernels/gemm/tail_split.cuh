// The tail-split candidates of `best` (past wave quantization): the tiles of the whole waves run
// as double_buffered runs them, a block each; the tiles after them, too few to fill a last wave,
// split their K so that their splits fill whole waves of slots (tuning::tail_split_plan): at
// 4099x4097 on the H200 (132 SMs, one such block each), 528 whole 128x256 tiles, then 33 tiles
// split 4 ways, 4.25 rounds in place of 5. Two launches: the whole tiles, then the splits. A split
// stores its sums to the tile's slot for it; the tile's last split to arrive adds the slots in
// split order and writes C, so C has the same bits whichever split ends last.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include "double_buffered.cuh"
#include "kernels/split_k/split_k.cuh"
#include "kernels/split_k/workspace.hpp"
#include "memhier/core/launch.hpp"
#include "memhier/kernels/gemm_preselect.hpp"
#include "split_k.cuh"  // split_begin

namespace memhier::gemm::detail {

/// A split's sums into its slot of the tile, in the threads' own order (coalesced float4s).
template <class T>
__device__ __forceinline__ void store_slot(float* slot, int tid, const float (&acc)[T::TM][T::TN]) {
#pragma unroll
  for (int j = 0; j < T::TM * T::TN / 4; ++j) {
    const float* a = &acc[j / (T::TN / 4)][(j % (T::TN / 4)) * 4];
    __stcg(reinterpret_cast<float4*>(slot + (j * T::THREADS + tid) * 4),
           make_float4(a[0], a[1], a[2], a[3]));
  }
}

/// The last split: C = alpha x the tile's slots added in split order + beta C. Every slot is
/// read back (this thread wrote its own), so the accumulators are dead and free for four
/// float4 a thread in flight at a time.
template <class T>
__device__ __forceinline__ void write_slots_sum(const Params& p, const float* slots, int splits,
                                                int m0, int n0, int ty, int tx, int tid) {
  constexpr int kChunks = T::TM * T::TN / 4, kGroup = 4, kSlot = T::BM * T::BN;
  static_assert(kChunks % kGroup == 0 && T::TN / 4 == T::RN, "chunks of acc[r][4 qn]");
#pragma unroll
  for (int g = 0; g < kChunks; g += kGroup) {
    float4 sum[kGroup];
#pragma unroll
    for (int q = 0; q < kGroup; ++q) sum[q] = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int s = 0; s < splits; ++s) {
#pragma unroll
      for (int q = 0; q < kGroup; ++q) {
        const float4 v = __ldcg(
            reinterpret_cast<const float4*>(slots + s * kSlot + ((g + q) * T::THREADS + tid) * 4));
        sum[q].x += v.x;
        sum[q].y += v.y;
        sum[q].z += v.z;
        sum[q].w += v.w;
      }
    }
#pragma unroll
    for (int q = 0; q < kGroup; ++q) {
      const int r = (g + q) / T::RN, qn = (g + q) % T::RN;  // acc[r][4 qn], as for_each_output4
      const int row = m0 + (r / 4) * (T::BM / T::RM) + ty * 4 + r % 4;
      const int col = n0 + qn * (T::BN / T::RN) + tx * 4;
      store4(p.C, p.ldc, p.m, p.n, row, col, sum[q], p.alpha, p.beta, p.vec_c);
    }
  }
}

/// blockIdx.x: the split tile (after the whole ones); blockIdx.y: its split.
template <class T, int MIN_BLOCKS>
__global__ void __launch_bounds__(T::THREADS, MIN_BLOCKS)
    tail_split_kernel(const Params p, const kernels::split_k::Slots w) {
  __shared__ __align__(16) float As[2][T::A_FLOATS];
  __shared__ __align__(16) float Bs[2][T::B_FLOATS];
  __shared__ int last;
  const int tid = static_cast<int>(threadIdx.x);
  const int r = static_cast<int>(blockIdx.x), s = static_cast<int>(blockIdx.y);
  int ty, tx, m0, n0;
  warp_grid_coords(tid, T::TX, &ty, &tx);
  tile_origin<T>(p, w.first_tile + r, &m0, &n0);
  const int nk = (p.k + T::BK - 1) / T::BK;
  float acc[T::TM][T::TN];
  zero<T>(acc);
  accumulate_double_buffered<T>(p, As, Bs, m0, n0, tid, ty, tx, split_begin(nk, w.splits, s),
                                split_begin(nk, w.splits, s + 1), acc);
  float* slots = w.partials + static_cast<std::size_t>(r) * w.splits * T::BM * T::BN;
  store_slot<T>(slots + static_cast<std::size_t>(s) * T::BM * T::BN, tid, acc);
  if (kernels::split_k::arrive_last(w.counters + r, w.splits, tid == 0, &last,
                                    [] { __syncthreads(); }))
    write_slots_sum<T>(p, slots, w.splits, m0, n0, ty, tx, tid);
}

/// A split loads at least as many bytes of A and B as the sums it stores: 128 of K.
template <class T>
constexpr int min_tail_split_steps() {
  return (128 + T::BK - 1) / T::BK;
}

/// Runs the whole tiles through double_buffered_kernel<T, MIN_BLOCKS> and the rest through
/// tail_split_kernel as tuning::tail_split_plan deals this shape over this device's slots;
/// declines (invalid_argument, naming `what`) where the plan splits nothing.
template <class T, int MIN_BLOCKS>
void launch_tail_split(const Params& p, cudaStream_t s, const char* what) {
  const auto kernel = tail_split_kernel<T, MIN_BLOCKS>;
  const long long tiles = ceil_div<long long>(p.m, T::BM) * ceil_div<long long>(p.n, T::BN);
  const long long slots = core::resident_grid(reinterpret_cast<const void*>(kernel), T::THREADS);
  const tuning::TailSplitPlan plan = tuning::tail_split_plan(
      tiles, slots, ceil_div<long long>(p.k, T::BK), min_tail_split_steps<T>());
  if (plan.splits < 2)
    throw std::invalid_argument(kernels::split_k::no_tail_split(what, tiles, T::BM, T::BN, slots));
  const kernels::split_k::Slots w = kernels::split_k::slots_for(
      plan.rest_tiles, plan.splits, static_cast<std::size_t>(T::BM) * T::BN, plan.whole_tiles, s);
  launch_kernel(double_buffered_kernel<T, MIN_BLOCKS, true>, grid_1d(plan.whole_tiles, what),
                dim3(T::THREADS), 0, s, p);
  launch_kernel(kernel, grid_2d(plan.rest_tiles, plan.splits, what), dim3(T::THREADS), 0, s, p, w);
}

/// The launcher of the tail split of T through `launch` (its symbol: the splits' kernel).
template <class T, int MIN_BLOCKS>
Launcher tail_split_launcher_for(void (*launch)(const Params&, cudaStream_t)) {
  const void* (*symbol)() = [] {
    return reinterpret_cast<const void*>(tail_split_kernel<T, MIN_BLOCKS>);
  };
  return block_tile_launcher<T>(launch, symbol, 0, false, gemm::tuning::SplitK::tail);
}

}  // namespace memhier::gemm::detail
