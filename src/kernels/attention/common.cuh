// Device helpers shared by the attention rungs: 8-element bf16 loads and stores, warp
// reductions, the online softmax's usable max and final 1 / l, and the grid over heads and
// batches.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>

#include "index.cuh"
#include "memhier/core/check.hpp"
#include "variants.hpp"

namespace memhier::attention::detail {

/// Eight bf16 of a row (16-byte aligned) as one 16-byte load, or zeros when `in` is false.
__device__ __forceinline__ uint4 load8_or_zero(const __nv_bfloat16* p, bool in) {
  return in ? __ldg(reinterpret_cast<const uint4*>(p)) : make_uint4(0, 0, 0, 0);
}

/// The eight bf16 of `u` as floats, each times `mul`.
__device__ __forceinline__ void unpack8(const uint4& u, float mul, float* out) {
  const unsigned w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    __nv_bfloat162 h;
    *reinterpret_cast<unsigned*>(&h) = w[i];
    const float2 f = __bfloat1622float2(h);
    out[2 * i] = f.x * mul;
    out[2 * i + 1] = f.y * mul;
  }
}

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

/// The max an online softmax subtracts: the running max, or 0 while every score so far is
/// -inf (so that exp2(-inf - 0) = 0 instead of exp2(-inf + inf) = NaN).
__device__ __forceinline__ float usable_max(float m) {
  return m == -INFINITY ? 0.f : m;
}

/// 1 / l of a row whose sum l the four threads of a quad hold in parts (an m16n8 or wgmma
/// accumulator row), or 0 when the row saw no key (not 0/0).
__device__ __forceinline__ float inverse_row_sum(float part) {
  float sum = part + __shfl_xor_sync(0xffffffffu, part, 1);
  sum += __shfl_xor_sync(0xffffffffu, sum, 2);
  return sum > 0.f ? 1.f / sum : 0.f;
}

/// Blocks along y and z for batch x heads: heads on y, batch on z (both within the grid's
/// 65535).
inline dim3 head_grid(long long tiles, const Shape& s, const char* what) {
  if (tiles > 2147483647LL || s.heads > 65535 || s.batch > 65535)
    throw std::invalid_argument(std::string(what) + ": the grid of " + std::to_string(tiles) +
                                " tiles x " + std::to_string(s.heads) + " heads x " +
                                std::to_string(s.batch) + " batches exceeds the launch limits.");
  return dim3(static_cast<unsigned>(tiles), static_cast<unsigned>(s.heads),
              static_cast<unsigned>(s.batch));
}

}  // namespace memhier::attention::detail
