// Device building blocks shared by the reduction kernels: the two operators, the warp
// shuffle reduction and the block reduction (warp shuffles + one word per warp).
#pragma once

#include <cuda_runtime.h>

#include "memhier/kernels/reduction.hpp"

namespace memhier::reduction::detail {

/// Addition; identity 0.
struct SumOp {
  static __device__ __forceinline__ float identity() { return 0.0f; }
  static __device__ __forceinline__ float apply(float a, float b) { return a + b; }
};

/// Maximum; identity -infinity (so an all-negative input reduces right). fmaxf ignores a
/// NaN operand, so max skips NaN inputs (a sum propagates them).
struct MaxOp {
  static __device__ __forceinline__ float identity() { return -__int_as_float(0x7f800000); }
  static __device__ __forceinline__ float apply(float a, float b) { return fmaxf(a, b); }
};

/// Reduces the 32 lanes' values; lane 0 holds the result.
template <class OpT>
__device__ __forceinline__ float warp_reduce(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    v = OpT::apply(v, __shfl_down_sync(0xffffffffu, v, offset));
  return v;
}

/// Reduces one value per thread of a B-thread block; thread 0 holds the result. Every
/// thread must call it (it has barriers); it may be called more than once per kernel.
template <class OpT, int B>
__device__ __forceinline__ float block_reduce(float v) {
  static_assert(B % 32 == 0 && B >= 32 && B <= 1024, "block size must be a multiple of 32");
  __shared__ float warp_vals[B / 32];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  v = warp_reduce<OpT>(v);
  __syncthreads();  // an earlier call's readers are done with warp_vals
  if (lane == 0) warp_vals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < static_cast<unsigned>(B / 32) ? warp_vals[lane] : OpT::identity();
    v = warp_reduce<OpT>(v);
  }
  return v;
}

}  // namespace memhier::reduction::detail
