// Index math of the transpose ladder, shared by the kernels and by the cost model's
// predictions for them (predict.cpp), so a prediction cannot drift from the code it predicts.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "memhier/core/hd.hpp"

namespace memhier::transpose::index {

inline constexpr int kTile = 32;         ///< scalar rungs: 32x32 tile per block
inline constexpr int kBlockRows = 8;     ///< scalar rungs: 32x8 threads, 4 tile rows each
inline constexpr int kVecThreads = 256;  ///< vectorized rungs: one 4x4 block per thread

/// First input row and column of tile t of tile_rows x tile_cols tiles, tiles_x tiles per
/// tile row (tile t sits at tile row t / tiles_x, tile column t % tiles_x).
MEMHIER_HD inline void tile_origin(unsigned t, unsigned tiles_x, int tile_rows, int tile_cols,
                                   long long* row0, long long* col0) {
  const unsigned tile_row = t / tiles_x;
  *row0 = static_cast<long long>(tile_row) * tile_rows;
  *col0 = static_cast<long long>(t - tile_row * tiles_x) * tile_cols;
}

/// Element (row, col) of the row-major rows x cols input.
MEMHIER_HD inline std::size_t in_offset(long long row, long long col, int cols) {
  return static_cast<std::size_t>(row) * static_cast<std::size_t>(cols) +
         static_cast<std::size_t>(col);
}

/// Where input element (row, col) lands in the row-major cols x rows output.
MEMHIER_HD inline std::size_t out_offset(long long row, long long col, int rows) {
  return static_cast<std::size_t>(col) * static_cast<std::size_t>(rows) +
         static_cast<std::size_t>(row);
}

/// Shared word of tile element (r, c) in an unpadded [32][32] tile: a column read
/// (lanes vary r) has stride 32 words, every lane in one bank: 32-way conflict.
MEMHIER_HD inline int tile_word(int r, int c) {
  return r * kTile + c;
}

/// The same in a padded [32][33] tile: stride 33 is coprime with 32 banks, no conflict.
MEMHIER_HD inline int padded_word(int r, int c) {
  return r * (kTile + 1) + c;
}

/// The same in a [32][32] tile with the column XOR-swizzled by the row: a row (lanes
/// vary c) and a column (lanes vary r) both touch 32 distinct banks. Needs r, c < 32.
MEMHIER_HD inline int swizzled_word(int r, int c) {
  return r * kTile + (c ^ r);
}

/// Vectorized rungs: the shared tile holds the TRANSPOSED tile, one row per input column,
/// as float4 chunks of 4 consecutive input rows. Chunk `chunk` of row `row` lives in float4
/// slot row * chunks_per_row + (chunk ^ ((row >> 2) & 7)): eight lanes writing rows 4q+j
/// (q consecutive) or reading chunks p (p consecutive) of one row hit eight distinct
/// 16-byte bank groups, so every 128-bit access runs at the minimum four wavefronts.
/// Needs chunks_per_row a multiple of 8.
MEMHIER_HD inline int vec_slot(int row, int chunk, int chunks_per_row) {
  return row * chunks_per_row + (chunk ^ ((row >> 2) & 7));
}

/// Vectorized rungs, a TH x TW tile per block of kVecThreads threads, each thread one 4x4
/// block. Load role: row quad `a` (input rows 4a..4a+3 of the tile) and column quad `q`
/// (input columns 4q..4q+3); lanes run along q, so a warp reads along input rows.
MEMHIER_HD inline void vec_load_role(int tid, int tw, int* a, int* q) {
  *a = tid / (tw / 4);
  *q = tid % (tw / 4);
}

/// Store role: chunk p (input row quad = output column quad) of shared row cc0 (input column
/// = output row) on the first pass; pass i reads shared row cc0 + i * vec_rows_per_pass(th).
MEMHIER_HD inline void vec_store_role(int tid, int th, int* p, int* cc0) {
  *p = tid % (th / 4);
  *cc0 = tid / (th / 4);
}

/// Shared rows (output rows) the block reads per pass of the store phase.
MEMHIER_HD constexpr int vec_rows_per_pass(int th) {
  return kVecThreads / (th / 4);
}

/// TMA rung: a kTmaTile x kTmaTile tile per block, moved as two 64-row x 32-column boxes a
/// side, each 128-byte swizzled (tma::swizzle_128b).
inline constexpr int kTmaTile = 64;

/// TMA rung: thread `tid` (of kVecThreads) transposes the 4x4 block of input row quad `br`
/// and column quad `bc` (0..15 each). Lane i of each 8-lane phase takes column quad i and
/// row quad (i + s) mod 8 for its group's shift s, so under the 128-byte swizzle both its
/// 16-byte shared reads (row 4br+k, chunk bc) and writes (row 4bc+m, chunk br) hit eight
/// distinct 16-byte bank groups per phase: conflict-free both ways.
MEMHIER_HD inline void tma_role(int tid, int* br, int* bc) {
  const int i = tid % 8, group = tid / 8;
  const int s = group % 8, half_c = (group / 8) % 2, half_r = group / 16;
  *bc = 8 * half_c + i;
  *br = 8 * half_r + (i + s) % 8;
}

}  // namespace memhier::transpose::index
