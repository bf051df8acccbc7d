// Device helpers of the elementwise kernels: the two operations as functors (so one kernel
// template serves copy and axpy, and copy never loads y), vector application, the cache
// policy of a load or store, and the scalar head and tail every vector kernel finishes.
#pragma once

#include <cuda_runtime.h>

#include "index.cuh"

namespace memhier::elementwise::detail {

/// y = x: reads x only.
struct CopyOp {
  static constexpr bool kReadsY = false;
  __device__ __forceinline__ float operator()(float x, float /*y*/) const { return x; }
};

/// y = a*x + y with one rounding (fma): reads x and y.
struct AxpyOp {
  static constexpr bool kReadsY = true;
  float a;
  __device__ __forceinline__ float operator()(float x, float y) const { return fmaf(a, x, y); }
};

template <class Op>
__device__ __forceinline__ float4 apply4(const Op& op, float4 x, float4 y) {
  return make_float4(op(x.x, y.x), op(x.y, y.y), op(x.z, y.z), op(x.w, y.w));
}

template <class Op>
__device__ __forceinline__ float2 apply2(const Op& op, float2 x, float2 y) {
  return make_float2(op(x.x, y.x), op(x.y, y.y));
}

/// Cache policy: the default, or streaming (.cs: evict-first, the data is touched once).
enum class Cache { normal, streaming };

template <Cache C>
__device__ __forceinline__ float4 load4(const float4* p) {
  if constexpr (C == Cache::streaming)
    return __ldcs(p);
  else
    return *p;
}

template <Cache C>
__device__ __forceinline__ void store4(float4* p, float4 v) {
  if constexpr (C == Cache::streaming)
    __stcs(p, v);
  else
    *p = v;
}

/// One element, scalar: the head and tail of every vector kernel.
template <class Op>
__device__ __forceinline__ void scalar_element(const Op& op, const float* __restrict__ x,
                                               float* __restrict__ y, std::size_t i) {
  y[i] = op(x[i], Op::kReadsY ? y[i] : 0.f);
}

/// Threads 0..head-1 of the grid do the scalar head and threads 0..(n - tail_begin - 1)
/// the scalar tail (each under one vector width): the grid always has enough threads.
template <class Op>
__device__ __forceinline__ void split_edges(const Op& op, const float* __restrict__ x,
                                            float* __restrict__ y, const Split& sp, std::size_t t) {
  if (t < sp.head) scalar_element(op, x, y, t);
  if (t < sp.n - sp.tail_begin) scalar_element(op, x, y, sp.tail_begin + t);
}

/// One tile of U * kBlock float4 starting at vector `tile_base` (the block has kBlock
/// threads; a compile-time stride lets every access share one address register with
/// immediate offsets): every load of the tile is issued before the first store, so each
/// thread has U (copy) or 2U (axpy) 16-byte loads in flight. Full tiles skip the bounds
/// checks; the last partial tile checks each access.
template <class Op, int U, Cache C>
__device__ __forceinline__ void tile_pass(const Op& op, const float4* __restrict__ xv,
                                          float4* __restrict__ yv, std::size_t tile_base,
                                          std::size_t nvec) {
  float4 xr[U];
  float4 yr[U];
  const unsigned t = threadIdx.x, b = kBlock;
  if (tile_base + static_cast<std::size_t>(U) * b <= nvec) {
#pragma unroll
    for (int k = 0; k < U; ++k) xr[k] = load4<C>(xv + tile_vec_index(tile_base, k, t, b));
#pragma unroll
    for (int k = 0; k < U; ++k)
      yr[k] = Op::kReadsY ? load4<C>(yv + tile_vec_index(tile_base, k, t, b))
                          : make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
    for (int k = 0; k < U; ++k)
      store4<C>(yv + tile_vec_index(tile_base, k, t, b), apply4(op, xr[k], yr[k]));
  } else {
#pragma unroll
    for (int k = 0; k < U; ++k) {
      const std::size_t i = tile_vec_index(tile_base, k, t, b);
      if (i < nvec) {
        xr[k] = load4<C>(xv + i);
        yr[k] = Op::kReadsY ? load4<C>(yv + i) : make_float4(0.f, 0.f, 0.f, 0.f);
      }
    }
#pragma unroll
    for (int k = 0; k < U; ++k) {
      const std::size_t i = tile_vec_index(tile_base, k, t, b);
      if (i < nvec) store4<C>(yv + i, apply4(op, xr[k], yr[k]));
    }
  }
}

}  // namespace memhier::elementwise::detail
