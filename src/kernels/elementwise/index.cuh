// Index math of the elementwise kernels, shared by host and device: the kernels use it,
// and a cost model can feed the same functions to predict sectors per request.
#pragma once

#include <cstddef>
#include <cstdint>

#include "memhier/core/hd.hpp"

namespace memhier::elementwise::detail {

/// Threads per block of every elementwise kernel.
constexpr int kBlock = 256;
/// float4 per thread per pass in the unrolled and grid-stride kernels.
constexpr int kUnroll = 4;
/// Floats per Particle record (array-of-structures layout, no padding).
constexpr int kParticleFloats = 6;

/// How a range of n floats splits for vectors of `width` floats: a scalar head that brings
/// both pointers to a vector boundary, `nvec` whole vectors, and a scalar tail from
/// tail_begin to n. head and n - tail_begin are each below width.
struct Split {
  std::size_t head = 0;
  std::size_t nvec = 0;
  std::size_t tail_begin = 0;
  std::size_t n = 0;
};

/// The split for x and y at these addresses, or false when their misalignments differ
/// (no common vector boundary: the caller falls back to scalar). Addresses are 4-byte aligned.
MEMHIER_HD inline bool split_for(std::uintptr_t x, std::uintptr_t y, std::size_t n, unsigned width,
                                 Split* out) {
  const std::uintptr_t bytes = 4u * width;
  const std::uintptr_t mx = x % bytes, my = y % bytes;
  if (mx != my) return false;
  std::size_t head = mx == 0 ? 0 : static_cast<std::size_t>((bytes - mx) / 4u);
  if (head > n) head = n;
  out->head = head;
  out->nvec = (n - head) / width;
  out->tail_begin = head + out->nvec * width;
  out->n = n;
  return true;
}

/// Thread t of the grid: block * block_threads + thread, in 64 bits.
MEMHIER_HD inline std::size_t flat_index(unsigned block, unsigned block_threads, unsigned thread) {
  return static_cast<std::size_t>(block) * block_threads + thread;
}

/// The vector a thread touches on step k of a tile that starts at vector `tile_base`: each
/// step the block covers block_threads consecutive vectors, so a warp's 32 lanes read 512
/// contiguous bytes (four 128-byte lines) per float4 instruction.
MEMHIER_HD inline std::size_t tile_vec_index(std::size_t tile_base, int k, unsigned thread,
                                             unsigned block_threads) {
  return tile_base + static_cast<std::size_t>(k) * block_threads + thread;
}

/// The float word of field f (0..5: x, y, z, vx, vy, vz) of particle i in the
/// array-of-structures layout: lanes are 24 bytes apart, so a warp's load of one field
/// spans 768 bytes (24 sectors) for 128 useful bytes.
MEMHIER_HD inline std::size_t aos_word(std::size_t i, int f) {
  return i * kParticleFloats + static_cast<std::size_t>(f);
}

/// The word of particle i in any structure-of-arrays field: stride 1, 4 sectors per warp.
MEMHIER_HD inline std::size_t soa_word(std::size_t i) {
  return i;
}

}  // namespace memhier::elementwise::detail
