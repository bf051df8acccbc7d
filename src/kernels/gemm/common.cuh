// Device helpers shared by the GEMM rungs: guarded loads (16-byte where legal, zero-fill
// past the edges), the epilogue (C unread when beta == 0) and the one launch
// path (every launch checked).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "index.cuh"
#include "memhier/core/check.hpp"
#include "variants.hpp"

#define MEMHIER_GEMM_DYNAMIC_SMEM(name) extern __shared__ __align__(16) float name[]

namespace memhier::gemm::detail {

__device__ __forceinline__ float f4(const float4& v, int i) {
  return i == 0 ? v.x : (i == 1 ? v.y : (i == 2 ? v.z : v.w));
}

/// p[0..3] of a row with `avail` valid elements from p (<= 0: none), zero past the end.
/// One 16-byte load when `vec` (aligned base, ld % 4 == 0, column a multiple of 4) and
/// all four are inside; scalar loads otherwise.
__device__ __forceinline__ float4 load4(const float* p, int avail, bool vec) {
  if (vec && avail >= 4) return __ldg(reinterpret_cast<const float4*>(p));
  float4 v;
  v.x = avail > 0 ? __ldg(p) : 0.f;
  v.y = avail > 1 ? __ldg(p + 1) : 0.f;
  v.z = avail > 2 ? __ldg(p + 2) : 0.f;
  v.w = avail > 3 ? __ldg(p + 3) : 0.f;
  return v;
}

/// One output: C = alpha * acc (+ beta * C when beta != 0; C is not read otherwise).
__device__ __forceinline__ void store1(float* c, float acc, float alpha, float beta);

/// Rungs 1 and 2: one thread computes C(row, col) with the K-long dot product read straight
/// from global memory. They differ only in which thread gets which (row, col).
__device__ __forceinline__ void dot_product_output(const Params& p, int row, int col) {
  if (row >= p.m || col >= p.n) return;
  const float* a = p.A + rm_offset(row, 0, p.lda);
  const float* b = p.B + col;
  float acc = 0.f;
  for (int i = 0; i < p.k; ++i, b += p.ldb) acc = fmaf(a[i], *b, acc);
  store1(p.C + rm_offset(row, col, p.ldc), acc, p.alpha, p.beta);
}

__device__ __forceinline__ void store1(float* c, float acc, float alpha, float beta) {
  float o = alpha * acc;
  if (beta != 0.f) o = fmaf(beta, *c, o);
  *c = o;
}

/// Four outputs C(row, col..col+3), guarded against the edges of C.
__device__ __forceinline__ void store4(float* C, int ldc, int m, int n, int row, int col, float4 v,
                                       float alpha, float beta, bool vec) {
  if (row >= m || col >= n) return;
  float* c = C + rm_offset(row, col, ldc);
  const int avail = n - col;
  if (vec && avail >= 4) {
    float4 o = make_float4(alpha * v.x, alpha * v.y, alpha * v.z, alpha * v.w);
    if (beta != 0.f) {
      const float4 old = *reinterpret_cast<const float4*>(c);
      o.x = fmaf(beta, old.x, o.x);
      o.y = fmaf(beta, old.y, o.y);
      o.z = fmaf(beta, old.z, o.z);
      o.w = fmaf(beta, old.w, o.w);
    }
    *reinterpret_cast<float4*>(c) = o;
    return;
  }
  store1(c, v.x, alpha, beta);
  if (avail > 1) store1(c + 1, v.y, alpha, beta);
  if (avail > 2) store1(c + 2, v.z, alpha, beta);
  if (avail > 3) store1(c + 3, v.w, alpha, beta);
}

/// The one launch path of the ladder: launch, then check the launch.
template <typename... KernelArgs, typename... Args>
inline void launch_kernel(void (*kernel)(KernelArgs...), dim3 grid, dim3 block, std::size_t smem,
                          cudaStream_t stream, Args&&... args) {
  // clang-format off
  kernel<<<grid, block, smem, stream>>>(std::forward<Args>(args)...);
  // clang-format on
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace memhier::gemm::detail
