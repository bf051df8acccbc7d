// Index math of the stencil ladder, shared by the kernels and (later) the cost model:
// where each thread reads and writes, in global and in shared memory.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "memhier/core/hd.hpp"
#include "memhier/core/math.hpp"

namespace memhier::stencil::detail {

using core::ceil_div;

/// Largest supported filter (7×7) and its radius.
constexpr int kMaxK = 7;
constexpr int kMaxRadius = kMaxK / 2;

/// x clamped into [0, n): the clamp-to-edge border rule.
MEMHIER_HD inline long long clamp_coord(long long x, long long n) {
  return x < 0 ? 0 : (x >= n ? n - 1 : x);
}

/// Linear element index of (r, c) in a dense row-major image `cols` wide (64-bit).
MEMHIER_HD inline std::size_t element_index(long long r, long long c, int cols) {
  return static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c);
}

/// Tiles are numbered row-major (column tiles fastest), so blocks that run together cover a
/// contiguous band of rows and their halos are each other's rows: L2 hits, not DRAM reads.
MEMHIER_HD inline long long tile_row0(long long tile, long long col_tiles, int tile_h) {
  return (tile / col_tiles) * tile_h;
}
MEMHIER_HD inline long long tile_col0(long long tile, long long col_tiles, int tile_w) {
  return (tile % col_tiles) * tile_w;
}

/// Word of (row, col) in a row-major shared tile `width` words wide. Lanes of a warp hold
/// consecutive `col`, so reads and fills touch 32 consecutive words: no bank conflict.
MEMHIER_HD inline int tile_word(int row, int col, int width) {
  return row * width + col;
}

/// best_*: the first word of the `chunk`-th float4 (0..2) that lane `tx` of warp row `ty`
/// reads from input row `ii` of its window. The shared tile starts 4 columns left of the
/// output tile (one float4 of halo, 16-byte aligned), so lane tx's window of 4 + 2R columns
/// lies inside the 12 words from 4*tx: lanes read consecutive 16-byte words (4 wavefronts
/// per warp, the minimum for 512 bytes).
MEMHIER_HD inline int vec4_window_word(int ty, int tx, int ii, int chunk, int rows_per_thread,
                                       int width) {
  return tile_word(ty * rows_per_thread + ii, 4 * tx + 4 * chunk, width);
}

}  // namespace memhier::stencil::detail
