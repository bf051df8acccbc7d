// Rung 2, parallel max: every thread takes part in both reductions, through a shared-memory
// tree (log2(256) halving steps, a barrier each); same three passes as naive.
#include <cuda_runtime.h>

#include "common.cuh"
#include "memhier/core/check.hpp"
#include "variants.hpp"

namespace memhier::softmax::detail {
namespace {

constexpr int kThreads = 256;  // a power of two: the tree halves it

/// Tree reduction over the block in shared memory; every thread gets the result.
template <bool kMax>
__device__ __forceinline__ float tree_reduce(float* red, float v) {
  const int tid = threadIdx.x;
  red[tid] = v;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride >>= 1) {
    if (tid < stride)
      red[tid] = kMax ? fmaxf(red[tid], red[tid + stride]) : red[tid] + red[tid + stride];
    __syncthreads();
  }
  const float r = red[0];
  __syncthreads();  // red is reused by the next reduction
  return r;
}

__global__ void __launch_bounds__(kThreads)
    parallel_max_kernel(const float* in, float* out, int rows, int cols) {
  const int row = blockIdx.x;
  if (row >= rows) return;
  const float* x = in + index::row_start(row, cols);
  float* y = out + index::row_start(row, cols);
  __shared__ float red[kThreads];
  float m = neg_inf();
  for (int j = threadIdx.x; j < cols; j += kThreads) m = fmaxf(m, x[j]);
  m = tree_reduce<true>(red, m);
  float sum = 0.f;
  for (int j = threadIdx.x; j < cols; j += kThreads) {
    const float e = expf(x[j] - m);
    y[j] = e;
    sum += e;
  }
  const float inv = 1.f / tree_reduce<false>(red, sum);
  for (int j = threadIdx.x; j < cols; j += kThreads) y[j] *= inv;
}

}  // namespace

void launch_parallel_max(const Problem& p) {
  parallel_max_kernel<<<p.rows, kThreads, 0, p.stream>>>(p.in, p.out, p.rows, p.cols);
  MEMHIER_CHECK_LAUNCH();
}

const void* parallel_max_symbol() {
  return reinterpret_cast<const void*>(&parallel_max_kernel);
}

}  // namespace memhier::softmax::detail
