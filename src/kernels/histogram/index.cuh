// Shared-memory index math of the histogram ladder, __host__ __device__ so that the
// access model can predict the same addresses the kernels use.
#pragma once

#include "memhier/core/hd.hpp"

namespace memhier::histogram::detail {

constexpr unsigned kBins = 256;
constexpr unsigned kLanes = 32;

/// warp_privatized: bin b of warp w's copy at word w*256 + b. Random bins put about 3.5
/// lanes on the busiest bank; equal bins in a warp still serialize on one word.
MEMHIER_HD inline unsigned warp_copy_word(unsigned warp, unsigned bin) {
  return warp * kBins + bin;
}

/// lane_privatized: bin b of lane l's copy (shared by lane l of every warp) at word
/// b*32 + l, so bank = l: a warp's 32 increments never share a bank or a word, whatever
/// the bins (uniform and degenerate input alike are conflict-free).
MEMHIER_HD inline unsigned lane_copy_word(unsigned lane, unsigned bin) {
  return bin * kLanes + lane;
}

/// lane_privatized merge: lane l of a warp summing bin b reads b*32 + l: one copy per
/// lane, 32 consecutive words, conflict-free.
MEMHIER_HD inline unsigned lane_merge_word(unsigned lane, unsigned bin) {
  return lane_copy_word(lane, bin);
}

}  // namespace memhier::histogram::detail
