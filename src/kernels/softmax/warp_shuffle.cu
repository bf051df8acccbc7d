// Rung 3, warp shuffles: each warp reduces in registers with __shfl_xor_sync (no shared
// memory, no barrier), then one barrier combines the 8 warps' results; three passes.
#include <cuda_runtime.h>

#include "common.cuh"
#include "memhier/core/check.hpp"
#include "variants.hpp"

namespace memhier::softmax::detail {
namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    warp_shuffle_kernel(const float* in, float* out, int rows, int cols) {
  const int row = blockIdx.x;
  if (row >= rows) return;
  const float* x = in + index::row_start(row, cols);
  float* y = out + index::row_start(row, cols);
  __shared__ float s_max[32], s_sum[32];
  float m = neg_inf();
  for (int j = threadIdx.x; j < cols; j += kThreads) m = fmaxf(m, x[j]);
  m = block_max(m, s_max);
  float sum = 0.f;
  for (int j = threadIdx.x; j < cols; j += kThreads) {
    const float e = expf(x[j] - m);
    y[j] = e;
    sum += e;
  }
  const float inv = 1.f / block_sum(sum, s_sum);
  for (int j = threadIdx.x; j < cols; j += kThreads) y[j] *= inv;
}

}  // namespace

void launch_warp_shuffle(const Problem& p) {
  warp_shuffle_kernel<<<p.rows, kThreads, 0, p.stream>>>(p.in, p.out, p.rows, p.cols);
  MEMHIER_CHECK_LAUNCH();
}

const void* warp_shuffle_symbol() {
  return reinterpret_cast<const void*>(&warp_shuffle_kernel);
}

}  // namespace memhier::softmax::detail
