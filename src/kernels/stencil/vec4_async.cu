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
// Two configurations: 128×64 tiles of 256 threads and 128×32 tiles of 128 threads (smaller
// blocks, more of them per SM, more halo); `best` picks per K (api.cu).
#include <cuda_pipeline.h>

#include <cstdint>
#include <stdexcept>

#include "kernels/stencil/index.cuh"
#include "kernels/stencil/launch.cuh"
#include "kernels/stencil/variants.hpp"

namespace memhier::stencil::detail {
namespace {

__constant__ float c_filter[kMaxK * kMaxK];

constexpr int kRowsPerThread = 8;  // outputs per thread: 4 columns × 8 rows
constexpr int kTileW = 128;        // 32 lanes × 4 columns
constexpr int kHalo4 = 1;          // float4 chunks of halo on each side (R ≤ 3 < 4)
constexpr int kTileW4 = kTileW / 4 + 2 * kHalo4;  // shared row width in float4: 34
constexpr int kTileWords = kTileW4 * 4;           // 136 words (544 B, a multiple of 16)
static_assert(kMaxRadius <= 4 * kHalo4, "the halo chunk must cover the filter radius");

template <int K, int BY, int MIN_BLOCKS>
__global__ void __launch_bounds__(32 * BY, MIN_BLOCKS)
    vec4_async_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols,
                      long long col_tiles, long long tiles, int vec_in, int vec_out) {
  constexpr int R = K / 2;
  constexpr int NT = 32 * BY;
  constexpr int TH = BY * kRowsPerThread;
  constexpr int SH = TH + K - 1;
  constexpr int kChunks = SH * kTileW4;
  __shared__ __align__(16) float tile[SH * kTileWords];

  const int tx = static_cast<int>(threadIdx.x) % 32, ty = static_cast<int>(threadIdx.x) / 32;
  for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
    const long long r0 = tile_row0(t, col_tiles, TH), c0 = tile_col0(t, col_tiles, kTileW);

    // Fill: shared (sr, 4*sf) <- global (clamp(r0 - R + sr), c0 - 4 + 4*sf ...).
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
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();

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
    __syncthreads();  // the next tile's fill overwrites words slower warps may still read
  }
}

bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

template <int K, int BY, int MIN_BLOCKS>
void launch(const Args& a) {
  // 16-byte paths need every row start 16-byte aligned: cols % 4 == 0 and an aligned base.
  const int vec_in = (a.cols % 4 == 0 && aligned16(a.in)) ? 1 : 0;
  const int vec_out = (a.cols % 4 == 0 && aligned16(a.out)) ? 1 : 0;
  launch_tiles<K>(a, c_filter, vec4_async_kernel<K, BY, MIN_BLOCKS>, kTileW, BY * kRowsPerThread,
                  32 * BY, vec_in, vec_out);
}

// 128×64: 8 warps, 4 blocks per SM (≤ 64 registers, 37 KB shared each).
constexpr int kBY64 = kBest128x64Threads / 32;
constexpr int kMin64 = 4;
// 128×32: 4 warps, 8 blocks per SM (≤ 64 registers, 20 KB shared each).
constexpr int kBY32 = kBest128x32Threads / 32;
constexpr int kMin32 = 8;
static_assert(kBY64 * kRowsPerThread == 64 && kBY32 * kRowsPerThread == 32, "tile heights");

}  // namespace

void run_best_128x64(const Args& a) {
  with_filter_size(a.k, [&](auto k) { launch<decltype(k)::value, kBY64, kMin64>(a); });
}

void run_best_128x32(const Args& a) {
  with_filter_size(a.k, [&](auto k) { launch<decltype(k)::value, kBY32, kMin32>(a); });
}

const void* best_128x64_symbol(int k) {
  return symbol_for_filter_size(
      k, [](auto kk) { return &vec4_async_kernel<decltype(kk)::value, kBY64, kMin64>; });
}

const void* best_128x32_symbol(int k) {
  return symbol_for_filter_size(
      k, [](auto kk) { return &vec4_async_kernel<decltype(kk)::value, kBY32, kMin32>; });
}

}  // namespace memhier::stencil::detail
