// Device helpers shared by the histogram kernels: which bin an element falls in.
#pragma once

#include <cstdint>

#include "kernels/histogram/index.cuh"

namespace memhier::histogram::detail {

/// The bin of a uint8 element: the byte itself (always counted).
__device__ __forceinline__ unsigned bin_of(std::uint8_t v) {
  return v;
}

/// The bin of an int32 element, or kBins when it lies outside [0, 256) and is skipped.
__device__ __forceinline__ unsigned bin_of(std::int32_t v) {
  const unsigned u = static_cast<unsigned>(v);
  return u < kBins ? u : kBins;
}

}  // namespace memhier::histogram::detail
