// Rungs best_*: vectorized and coarsened. Each thread owns a 4x4 block of the tile: four
// 16-byte loads from four consecutive input rows, a transpose in registers, four 16-byte
// stores into a shared tile that holds the tile already transposed (XOR-swizzled by
// 16-byte chunk, vec_slot in index.cuh, so all shared accesses are 128-bit and
// conflict-free), a barrier, then four 16-byte shared reads and four 16-byte global
// stores along output rows. Every global access is a full 16 bytes per lane on
// contiguous runs of 128..512 bytes per row, and each thread keeps four independent
// 16-byte loads in flight. Needs 16-byte aligned pointers and rows, cols multiples of 4
// (then a 4x4 block is wholly inside the matrix or wholly outside); otherwise the
// launchers fall back to the padded kernel.
//
// The prefetch rung adds one thing: before its loads, each block asks L2 for the tile
// `ahead` tiles further on with bulk prefetches (cp.async.bulk.prefetch.L2, one 256-byte
// input row per thread of the first 64; full tiles only). DRAM then sees whole 256-byte
// row segments requested early, and the later block's loads find them in L2. On an H100
// at 8192^2 (a harness, not kept; median of 30, three
// runs): 188.4-188.6 us without, 186.0-186.4 us with any distance from 1 to 160 tiles
// (0.963 -> 0.975 x memcpy); the own tile (distance 0) 186.7; from 256 tiles on it costs
// (792: 235.6 us), so the launcher uses a twelfth of the resident tiles (66 on an H100).
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>

#include "kernels/transpose/index.cuh"
#include "kernels/transpose/variants.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/launch.hpp"
#include "memhier/core/ptx.cuh"

namespace memhier::transpose::detail {
namespace {

// 64x64: capped at 40 registers (6 blocks, 1536 threads per SM) with no spill; 32x128
// spills under a cap, so it keeps its ~54 registers (4 blocks per SM).
constexpr int k64x64MinBlocks = 6;
constexpr int k32x128MinBlocks = 1;

/// Bulk L2 prefetch of tile u's TH input rows (TW floats each, 16-byte aligned when the
/// float4 path runs), one row per thread of the first TH; nothing for a partial tile or
/// past the last. Fire-and-forget: nothing waits on it.
template <int TH, int TW>
__device__ __forceinline__ void prefetch_tile(const float* in, int rows, int cols, unsigned tiles_x,
                                              unsigned tiles, unsigned u) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  static_assert(TH <= index::kVecThreads && (TW * sizeof(float)) % 16 == 0, "one row per thread");
  if (static_cast<int>(threadIdx.x) >= TH || u >= tiles) return;
  long long row0 = 0, col0 = 0;
  index::tile_origin(u, tiles_x, TH, TW, &row0, &col0);
  if (row0 + TH > rows || col0 + TW > cols) return;
  const float* p = in + index::in_offset(row0 + threadIdx.x, col0, cols);
  ptx::bulk_prefetch_l2<TW * sizeof(float)>(p);
#else
  (void)in, (void)rows, (void)cols, (void)tiles_x, (void)tiles, (void)u;
#endif
}

/// TH x TW tile (input rows x input columns) per block iteration, 256 threads, one 4x4
/// block each. Shared: TW rows (input columns) of TH/4 float4 chunks (input row quads).
/// MinBlocks caps registers where that costs no spill (ptxas -v), for more resident tiles.
/// PREFETCH: first bulk-prefetch tile t + ahead's input rows into L2 (sm_90).
template <int TH, int TW, int MinBlocks, bool PREFETCH = false>
__global__ void __launch_bounds__(index::kVecThreads, MinBlocks)
    vectorized_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols,
                      unsigned tiles_x, unsigned tiles, unsigned ahead) {
  constexpr int kChunks = TH / 4;    // float4 chunks per shared row = row quads per tile
  constexpr int kColQuads = TW / 4;  // column quads per tile
  constexpr int kRowsPerPass = index::vec_rows_per_pass(TH);  // shared rows read per pass
  constexpr int kPasses = TW / kRowsPerPass;
  static_assert(kChunks * kColQuads == index::kVecThreads, "one 4x4 block per thread");
  static_assert(kChunks % 8 == 0 && kColQuads % 8 == 0, "the swizzle spans 8 chunks");
  static_assert(kPasses * kRowsPerPass == TW, "whole passes");
  __shared__ float4 tile[TW * kChunks];

  const int tid = static_cast<int>(threadIdx.x);
  // Load phase: lanes along column quads q of row quad a (coalesced along input rows).
  int a = 0, q = 0;
  index::vec_load_role(tid, TW, &a, &q);
  // Store phase: lanes along chunks p (input row quads = output column quads) of shared
  // row cc (input column = output row).
  int p = 0, cc0 = 0;
  index::vec_store_role(tid, TH, &p, &cc0);

  // Once per block, before anything else is live (inside the loop it costs spills at the
  // 40-register cap); the prefetch rung runs one tile per block.
  if constexpr (PREFETCH) prefetch_tile<TH, TW>(in, rows, cols, tiles_x, tiles, blockIdx.x + ahead);
  for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x) {
    long long row0 = 0, col0 = 0;
    index::tile_origin(t, tiles_x, TH, TW, &row0, &col0);

    // Interior tiles (all but the last tile row and column) skip the per-block bounds.
    const bool full = row0 + TH <= rows && col0 + TW <= cols;
    const long long r = row0 + 4 * a;
    const long long c = col0 + 4 * q;
    if (full || (r < rows && c < cols)) {  // rows, cols multiples of 4: wholly inside
      const float4* src = reinterpret_cast<const float4*>(in + index::in_offset(r, c, cols));
      const std::size_t stride = static_cast<std::size_t>(cols) / 4;  // one row, in float4
      const float4 v0 = src[0];
      const float4 v1 = src[stride];
      const float4 v2 = src[2 * stride];
      const float4 v3 = src[3 * stride];
      // Shared row 4q+j holds input column c+j; chunk a holds input rows r..r+3.
      tile[index::vec_slot(4 * q + 0, a, kChunks)] = make_float4(v0.x, v1.x, v2.x, v3.x);
      tile[index::vec_slot(4 * q + 1, a, kChunks)] = make_float4(v0.y, v1.y, v2.y, v3.y);
      tile[index::vec_slot(4 * q + 2, a, kChunks)] = make_float4(v0.z, v1.z, v2.z, v3.z);
      tile[index::vec_slot(4 * q + 3, a, kChunks)] = make_float4(v0.w, v1.w, v2.w, v3.w);
    }
    __syncthreads();

    // All shared reads first (independent, in flight together). A slot whose 4x4 block
    // was outside the matrix holds stale data and is never stored.
    float4 w[kPasses];
#pragma unroll
    for (int i = 0; i < kPasses; ++i)
      w[i] = tile[index::vec_slot(cc0 + i * kRowsPerPass, p, kChunks)];
    const long long out_col = row0 + 4 * p;  // input row quad = output column quad
    const long long out_row = col0 + cc0;    // input column = output row (first pass)
    float4* dst = reinterpret_cast<float4*>(out + index::out_offset(out_col, out_row, rows));
    const std::size_t pass_stride = static_cast<std::size_t>(kRowsPerPass) * rows / 4;  // float4
    // Streaming (evict-first) stores: the output is not read again, and its lines leaving
    // L2 first keeps the input's lines there. On an H100 at 8192^2 (exp harness, two runs
    // each): 188.3 us against 191.4 us with plain stores (0.964 against 0.948 x memcpy).
    if (full) {
#pragma unroll
      for (int i = 0; i < kPasses; ++i) __stcs(dst + i * pass_stride, w[i]);
    } else if (out_col < rows) {
#pragma unroll
      for (int i = 0; i < kPasses; ++i)
        if (out_row + i * kRowsPerPass < cols) __stcs(dst + i * pass_stride, w[i]);
    }
    __syncthreads();  // the next tile overwrites `tile`
  }
}

template <int TH, int TW, int MinBlocks, bool PREFETCH = false>
void launch_vectorized(const float* in, float* out, int rows, int cols, bool persistent,
                       cudaStream_t s) {
  if (!vectorizable(in, out, rows, cols)) {
    launch_padded(in, out, rows, cols, s);
    return;
  }
  const TileGrid g = tile_grid(rows, cols, TH, TW);
  const void* symbol =
      reinterpret_cast<const void*>(&vectorized_kernel<TH, TW, MinBlocks, PREFETCH>);
  unsigned grid = std::min<unsigned>(g.count, INT_MAX);  // one tile per block
  const auto resident = static_cast<unsigned>(core::resident_grid(symbol, index::kVecThreads));
  if (persistent) grid = std::min<unsigned>(g.count, resident);
  const unsigned ahead = std::max(1u, resident / 12);  // see the file comment
  vectorized_kernel<TH, TW, MinBlocks, PREFETCH>
      <<<grid, index::kVecThreads, 0, s>>>(in, out, rows, cols, g.tiles_x, g.count, ahead);
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace

bool vectorizable(const float* in, const float* out, int rows, int cols) {
  return rows % 4 == 0 && cols % 4 == 0 && reinterpret_cast<std::uintptr_t>(in) % 16 == 0 &&
         reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
}

const void* vectorized_64x64_symbol() {
  return reinterpret_cast<const void*>(&vectorized_kernel<64, 64, k64x64MinBlocks>);
}
const void* vectorized_64x64_prefetch_symbol() {
  return reinterpret_cast<const void*>(&vectorized_kernel<64, 64, k64x64MinBlocks, true>);
}
const void* vectorized_32x128_symbol() {
  return reinterpret_cast<const void*>(&vectorized_kernel<32, 128, k32x128MinBlocks>);
}

void launch_vectorized_64x64(const float* in, float* out, int rows, int cols, cudaStream_t s) {
  launch_vectorized<64, 64, k64x64MinBlocks>(in, out, rows, cols, false, s);
}
void launch_vectorized_32x128(const float* in, float* out, int rows, int cols, cudaStream_t s) {
  launch_vectorized<32, 128, k32x128MinBlocks>(in, out, rows, cols, false, s);
}
void launch_vectorized_64x64_prefetch(const float* in, float* out, int rows, int cols,
                                      cudaStream_t s) {
  launch_vectorized<64, 64, k64x64MinBlocks, true>(in, out, rows, cols, false, s);
}
void launch_vectorized_64x64_persistent(const float* in, float* out, int rows, int cols,
                                        cudaStream_t s) {
  launch_vectorized<64, 64, k64x64MinBlocks>(in, out, rows, cols, true, s);
}

}  // namespace memhier::transpose::detail
