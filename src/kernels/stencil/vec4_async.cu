// The best rung: register blocking in 2D with 16-byte accesses everywhere.
// - Each thread computes 4 adjacent columns × 8 rows of outputs. Per input row of its window
//   it reads three aligned float4 from shared memory (12 columns ⊇ its 4 + 2R taps) and
//   applies them to up to K output rows: (8+K-1)·3 shared loads per 32 outputs.
// - The shared tile starts one float4 left of the output tile, so every row of it is a run
//   of aligned float4 in global memory too: the fill is cp.async 16-byte copies (global to
//   shared without registers, all in flight at once); chunks that cross an image border or
//   rows that are not 16-byte aligned fall back to 4-byte cp.async with clamped columns.
// - Outputs leave as streaming float4 stores (scalar where the row end or alignment says so).
// - Filter taps are compile-time __constant__ operands of the FMAs (broadcast, no loads).
// A template over its tuning parameters (the MEMHIER_TUNED lines of stencil_rungs.inc): warps
// per block, rows per thread, blocks per SM and pipeline stages. One stage is a block per
// tile (fill, wait, compute); two is a persistent grid whose blocks issue the next tile's
// cp.async fill into the other shared buffer before computing this one. `best` picks per
// card and shape (stencil/tuner.cpp). Shared memory is dynamic: a configuration the device
// cannot fit declines.
#include <cuda_pipeline.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "kernels/stencil/index.cuh"
#include "kernels/stencil/variants.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/launch.hpp"
#include "memhier/kernels/stencil_tuning.hpp"

namespace memhier::stencil::detail {
namespace {

__constant__ float c_filter[kMaxK * kMaxK];

using tuning::kTileW;   // 32 lanes × 4 columns
using tuning::kTileW4;  // shared row width in float4: 32 + one chunk of halo on each side
constexpr int kHalo4 = (kTileW4 - kTileW / 4) / 2;
constexpr int kTileWords = kTileW4 * 4;  // 136 words (544 B, a multiple of 16)
static_assert(kMaxRadius <= 4 * kHalo4, "the halo chunk must cover the filter radius");

/// Issues (does not wait for) the cp.async fill of tile t into `tile`: shared (sr, 4*sf) <-
/// global (clamp(r0 - R + sr), c0 - 4 + 4*sf ...).
template <int K, int NT, int TH>
__device__ __forceinline__ void fill_tile_async(float* tile, const float* __restrict__ in, int rows,
                                                int cols, long long col_tiles, long long t,
                                                int vec_in) {
  constexpr int R = K / 2;
  constexpr int kChunks = (TH + K - 1) * kTileW4;
  const long long r0 = tile_row0(t, col_tiles, TH), c0 = tile_col0(t, col_tiles, kTileW);
  for (int idx = static_cast<int>(threadIdx.x); idx < kChunks; idx += NT) {
    const int sr = idx / kTileW4, sf = idx - sr * kTileW4;
    const long long gr = clamp_coord(r0 - R + sr, rows);
    const long long gc = c0 - 4 * kHalo4 + 4LL * sf;
    const float* src = in + element_index(gr, 0, cols);
    float* dst = tile + tile_word(sr, 4 * sf, kTileWords);
    if (vec_in && gc >= 0 && gc + 4 <= cols) {
      __pipeline_memcpy_async(dst, src + gc, 16);
    } else {
#pragma unroll
      for (int q = 0; q < 4; ++q)
        __pipeline_memcpy_async(dst + q, src + clamp_coord(gc + q, cols), 4);
    }
  }
}

/// Computes tile t from the filled `tile` and stores it (streaming float4 where aligned).
template <int K, int TH, int RPT>
__device__ __forceinline__ void compute_tile(const float* tile, float* __restrict__ out, int rows,
                                             int cols, long long col_tiles, long long t,
                                             int vec_out) {
  constexpr int R = K / 2;
  constexpr int kRowsPerThread = RPT;
  const int tx = static_cast<int>(threadIdx.x) % 32, ty = static_cast<int>(threadIdx.x) / 32;
  const long long r0 = tile_row0(t, col_tiles, TH), c0 = tile_col0(t, col_tiles, kTileW);
  // v[m] is shared column 4*tx + m, i.e. global column c0 + 4*tx + m - 4; output column q
  // takes tap j from v[q + j - R + 4] (indices 1..10 for K = 7).
  float acc[kRowsPerThread][4];
#pragma unroll
  for (int o = 0; o < kRowsPerThread; ++o)
#pragma unroll
    for (int q = 0; q < 4; ++q) acc[o][q] = 0.f;
#pragma unroll
  for (int ii = 0; ii < kRowsPerThread + K - 1; ++ii) {
    const float4 a = *reinterpret_cast<const float4*>(
        tile + vec4_window_word(ty, tx, ii, 0, kRowsPerThread, kTileWords));
    const float4 b = *reinterpret_cast<const float4*>(
        tile + vec4_window_word(ty, tx, ii, 1, kRowsPerThread, kTileWords));
    const float4 c = *reinterpret_cast<const float4*>(
        tile + vec4_window_word(ty, tx, ii, 2, kRowsPerThread, kTileWords));
    const float v[12] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w};
#pragma unroll
    for (int o = 0; o < kRowsPerThread; ++o) {
      const int i = ii - o;  // filter row linking input row ii to output row o
      if (i < 0 || i >= K) continue;
#pragma unroll
      for (int j = 0; j < K; ++j) {
        const float w = c_filter[i * K + j];
#pragma unroll
        for (int q = 0; q < 4; ++q) acc[o][q] = fmaf(w, v[q + j - R + 4], acc[o][q]);
      }
    }
  }

  const long long gc = c0 + 4 * tx;
#pragma unroll
  for (int o = 0; o < kRowsPerThread; ++o) {
    const long long gr = r0 + ty * kRowsPerThread + o;
    if (gr >= rows) continue;
    if (vec_out && gc + 4 <= cols) {
      // Streaming store (evict-first): outputs are not re-read, the input halos are.
      __stcs(reinterpret_cast<float4*>(out + element_index(gr, gc, cols)),
             make_float4(acc[o][0], acc[o][1], acc[o][2], acc[o][3]));
    } else {
#pragma unroll
      for (int q = 0; q < 4; ++q)
        if (gc + q < cols) out[element_index(gr, gc + q, cols)] = acc[o][q];
    }
  }
}

template <int K, int BY, int RPT, int MIN_BLOCKS, int STAGES>
__global__ void __launch_bounds__(32 * BY, MIN_BLOCKS)
    vec4_async_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols,
                      long long col_tiles, long long tiles, int vec_in, int vec_out) {
  static_assert(STAGES == 1 || STAGES == 2, "one or two shared buffers");
  constexpr int NT = 32 * BY;
  constexpr int TH = BY * RPT;
  constexpr int kTileFloats = (TH + K - 1) * kTileWords;
  extern __shared__ __align__(16) float smem[];

  if constexpr (STAGES == 1) {
    for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
      fill_tile_async<K, NT, TH>(smem, in, rows, cols, col_tiles, t, vec_in);
      __pipeline_commit();
      __pipeline_wait_prior(0);
      __syncthreads();
      compute_tile<K, TH, RPT>(smem, out, rows, cols, col_tiles, t, vec_out);
      __syncthreads();  // the next tile's fill overwrites words slower warps may still read
    }
  } else {
    long long t = blockIdx.x;
    if (t < tiles) fill_tile_async<K, NT, TH>(smem, in, rows, cols, col_tiles, t, vec_in);
    __pipeline_commit();
    for (int buf = 0; t < tiles; t += gridDim.x, buf ^= 1) {
      const long long next = t + gridDim.x;
      // The other buffer was last read in the previous iteration, before its closing barrier.
      if (next < tiles)
        fill_tile_async<K, NT, TH>(smem + (buf ^ 1) * kTileFloats, in, rows, cols, col_tiles, next,
                                   vec_in);
      __pipeline_commit();       // possibly empty: the groups stay one per tile
      __pipeline_wait_prior(1);  // this tile's group is done; the next one's stays in flight
      __syncthreads();
      compute_tile<K, TH, RPT>(smem + buf * kTileFloats, out, rows, cols, col_tiles, t, vec_out);
      __syncthreads();  // the next iteration's fill overwrites this buffer
    }
  }
}

bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

template <int K, int BY, int RPT, int MIN_BLOCKS, int STAGES>
void launch(const Args& a, const char* name) {
  constexpr tuning::Config c{BY, RPT, MIN_BLOCKS, STAGES};
  const auto kernel = vec4_async_kernel<K, BY, RPT, MIN_BLOCKS, STAGES>;
  const int smem = c.smem_bytes(K);
  // Throws std::invalid_argument (one sentence) when the device cannot give this much.
  core::prepare_dynamic_smem(reinterpret_cast<const void*>(kernel), smem, name);
  // 16-byte paths need every row start 16-byte aligned: cols % 4 == 0 and an aligned base.
  const int vec_in = (a.cols % 4 == 0 && aligned16(a.in)) ? 1 : 0;
  const int vec_out = (a.cols % 4 == 0 && aligned16(a.out)) ? 1 : 0;
  MEMHIER_CUDA(cudaMemcpyToSymbolAsync(c_filter, a.filter, sizeof(float) * K * K, 0,
                                       cudaMemcpyHostToDevice, a.stream));
  const long long col_tiles = ceil_div(a.cols, kTileW);
  const long long tiles = col_tiles * ceil_div(a.rows, c.tile_h());
  unsigned int grid = grid_for_tiles(tiles);
  if (STAGES > 1) {
    // Persistent: the blocks resident at once (at most min_blocks per SM), never more than
    // tiles; shared memory bounds how many fit, so the carveout prefers shared memory.
    const int resident = core::resident_grid(reinterpret_cast<const void*>(kernel), c.threads(),
                                             static_cast<std::size_t>(smem), MIN_BLOCKS, true);
    grid = std::min(grid, static_cast<unsigned int>(std::max(resident, 1)));
  }
  kernel<<<grid, c.threads(), static_cast<std::size_t>(smem), a.stream>>>(
      a.in, a.out, a.rows, a.cols, col_tiles, tiles, vec_in, vec_out);
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace

// run_<name> and <name>_symbol of each MEMHIER_TUNED line of the table.
#define MEMHIER_RUNG(...)
#define MEMHIER_BEST(...)
#define MEMHIER_TUNED(name, warps, rpt, min_blocks, stages, ...)                      \
  void run_##name(const Args& a) {                                                    \
    with_filter_size(a.k, [&](auto k) {                                               \
      launch<decltype(k)::value, warps, rpt, min_blocks, stages>(a, #name);           \
    });                                                                               \
  }                                                                                   \
  const void* name##_symbol(int k) {                                                  \
    return symbol_for_filter_size(k, [](auto kk) {                                    \
      return &vec4_async_kernel<decltype(kk)::value, warps, rpt, min_blocks, stages>; \
    });                                                                               \
  }
#include "memhier/kernels/stencil_rungs.inc"

}  // namespace memhier::stencil::detail
