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
// - On sm_90 and up the fill may instead be one TMA 2-D box per tile (tuning::Fill), issued by
//   one thread and completing on an mbarrier: the same shared tile without a copy instruction
//   per thread. The words it holds outside the image arrive as zeros and are patched from the
//   nearest border word, so the clamp rule stays the same.
// A template over its tuning parameters (the MEMHIER_TUNED lines of stencil_rungs.inc): warps
// per block, rows per thread, blocks per SM, pipeline stages and the fill. One stage is a
// block per tile (fill, wait, compute); two is a persistent grid whose blocks issue the next
// tile's fill into the other shared buffer before computing this one. `best` picks per
// card and shape (stencil/tuner.cpp). Shared memory is dynamic: a configuration the device
// cannot fit declines.
#include <cuda_pipeline.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "kernels/stencil/index.cuh"
#include "kernels/stencil/variants.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/gate.hpp"
#include "memhier/core/launch.hpp"
#include "memhier/core/tma.cuh"
#include "memhier/core/tma.hpp"
#include "memhier/kernels/stencil_tuning.hpp"

namespace memhier::stencil::detail {
namespace {

__constant__ float c_filter[kMaxK * kMaxK];

using tuning::kTileW;   // 32 lanes × 4 columns
using tuning::kTileW4;  // shared row width in float4: 32 + one chunk of halo on each side
constexpr int kHalo4 = (kTileW4 - kTileW / 4) / 2;
constexpr int kTileWords = kTileW4 * 4;  // the cp.async fill's row: 136 words (544 B)
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

using tuning::Fill;

/// Issues (one thread; does not wait for) the TMA box of tile t into `tile`, completing on the
/// mbarrier `bar`: the shared tile the cp.async fill would write (its first column 16-byte
/// aligned, as a box's start must be), the words outside the image as zeros.
template <int K, int TH>
__device__ __forceinline__ void fill_tile_tma(float* tile, unsigned bar, const CUtensorMap* map,
                                              long long col_tiles, long long t) {
  constexpr int R = K / 2, kRows = TH + K - 1;
  const long long r0 = tile_row0(t, col_tiles, TH), c0 = tile_col0(t, col_tiles, kTileW);
  tma::mbarrier_arrive_expect_tx(bar, kRows * kTileWords * 4u);
  tma::tensor_load_2d(tma::smem_addr(tile), map, static_cast<int>(c0 - 4 * kHalo4),
                      static_cast<int>(r0 - R), bar);
}

/// After a TMA box has landed: every word of tile t outside the image (a zero from the box)
/// takes the value of the nearest word inside it, columns first, then rows, as the clamped
/// cp.async fill would have loaded it. Interior tiles return at once (the branch is uniform
/// in the block).
template <int K, int NT, int TH>
__device__ __forceinline__ void patch_borders(float* tile, int rows, int cols, long long col_tiles,
                                              long long t) {
  constexpr int R = K / 2, kRows = TH + K - 1;
  const long long r0 = tile_row0(t, col_tiles, TH), c0 = tile_col0(t, col_tiles, kTileW);
  const long long first = c0 - 4 * kHalo4;  // the global column of shared word 0
  const int lo = first < 0 ? static_cast<int>(-first) : 0;
  const int hi = first + kTileWords > cols ? static_cast<int>(cols - first) : kTileWords;
  const int row_lo = r0 - R < 0 ? static_cast<int>(R - r0) : 0;
  const int row_hi = r0 - R + kRows > rows ? static_cast<int>(rows - (r0 - R)) : kRows;
  const bool columns = lo > 0 || hi < kTileWords;
  const bool rows_out = row_lo > 0 || row_hi < kRows;
  if (!columns && !rows_out) return;
  if (columns) {
    for (int idx = static_cast<int>(threadIdx.x); idx < kRows * kTileWords; idx += NT) {
      const int sr = idx / kTileWords, w = idx - sr * kTileWords;
      if (w < lo) tile[tile_word(sr, w, kTileWords)] = tile[tile_word(sr, lo, kTileWords)];
      if (w >= hi) tile[tile_word(sr, w, kTileWords)] = tile[tile_word(sr, hi - 1, kTileWords)];
    }
    __syncthreads();
  }
  if (rows_out) {
    for (int idx = static_cast<int>(threadIdx.x); idx < kRows * kTileWords; idx += NT) {
      const int sr = idx / kTileWords, w = idx - sr * kTileWords;
      if (sr < row_lo) tile[tile_word(sr, w, kTileWords)] = tile[tile_word(row_lo, w, kTileWords)];
      if (sr >= row_hi)
        tile[tile_word(sr, w, kTileWords)] = tile[tile_word(row_hi - 1, w, kTileWords)];
    }
    __syncthreads();
  }
  // These words go back to the copy engine with the buffer's next fill.
  tma::fence_proxy_async_shared();
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

template <int K, int BY, int RPT, int MIN_BLOCKS, int STAGES, Fill FILL>
__global__ void __launch_bounds__(32 * BY, MIN_BLOCKS)
    vec4_async_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols,
                      long long col_tiles, long long tiles, int vec_in, int vec_out,
                      const __grid_constant__ CUtensorMap map) {
  static_assert(STAGES == 1 || STAGES == 2, "one or two shared buffers");
  constexpr int NT = 32 * BY;
  constexpr int TH = BY * RPT;
  constexpr tuning::Config kConfig{BY, RPT, MIN_BLOCKS, STAGES, FILL};
  constexpr int kStageFloats = kConfig.stage_bytes(K) / 4;
  extern __shared__ __align__(128) float smem[];

  if constexpr (FILL == Fill::tensor_box) {
#if MEMHIER_TMA_DEVICE
    __shared__ alignas(8) unsigned long long bars[STAGES];
    const bool issuer = threadIdx.x == 0;
    if (issuer) {
      for (int s = 0; s < STAGES; ++s) tma::mbarrier_init(tma::smem_addr(&bars[s]), 1);
      tma::fence_mbarrier_init();
    }
    __syncthreads();
    long long t = blockIdx.x;
    if (issuer && t < tiles)
      fill_tile_tma<K, TH>(smem, tma::smem_addr(&bars[0]), &map, col_tiles, t);
    for (unsigned it = 0; t < tiles; t += gridDim.x, ++it) {
      const unsigned buf = STAGES == 1 ? 0u : it & 1u;
      const long long next = t + gridDim.x;
      if constexpr (STAGES == 2) {
        // The other buffer was last read in the previous round, before its closing barrier.
        if (issuer && next < tiles)
          fill_tile_tma<K, TH>(smem + (buf ^ 1u) * kStageFloats, tma::smem_addr(&bars[buf ^ 1u]),
                               &map, col_tiles, next);
      }
      // Buffer b's fills are its rounds b, b + STAGES, ...: the phase flips each of them.
      tma::mbarrier_wait_parity(tma::smem_addr(&bars[buf]), (it / STAGES) & 1u);
      float* tile = smem + buf * kStageFloats;
      patch_borders<K, NT, TH>(tile, rows, cols, col_tiles, t);
      compute_tile<K, TH, RPT>(tile, out, rows, cols, col_tiles, t, vec_out);
      __syncthreads();  // the next fill of this buffer overwrites words slower warps may read
      if constexpr (STAGES == 1) {
        if (issuer && next < tiles)
          fill_tile_tma<K, TH>(smem, tma::smem_addr(&bars[0]), &map, col_tiles, next);
      }
    }
#else
    (void)map;
    tma::unsupported();
#endif
  } else if constexpr (STAGES == 1) {
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
        fill_tile_async<K, NT, TH>(smem + (buf ^ 1) * kStageFloats, in, rows, cols, col_tiles, next,
                                   vec_in);
      __pipeline_commit();       // possibly empty: the groups stay one per tile
      __pipeline_wait_prior(1);  // this tile's group is done; the next one's stays in flight
      __syncthreads();
      compute_tile<K, TH, RPT>(smem + buf * kStageFloats, out, rows, cols, col_tiles, t, vec_out);
      __syncthreads();  // the next iteration's fill overwrites this buffer
    }
  }
}

bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

template <int K, int BY, int RPT, int MIN_BLOCKS, int STAGES, Fill FILL>
void launch(const Args& a, const char* name) {
  constexpr tuning::Config c{BY, RPT, MIN_BLOCKS, STAGES, FILL};
  // 16-byte paths need every row start 16-byte aligned: cols % 4 == 0 and an aligned base.
  const int vec_in = (a.cols % 4 == 0 && aligned16(a.in)) ? 1 : 0;
  const int vec_out = (a.cols % 4 == 0 && aligned16(a.out)) ? 1 : 0;
  if constexpr (FILL == Fill::tensor_box) {
    // A tensor map needs a 16-byte aligned base and row pitch; otherwise the same tile runs
    // with the per-thread fill.
    if (!vec_in) return launch<K, BY, RPT, MIN_BLOCKS, STAGES, Fill::cp_async>(a, name);
  }
  const auto kernel = vec4_async_kernel<K, BY, RPT, MIN_BLOCKS, STAGES, FILL>;
  const int smem = c.smem_bytes(K);
  CUtensorMap map{};
  if constexpr (FILL == Fill::tensor_box) {
    require_tma(reinterpret_cast<const void*>(kernel), smem, name);
    core::Tensor2d t;
    t.base = a.in;
    t.cols = static_cast<std::uint64_t>(a.cols);
    t.rows = static_cast<std::uint64_t>(a.rows);
    t.pitch_bytes = static_cast<std::uint64_t>(a.cols) * sizeof(float);
    t.box_cols = kTileWords;
    t.box_rows = static_cast<std::uint32_t>(c.tile_h() + K - 1);
    // A row hangs 16 bytes over a line at each end: 128-byte promotion fetched the least
    // beside it (on the H200, 1-2 % faster than 256 bytes or none).
    t.l2_promotion = core::TmaL2Promotion::b128;
    map = core::encode_tensor_map_2d(t);
  }
  // Throws std::invalid_argument (one sentence) when the device cannot give this much.
  core::prepare_dynamic_smem(reinterpret_cast<const void*>(kernel), smem, name);
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
      a.in, a.out, a.rows, a.cols, col_tiles, tiles, vec_in, vec_out, map);
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace

void require_tma(const void* kernel, int smem, const std::string& name) {
  core::require_kernel("stencil " + name, kernel, {90, false, smem, 0});
}

// run_<name> and <name>_symbol of each MEMHIER_TUNED line of the table.
#define MEMHIER_RUNG(...)
#define MEMHIER_BEST(...)
#define MEMHIER_TUNED(name, warps, rpt, min_blocks, stages, fill, ...)                            \
  void run_##name(const Args& a) {                                                                \
    with_filter_size(a.k, [&](auto k) {                                                           \
      launch<decltype(k)::value, warps, rpt, min_blocks, stages, Fill::fill>(a, #name);           \
    });                                                                                           \
  }                                                                                               \
  const void* name##_symbol(int k) {                                                              \
    return symbol_for_filter_size(k, [](auto kk) {                                                \
      return &vec4_async_kernel<decltype(kk)::value, warps, rpt, min_blocks, stages, Fill::fill>; \
    });                                                                                           \
  }
#include "memhier/kernels/stencil_rungs.inc"

}  // namespace memhier::stencil::detail
