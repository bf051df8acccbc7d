// The body rungs 4 and 5 share (the optimized softmax of 'GPU Memory Hierarchy'): a block
// per row, PACK floats per access, warp-shuffle reductions, three passes (max; exp stored with the
// sum; scale in place). vectorized.cu runs it as is; launch_bounds.cu unrolls the read loops by 4
// (four loads in flight per thread) under a __launch_bounds__ register budget.
#pragma once

#include <cuda_runtime.h>

#include "common.cuh"

namespace memhier::softmax::detail {

template <int PACK, int UNROLL>
__device__ __forceinline__ void three_pass_row(const float* __restrict__ in,
                                               float* __restrict__ out, int rows, int cols) {
  const int row = blockIdx.x;
  if (row >= rows) return;
  const float* x = in + index::row_start(row, cols);
  float* y = out + index::row_start(row, cols);
  __shared__ float s_max[32], s_sum[32];
  const int units = cols / PACK;  // PACK == 4 only when 4 divides cols
  const int step = UNROLL * blockDim.x;
  float m = neg_inf();
  for (int base = threadIdx.x; base < units; base += step) {  // pass 1: the max
    float v[UNROLL][PACK];
    load_batch<PACK, UNROLL>(x, base, blockDim.x, units, v, neg_inf());
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
#pragma unroll
      for (int k = 0; k < PACK; ++k) m = fmaxf(m, v[u][k]);
  }
  m = block_max(m, s_max);
  float sum = 0.f;
  for (int base = threadIdx.x; base < units; base += step) {  // pass 2: exp, stored, summed
    float v[UNROLL][PACK];
    load_batch<PACK, UNROLL>(x, base, blockDim.x, units, v, neg_inf());
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const int i = base + u * blockDim.x;
      if (i >= units) break;
#pragma unroll
      for (int k = 0; k < PACK; ++k) {
        v[u][k] = expf(v[u][k] - m);
        sum += v[u][k];
      }
      store_pack<PACK>(y + i * PACK, v[u]);
    }
  }
  const float inv = 1.f / block_sum(sum, s_sum);
  for (int i = threadIdx.x; i < units; i += blockDim.x) {  // pass 3: the elements this thread wrote
    float v[PACK];
    load_plain<PACK>(y + i * PACK, v);
#pragma unroll
    for (int k = 0; k < PACK; ++k) v[k] *= inv;
    store_pack<PACK>(y + i * PACK, v);
  }
}

}  // namespace memhier::softmax::detail
