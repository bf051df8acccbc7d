// Shared by the "tma" probe's files (tma.cu, tma_edges.cu, tma_multicast.sm90a.cu): the
// geometry of the streamed buffer, which word each thread samples from a chunk (the same
// function in the kernels and in the reference that checks them), and the parts of the
// measurement that live in the other files.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "memhier/core/buffer.hpp"
#include "memhier/probe/probe.hpp"
#include "memhier/probe/tma.hpp"

namespace memhier::probe::tma_detail {

constexpr int kThreads = 256;  ///< every probe kernel's block
constexpr int kWidth = 8192;   ///< floats per row of the buffer's 2-D view (32 KiB pitch)
constexpr int kBoxCols = 64;   ///< a 2-D tile's width: 256 bytes
constexpr int kTilesX = kWidth / kBoxCols;
constexpr int kMaxVec = 8;  ///< float4 per thread per chunk at the largest chunk (32 KiB)

/// The chunk-local word thread `tid` reads back from chunk `c` (chunk_words words): spread
/// over the chunk and moving from chunk to chunk, so a misplaced copy changes the sum.
__host__ __device__ inline unsigned sampled_word(unsigned chunk_words, unsigned c, unsigned tid) {
  return (tid * 61u + c * 17u) % chunk_words;
}

/// The buffer word behind chunk-local word `w` of tile `t`: 1-D chunks are consecutive;
/// 2-D tiles are kBoxCols x (chunk_words / kBoxCols) boxes of the kWidth-wide view, kTilesX
/// per band of rows.
__host__ __device__ inline std::size_t tile_word(bool two_d, unsigned chunk_words, std::size_t t,
                                                 unsigned w) {
  if (!two_d) return t * chunk_words + w;
  const std::size_t box_rows = chunk_words / kBoxCols;
  const std::size_t row = (t / kTilesX) * box_rows + w / kBoxCols;
  return row * kWidth + (t % kTilesX) * kBoxCols + w % kBoxCols;
}

/// A word of the pattern the store kernels write: stage s, word j.
__host__ __device__ inline unsigned store_pattern(unsigned s, unsigned j) {
  unsigned h = s * 0x9e3779b9u + j * 0x85ebca6bu + 0x165667b1u;
  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  return h ^ (h >> 12);
}

/// The edge and swizzle checks (tma_edges.cu): fills the oob_* and swizzle_* fields.
void check_edges(TmaResult& m);

/// TMA multicast to `cluster` blocks against separate loads (tma_multicast.sm90a.cu), over
/// an L2-resident set of 2-D tiles in `src` (floats, a kWidth-wide view of `rows` rows).
TmaMulticast measure_multicast(Context& ctx, int cluster, const float* src, std::size_t rows);

}  // namespace memhier::probe::tma_detail
