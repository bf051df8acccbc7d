// One integer hash for host and device: random inputs, random gathers, ring orders.
#pragma once

#include <cstdint>

#include "memhier/core/hd.hpp"

namespace memhier::core {

/// Wellons' lowbias32: a well-mixed, invertible 32-bit hash.
MEMHIER_HD inline std::uint32_t hash32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

}  // namespace memhier::core
