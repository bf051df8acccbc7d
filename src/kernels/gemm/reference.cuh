// The float64 GEMM reference both GEMM ladders verify against (fp32 or bf16 inputs).
#pragma once

#include <cuda_bf16.h>

#include <cstddef>

namespace memhier::kernels::gemm_reference {

constexpr int kRefTile = 16;

__device__ __forceinline__ double to_double(float x) {
  return static_cast<double>(x);
}
__device__ __forceinline__ double to_double(__nv_bfloat16 x) {
  return static_cast<double>(__bfloat162float(x));
}

/// One output per thread over 16x16 tiles of A and B in shared memory: ref = alpha sum_k a b
/// + beta c0 and its bound's scale |alpha| sum_k |a b| + |beta c0|; A and B row-major, dense.
template <class T>
__global__ void __launch_bounds__(kRefTile* kRefTile)
    reference_kernel(int m, int n, int k, double alpha, const T* __restrict__ A,
                     const T* __restrict__ B, double beta, const float* __restrict__ C0,
                     double* __restrict__ ref, float* __restrict__ scale) {
  __shared__ double as[kRefTile][kRefTile + 1], bs[kRefTile][kRefTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y, col = blockIdx.x * kRefTile + tx;
  const int row_tiles = (m + kRefTile - 1) / kRefTile;
  for (int by = blockIdx.y; by < row_tiles; by += gridDim.y) {  // grid.y is at most 65535
    const int row = by * kRefTile + ty;
    double acc = 0, mag = 0;
    for (int p0 = 0; p0 < k; p0 += kRefTile) {
      as[ty][tx] =
          row < m && p0 + tx < k
              ? to_double(A[static_cast<std::size_t>(row) * k + static_cast<std::size_t>(p0 + tx)])
              : 0.0;
      bs[ty][tx] =
          p0 + ty < k && col < n
              ? to_double(B[static_cast<std::size_t>(p0 + ty) * n + static_cast<std::size_t>(col)])
              : 0.0;
      __syncthreads();
#pragma unroll
      for (int q = 0; q < kRefTile; ++q) {
        const double ab = as[ty][q] * bs[q][tx];
        acc += ab;
        mag += fabs(ab);
      }
      __syncthreads();
    }
    if (row < m && col < n) {
      const std::size_t o = static_cast<std::size_t>(row) * n + static_cast<std::size_t>(col);
      const double c0 = C0 ? static_cast<double>(C0[o]) : 0.0;
      ref[o] = alpha * acc + beta * c0;
      scale[o] = static_cast<float>(fabs(alpha) * mag + fabs(beta) * fabs(c0));
    }
  }
}

}  // namespace memhier::kernels::gemm_reference
