// The shared-memory body of rung 8 (OneFlow's softmax_block_smem): a block copies its row
// once from global into dynamic shared memory with cp.async (the whole row in flight at
// once, no registers held), turns it into exp(x - max) in place with the sum, each thread
// against its own max so that one block reduction of (max, sum) pairs suffices, and writes
// it scaled: one global read and one global write per element.
#pragma once

#include <cuda_runtime.h>

#include "common.cuh"
#include "memhier/core/ptx.cuh"

namespace memhier::softmax::detail {

constexpr int kSmemUnitsPerThread = 8;
constexpr int kSmemMaxThreads = 1024;

/// Threads for a block caching `units` units: about eight units a thread, 256 to 1024.
inline int smem_row_threads(int units) {
  int t = 256;
  while (t < kSmemMaxThreads && t * kSmemUnitsPerThread < units) t *= 2;
  return t;
}

/// Requires gridDim.x == rows, blockDim.x a multiple of 32, and cols * 4 bytes of dynamic
/// shared memory.
template <int PACK>
__device__ __forceinline__ void smem_row(const float* __restrict__ in, float* __restrict__ out,
                                         int rows, int cols) {
  extern __shared__ float4 smem_cache[];  // float4: 16-byte aligned
  float* cache = reinterpret_cast<float*>(smem_cache);
  __shared__ float2 scratch[32];
  const long long row = blockIdx.x;
  if (row >= rows) return;
  const int count = cols / PACK;
  const float* x = in + index::row_start(row, cols);
  float* y = out + index::row_start(row, cols);

  // Global -> shared, once, all in flight; each thread keeps to its own units afterwards
  // (no barrier between the passes: a thread reads only what it copied or wrote).
#pragma unroll 4
  for (int i = threadIdx.x; i < count; i += blockDim.x)
    cp_async<PACK>(cache + i * PACK, x + static_cast<long long>(i) * PACK);
  ptx::cp_async_wait_all();
  // Each thread's own max and sum of exp(x - its max), the exponentials stored in place:
  // one block reduction of (max, sum) pairs instead of a max reduction and then a sum one.
  float tmax = neg_inf();
#pragma unroll 4
  for (int i = threadIdx.x; i < count; i += blockDim.x) {
    float v[PACK];
    load_plain<PACK>(cache + i * PACK, v);
#pragma unroll
    for (int k = 0; k < PACK; ++k) tmax = fmaxf(tmax, v[k]);
  }
  const float t_use = safe_max(tmax);  // no units (or all -inf): exponentials are 0
  float tsum = 0.f;
#pragma unroll 4
  for (int i = threadIdx.x; i < count; i += blockDim.x) {
    float v[PACK];
    load_plain<PACK>(cache + i * PACK, v);
#pragma unroll
    for (int k = 0; k < PACK; ++k) {
      v[k] = expf(v[k] - t_use);
      tsum += v[k];
    }
    store_pack<PACK>(cache + i * PACK, v);
  }
  const MaxSum all = block_combine(MaxSum{tmax, tsum}, scratch);
  // exp(x - M) / S = exp(x - tmax) * exp(tmax - M) / S: one scale per thread.
  const float scale = tmax == neg_inf() ? 0.f : expf(tmax - all.m) / all.s;
#pragma unroll 4
  for (int i = threadIdx.x; i < count; i += blockDim.x) {
    float v[PACK];
    load_plain<PACK>(cache + i * PACK, v);
#pragma unroll
    for (int k = 0; k < PACK; ++k) v[k] *= scale;
    store_pack<PACK>(y + static_cast<long long>(i) * PACK, v);
  }
}

}  // namespace memhier::softmax::detail
