// Index math of the reduction ladder, shared by the kernels and (later) the cost
// model, so a prediction cannot drift from the code it predicts. Plain C++ when not
// compiled by nvcc.
#pragma once

#include <cstddef>

#include "memhier/core/hd.hpp"

namespace memhier::reduction::index {

/// Interleaved, divergent tree: at stride s, thread tid is active when tid % (2s) == 0;
/// it adds shared word tid + s into word tid. Active threads thin out within every warp.
MEMHIER_HD inline bool divergent_active(unsigned tid, unsigned s) {
  return tid % (2u * s) == 0u;
}
/// The shared word thread tid owns in the divergent tree (its partner is word + s).
MEMHIER_HD inline unsigned divergent_word(unsigned tid) {
  return tid;
}

/// Interleaved, strided tree: at stride s, thread tid owns shared word 2*s*tid (partner
/// word + s), active while that word is inside the block. Threads stay packed (no
/// divergence) but a warp's words are 2s apart: a 2s-way bank conflict (up to 32-way).
MEMHIER_HD inline unsigned strided_word(unsigned tid, unsigned s) {
  return 2u * s * tid;
}

/// Sequential tree: at stride s (blockDim/2 down to 1), threads tid < s add word
/// tid + s into word tid: consecutive words for consecutive lanes, conflict-free.
MEMHIER_HD inline unsigned sequential_word(unsigned tid) {
  return tid;
}

/// Global element a classic block loads first: block * elems_per_block + tid (with a
/// second load at + block_threads when elems_per_block is twice the block).
MEMHIER_HD inline std::size_t classic_element(std::size_t block, unsigned tid,
                                              std::size_t elems_per_block) {
  return block * elems_per_block + tid;
}

/// Floats before the first 16-byte boundary at `address` (a float-aligned address),
/// clipped to n: the scalar head that vectorized variants peel.
MEMHIER_HD inline std::size_t scalar_head(std::size_t address, std::size_t n) {
  const std::size_t mis = (address >> 2) & 3u;
  const std::size_t head = mis ? 4u - mis : 0u;
  return head < n ? head : n;
}

}  // namespace memhier::reduction::index
