// The classic rungs' host driver: the same kernel pass after pass (n -> n/E -> ...),
// ping-ponging block partials between two workspace buffers, until one block writes
// `out`. This is the recursive launch of the textbook ladder.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "memhier/core/check.hpp"
#include "variants.hpp"

namespace memhier::reduction::detail {

/// Each pass: block b reduces elements [b*E, b*E+E) of `src` into dst[b].
using PassKernel = void (*)(const float*, std::size_t, float*);

inline void run_passes(PassKernel kernel, std::size_t elems_per_block, const Launch& l) {
  const float* src = l.in;
  std::size_t count = l.n;
  float* const buf_a = l.slots;
  float* const buf_b = l.slots + l.slots_b;
  float* next = buf_a;
  for (;;) {
    const std::size_t blocks = (count + elems_per_block - 1) / elems_per_block;
    float* dst = blocks == 1 ? l.out : next;
    kernel<<<static_cast<unsigned>(blocks), kClassicBlock, 0, l.stream>>>(src, count, dst);
    MEMHIER_CHECK_LAUNCH();
    if (blocks == 1) return;
    src = dst;
    count = blocks;
    next = dst == buf_a ? buf_b : buf_a;
  }
}

}  // namespace memhier::reduction::detail
