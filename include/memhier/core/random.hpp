// Random device data for inputs: never zeros, deterministic for a seed.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace memhier::core {

/// Fills `n` floats with uniform values in [lo, hi) from `seed`.
void fill_random(float* data, std::size_t n, std::uint32_t seed, float lo = -1.f, float hi = 1.f,
                 cudaStream_t stream = nullptr);

/// Fills `n` 32-bit words with random bits.
void fill_random_bits(std::uint32_t* data, std::size_t n, std::uint32_t seed,
                      cudaStream_t stream = nullptr);

}  // namespace memhier::core
