// Rung 1, naive (the first version in 'GPU Memory Hierarchy'): one block per row; thread 0
// finds the max in a serial loop, every thread adds its exponentials into one shared sum with
// atomics, and the output is written twice (exp, then divided in place): three passes, scalar
// loads.
#include <cuda_runtime.h>

#include "common.cuh"
#include "memhier/core/check.hpp"
#include "variants.hpp"

namespace memhier::softmax::detail {
namespace {

constexpr int kThreads = 256;

__global__ void naive_kernel(const float* in, float* out, int rows, int cols) {
  const int row = blockIdx.x;
  if (row >= rows) return;
  const float* x = in + index::row_start(row, cols);
  float* y = out + index::row_start(row, cols);
  __shared__ float s_max, s_sum;
  if (threadIdx.x == 0) {  // pass 1: one thread walks the whole row
    float m = neg_inf();
    for (int j = 0; j < cols; ++j) m = fmaxf(m, x[j]);
    s_max = m;
    s_sum = 0.f;
  }
  __syncthreads();
  const float m = s_max;
  float sum = 0.f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x) {  // pass 2: exp, stored unnormalized
    const float e = expf(x[j] - m);
    y[j] = e;
    sum += e;
  }
  atomicAdd(&s_sum, sum);  // every thread serializes on one shared word
  __syncthreads();
  const float total = s_sum;
  for (int j = threadIdx.x; j < cols; j += blockDim.x) y[j] /= total;  // pass 3, own elements
}

}  // namespace

void launch_naive(const Problem& p) {
  naive_kernel<<<p.rows, kThreads, 0, p.stream>>>(p.in, p.out, p.rows, p.cols);
  MEMHIER_CHECK_LAUNCH();
}

const void* naive_symbol() {
  return reinterpret_cast<const void*>(&naive_kernel);
}

}  // namespace memhier::softmax::detail
