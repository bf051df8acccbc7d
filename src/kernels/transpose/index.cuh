// Index math of the transpose ladder, shared by the kernels and (later) by the cost
// model's predictions for them, so a prediction cannot drift from the code it predicts.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace memhier::transpose::index {

inline constexpr int kTile = 32;         ///< scalar rungs: 32x32 tile per block
inline constexpr int kBlockRows = 8;     ///< scalar rungs: 32x8 threads, 4 tile rows each
inline constexpr int kVecThreads = 256;  ///< vectorized rungs: one 4x4 block per thread

/// Element (row, col) of the row-major rows x cols input.
__host__ __device__ inline std::size_t in_offset(long long row, long long col, int cols) {
  return static_cast<std::size_t>(row) * static_cast<std::size_t>(cols) +
         static_cast<std::size_t>(col);
}

/// Where input element (row, col) lands in the row-major cols x rows output.
__host__ __device__ inline std::size_t out_offset(long long row, long long col, int rows) {
  return static_cast<std::size_t>(col) * static_cast<std::size_t>(rows) +
         static_cast<std::size_t>(row);
}

/// Shared word of tile element (r, c) in an unpadded [32][32] tile: a column read
/// (lanes vary r) has stride 32 words, every lane in one bank: 32-way conflict.
__host__ __device__ inline int tile_word(int r, int c) {
  return r * kTile + c;
}

/// The same in a padded [32][33] tile: stride 33 is coprime with 32 banks, no conflict.
__host__ __device__ inline int padded_word(int r, int c) {
  return r * (kTile + 1) + c;
}

/// The same in a [32][32] tile with the column XOR-swizzled by the row: a row (lanes
/// vary c) and a column (lanes vary r) both touch 32 distinct banks. Needs r, c < 32.
__host__ __device__ inline int swizzled_word(int r, int c) {
  return r * kTile + (c ^ r);
}

/// Vectorized rungs: the shared tile holds the TRANSPOSED tile, one row per input column,
/// as float4 chunks of 4 consecutive input rows. Chunk `chunk` of row `row` lives in float4
/// slot row * chunks_per_row + (chunk ^ ((row >> 2) & 7)): eight lanes writing rows 4q+j
/// (q consecutive) or reading chunks p (p consecutive) of one row hit eight distinct
/// 16-byte bank groups, so every 128-bit access runs at the minimum four wavefronts.
/// Needs chunks_per_row a multiple of 8.
__host__ __device__ inline int vec_slot(int row, int chunk, int chunks_per_row) {
  return row * chunks_per_row + (chunk ^ ((row >> 2) & 7));
}

}  // namespace memhier::transpose::index
