// The device side of COut (output.hpp): C's elements read and written as fp32 whatever C's
// type, the bias of a column, and the one finishing step every rung's epilogue shares.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>

#include "output.hpp"

namespace memhier::gemm_bf16::detail {

/// C's element `i` as fp32; `Stream`: evict-first (the Hopper rungs keep C out of A and B's L2).
template <bool Stream = false>
__device__ __forceinline__ float c_load(const COut& o, std::size_t i) {
  if (o.bf16) return __bfloat162float(Stream ? __ldcs(o.bf16 + i) : o.bf16[i]);
  return Stream ? __ldcs(o.f32 + i) : o.f32[i];
}

/// Writes `v` to C's element `i`, rounded to nearest even where C is bf16.
template <bool Stream = false>
__device__ __forceinline__ void c_store(const COut& o, std::size_t i, float v) {
  if (o.bf16) {
    const __nv_bfloat16 h = __float2bfloat16_rn(v);
    if (Stream)
      __stcs(o.bf16 + i, h);
    else
      o.bf16[i] = h;
  } else if (Stream) {
    __stcs(o.f32 + i, v);
  } else {
    o.f32[i] = v;
  }
}

/// Elements i and i + 1 in one access (8 bytes fp32, 4 bytes bf16): i even and C's base
/// aligned to the pair, as the caller's `pairs` flag says.
__device__ __forceinline__ float2 c_load2_cs(const COut& o, std::size_t i) {
  if (o.bf16)
    return __bfloat1622float2(__ldcs(reinterpret_cast<const __nv_bfloat162*>(o.bf16 + i)));
  return __ldcs(reinterpret_cast<const float2*>(o.f32 + i));
}
__device__ __forceinline__ void c_store2_cs(const COut& o, std::size_t i, float v0, float v1) {
  if (o.bf16)
    __stcs(reinterpret_cast<__nv_bfloat162*>(o.bf16 + i), __floats2bfloat162_rn(v0, v1));
  else
    __stcs(reinterpret_cast<float2*>(o.f32 + i), make_float2(v0, v1));
}

/// Column `col`'s bias (0 without one).
__device__ __forceinline__ float c_bias(const COut& o, int col) {
  return o.bias ? __ldg(o.bias + col) : 0.f;
}

/// The one finishing step: alpha * acc (exactly 0 when alpha == 0, so no 0 * inf), plus
/// beta * old when beta != 0 (old is not read otherwise), plus the column's bias.
__device__ __forceinline__ float c_finish(float acc, float alpha, float beta, float old,
                                          float bias) {
  float o = alpha == 0.f ? 0.f : alpha * acc;
  if (beta != 0.f) o = fmaf(beta, old, o);
  return o + bias;
}

}  // namespace memhier::gemm_bf16::detail
