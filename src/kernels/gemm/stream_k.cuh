// The stream-K block-tile kernel (a candidate of `best` past wave quantization): the tiles of
// the whole waves run a block each, as double_buffered does; the k-steps of the tiles after them
// are dealt evenly over up to a wave of blocks (tuning::stream_k_plan), so the last wave ends
// with every slot busy instead of a few (at 4099x4097 on 132 SMs, 4.25 rounds of 128x256 tiles
// in place of 5). A block whose share covers part of a tile stores its sums to the tile's slot
// for that share; the tile's last share to arrive adds the slots in share order and writes C,
// so C has the same bits whichever share ends last.
#pragma once

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "double_buffered.cuh"
#include "kernels/split_k/split_k.cuh"
#include "kernels/split_k/workspace.hpp"
#include "memhier/core/launch.hpp"
#include "memhier/kernels/gemm_preselect.hpp"

namespace memhier::gemm::detail {

/// What a stream-K launch passes its kernel.
struct StreamKArgs {
  float* partials = nullptr;   ///< rest_tiles x max_shares slots of a tile's sums
  unsigned* counters = nullptr;  ///< one arrival counter per shared tile, zero between launches
  int whole_tiles = 0;         ///< blocks [0, whole_tiles) run tile blockIdx.x whole
  int rest_blocks = 0;         ///< the blocks after them share rest_steps k-steps
  long long rest_steps = 0;    ///< rest tiles x k-steps a tile, walked tile by tile
  int max_shares = 0;          ///< most blocks sharing one tile
};

/// The first k-step of block b's share (b == blocks: steps).
MEMHIER_HD inline long long share_begin(long long steps, int blocks, int b) {
  return steps * b / blocks;
}

/// The block whose share holds k-step `step`: the last b with share_begin(b) <= step.
MEMHIER_HD inline int sharer_of(long long steps, int blocks, long long step) {
  return static_cast<int>(((step + 1) * blocks + steps - 1) / steps - 1);
}

/// A share's sums into its slot of the tile, in the threads' own order (coalesced float4s).
template <class T>
__device__ __forceinline__ void store_share(float* slot, int tid, const float (&acc)[T::TM][T::TN]) {
#pragma unroll
  for (int j = 0; j < T::TM * T::TN / 4; ++j) {
    const float* a = &acc[j / (T::TN / 4)][(j % (T::TN / 4)) * 4];
    __stcg(reinterpret_cast<float4*>(slot + (j * T::THREADS + tid) * 4),
           make_float4(a[0], a[1], a[2], a[3]));
  }
}

/// acc = the tile's shares added in share order (this block's own, `mine`, from registers);
/// four float4 a thread in flight at a time.
template <class T>
__device__ __forceinline__ void add_shares(const float* slots, int shares, int mine, int tid,
                                           float (&acc)[T::TM][T::TN]) {
  constexpr int kChunks = T::TM * T::TN / 4, kGroup = 4, kSlot = T::BM * T::BN;
  static_assert(kChunks % kGroup == 0, "chunks in groups of four");
#pragma unroll
  for (int g = 0; g < kChunks; g += kGroup) {
    float4 sum[kGroup];
#pragma unroll
    for (int q = 0; q < kGroup; ++q) sum[q] = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int s = 0; s < shares; ++s) {
#pragma unroll
      for (int q = 0; q < kGroup; ++q) {
        const int j = g + q;
        const float* a = &acc[j / (T::TN / 4)][(j % (T::TN / 4)) * 4];
        const float4 v =
            s == mine ? make_float4(a[0], a[1], a[2], a[3])
                      : __ldcg(reinterpret_cast<const float4*>(slots + s * kSlot +
                                                               (j * T::THREADS + tid) * 4));
        sum[q].x += v.x;
        sum[q].y += v.y;
        sum[q].z += v.z;
        sum[q].w += v.w;
      }
    }
#pragma unroll
    for (int q = 0; q < kGroup; ++q) {
      const int j = g + q;
      float* a = &acc[j / (T::TN / 4)][(j % (T::TN / 4)) * 4];
      a[0] = sum[q].x;
      a[1] = sum[q].y;
      a[2] = sum[q].z;
      a[3] = sum[q].w;
    }
  }
}

template <class T, int MIN_BLOCKS>
__global__ void __launch_bounds__(T::THREADS, MIN_BLOCKS)
    stream_k_kernel(const Params p, const StreamKArgs w) {
  __shared__ __align__(16) float As[2][T::A_FLOATS];
  __shared__ __align__(16) float Bs[2][T::B_FLOATS];
  __shared__ int last;
  const int tid = static_cast<int>(threadIdx.x);
  int ty, tx, m0, n0;
  warp_grid_coords(tid, T::TX, &ty, &tx);
  const int nk = (p.k + T::BK - 1) / T::BK;
  const int b = static_cast<int>(blockIdx.x);
  float acc[T::TM][T::TN];
  if (b < w.whole_tiles) {
    tile_origin<T>(p, b, &m0, &n0);
    zero<T>(acc);
    accumulate_double_buffered<T>(p, As, Bs, m0, n0, tid, ty, tx, 0, nk, acc);
    write_tile<T>(p, m0, n0, ty, tx, acc);
    return;
  }
  const int sb = b - w.whole_tiles;
  const long long begin = share_begin(w.rest_steps, w.rest_blocks, sb);
  const long long end = share_begin(w.rest_steps, w.rest_blocks, sb + 1);
  for (long long step = begin; step < end;) {
    const int t = static_cast<int>(step / nk);
    const int kb = static_cast<int>(step - static_cast<long long>(t) * nk);
    const int ke = static_cast<int>(std::min<long long>(nk, kb + (end - step)));
    if (step != begin) __syncthreads();  // the previous tile's last k-tile is read by all warps
    tile_origin<T>(p, w.whole_tiles + t, &m0, &n0);
    zero<T>(acc);
    accumulate_double_buffered<T>(p, As, Bs, m0, n0, tid, ty, tx, kb, ke, acc);
    if (kb == 0 && ke == nk) {
      write_tile<T>(p, m0, n0, ty, tx, acc);
    } else {
      const long long t0 = static_cast<long long>(t) * nk;
      const int first = sharer_of(w.rest_steps, w.rest_blocks, t0);
      const int shares = sharer_of(w.rest_steps, w.rest_blocks, t0 + nk - 1) - first + 1;
      float* slots = w.partials + static_cast<std::size_t>(t) * w.max_shares * T::BM * T::BN;
      store_share<T>(slots + static_cast<std::size_t>(sb - first) * T::BM * T::BN, tid, acc);
      if (kernels::split_k::arrive_last(w.counters + t, shares, tid == 0, &last,
                                        [] { __syncthreads(); })) {
        add_shares<T>(slots, shares, sb - first, tid, acc);
        write_tile<T>(p, m0, n0, ty, tx, acc);
      }
    }
    step += ke - kb;
  }
}

/// A share loads at least as many bytes of A and B as the sums it may store: 128 of K.
template <class T>
constexpr int min_share_steps() {
  return (128 + T::BK - 1) / T::BK;
}

/// Runs stream_k_kernel<T, MIN_BLOCKS> as tuning::stream_k_plan deals this shape over this
/// device's slots; declines (invalid_argument, naming `what`) where the plan shares nothing.
template <class T, int MIN_BLOCKS>
void launch_stream_k(const Params& p, cudaStream_t s, const char* what) {
  const auto kernel = stream_k_kernel<T, MIN_BLOCKS>;
  const long long tiles = ceil_div<long long>(p.m, T::BM) * ceil_div<long long>(p.n, T::BN);
  const long long slots = core::resident_grid(reinterpret_cast<const void*>(kernel), T::THREADS);
  const long long nk = ceil_div<long long>(p.k, T::BK);
  const tuning::StreamKPlan plan = tuning::stream_k_plan(tiles, slots, nk, min_share_steps<T>());
  if (plan.rest_blocks == 0)
    throw std::invalid_argument(
        std::string(what) + ": its " + std::to_string(tiles) + " tiles of " +
        std::to_string(T::BM) + "x" + std::to_string(T::BN) + " fill whole waves of the " +
        std::to_string(slots) +
        " blocks this card holds at once, or K is too short to share: it would share nothing, "
        "and a kernel without stream-K runs this shape");
  StreamKArgs w;
  w.whole_tiles = static_cast<int>(plan.whole_tiles);
  w.rest_blocks = static_cast<int>(plan.rest_blocks);
  w.rest_steps = plan.rest_tiles * nk;
  for (long long t = 0; t < plan.rest_tiles; ++t)
    w.max_shares = std::max(w.max_shares, sharer_of(w.rest_steps, w.rest_blocks, (t + 1) * nk - 1) -
                                              sharer_of(w.rest_steps, w.rest_blocks, t * nk) + 1);
  const kernels::split_k::Workspace ws = kernels::split_k::workspace_for(
      static_cast<std::size_t>(plan.rest_tiles) * w.max_shares * T::BM * T::BN,
      static_cast<std::size_t>(plan.rest_tiles), s);
  w.partials = ws.partials;
  w.counters = ws.counters;
  launch_kernel(kernel, grid_1d(plan.whole_tiles + plan.rest_blocks, what), dim3(T::THREADS), 0, s,
                p, w);
}

/// The launcher of stream_k_kernel<T, MIN_BLOCKS> through `launch`.
template <class T, int MIN_BLOCKS>
Launcher stream_k_launcher_for(void (*launch)(const Params&, cudaStream_t)) {
  const void* (*symbol)() = [] {
    return reinterpret_cast<const void*>(stream_k_kernel<T, MIN_BLOCKS>);
  };
  return {launch,
          symbol,
          T::THREADS,
          0,
          {T::BM, T::BN, T::BK, T::RM, T::RN, T::SWZ, false},
          gemm::tuning::SplitK::stream_k};
}

}  // namespace memhier::gemm::detail
