// The latency probes' pointer-chase ring, shared by their kernels and host code.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "memhier/core/hash.cuh"

namespace memhier::probe {

constexpr std::uint64_t kLine = 128;  // L1/L2 line: one slot per line in the sweep

// ---------------------------------------------------------------------------------
// The ring: a random cyclic order over `slots` slots, computed by a bijective hash
// (4-round Feistel network with cycle walking), so a GB-sized ring is built on the
// device in parallel with no permutation table. Shared by the kernels and the host.
// ---------------------------------------------------------------------------------
struct RingLayout {
  std::uint64_t slots = 0;   ///< slots in the ring (a multiple of group)
  std::uint64_t stride = 0;  ///< bytes from one slot's region to the next
  std::uint64_t group = 1;   ///< hops that stay inside one group of adjacent slots (page-friendly)
  std::uint32_t outer_bits = 1, inner_bits = 1;  ///< Feistel half widths over groups / in a group
  std::uint32_t outer_key = 0, inner_key = 0;
  std::uint32_t jitter_lines = 1;  ///< a slot sits at a random 128-byte line of its region
};

// A bijection on [0, 4^half_bits): balanced Feistel rounds are invertible by construction.
__host__ __device__ inline std::uint64_t ring_feistel(std::uint64_t x, std::uint32_t half_bits,
                                                      std::uint32_t key) {
  const std::uint64_t mask = (std::uint64_t{1} << half_bits) - 1;
  std::uint64_t l = x >> half_bits, r = x & mask;
  for (std::uint32_t round = 0; round < 4; ++round) {
    const std::uint64_t f =
        core::hash32(static_cast<std::uint32_t>(r) ^ (key + round * 0x9e3779b9U)) & mask;
    const std::uint64_t next_l = r;
    r = l ^ f;
    l = next_l;
  }
  return (l << half_bits) | r;
}

// A bijection on [0, n): walk the Feistel cycle until it lands below n (at most ~4 steps).
__host__ __device__ inline std::uint64_t ring_perm(std::uint64_t k, std::uint64_t n,
                                                   std::uint32_t half_bits, std::uint32_t key) {
  std::uint64_t x = k;
  do x = ring_feistel(x, half_bits, key);
  while (x >= n);
  return x;
}

/// The slot visited at position k of the cycle.
__host__ __device__ inline std::uint64_t ring_slot(const RingLayout& lay, std::uint64_t k) {
  if (lay.group <= 1) return ring_perm(k, lay.slots, lay.outer_bits, lay.outer_key);
  const std::uint64_t groups = lay.slots / lay.group;
  return ring_perm(k / lay.group, groups, lay.outer_bits, lay.outer_key) * lay.group +
         ring_perm(k % lay.group, lay.group, lay.inner_bits, lay.inner_key);
}

/// Byte offset of a slot from the ring's base.
__host__ __device__ inline std::uint64_t ring_offset(const RingLayout& lay, std::uint64_t slot) {
  std::uint64_t off = slot * lay.stride;
  if (lay.jitter_lines > 1)
    off += (core::hash32(static_cast<std::uint32_t>(slot ^ (slot >> 32)) ^ lay.inner_key) %
            lay.jitter_lines) *
           kLine;
  return off;
}

inline std::uint32_t half_bits_for(std::uint64_t n) {
  std::uint32_t h = 1;
  while ((std::uint64_t{1} << (2 * h)) < n) ++h;
  return h;
}

inline RingLayout make_layout(std::uint64_t slots, std::uint64_t stride, std::uint64_t group,
                              std::uint32_t seed) {
  if (slots < 2 || stride < 8 || stride % 8 != 0 || group < 1 || slots % group != 0)
    throw std::invalid_argument("latency: bad ring layout (" + std::to_string(slots) +
                                " slots, stride " + std::to_string(stride) + ", group " +
                                std::to_string(group) + ")");
  RingLayout lay;
  lay.slots = slots;
  lay.stride = stride;
  lay.group = group;
  lay.outer_bits = half_bits_for(slots / group);
  lay.inner_bits = half_bits_for(group);
  lay.outer_key = core::hash32(seed * 2654435761U + 1);
  lay.inner_key = core::hash32(seed ^ 0x5bd1e995U);
  lay.jitter_lines = stride >= 2 * kLine ? static_cast<std::uint32_t>(stride / kLine) : 1;
  return lay;
}

// Host check of the order function: every slot exactly once per cycle.
inline void check_layout(const RingLayout& lay) {
  if (lay.slots > (std::uint64_t{1} << 20)) return;  // checked on the small rings; same code path
  std::vector<char> seen(lay.slots, 0);
  for (std::uint64_t k = 0; k < lay.slots; ++k) {
    const std::uint64_t s = ring_slot(lay, k);
    if (s >= lay.slots || seen[s])
      throw std::logic_error("latency: ring order is not a permutation");
    seen[s] = 1;
  }
}

}  // namespace memhier::probe
