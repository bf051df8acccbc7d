// The online-softmax body rungs 6 and 9 share: pass 1 reads the row (or this block's chunk
// of it) once, keeping a running max and a sum rescaled whenever the max grows; pass 2
// reads it again and writes exp(x - max) / sum. With CLUSTER, the blocks of a thread-block
// cluster split one row and merge their partials through distributed shared memory.
#pragma once

#include <cuda_runtime.h>

#include "common.cuh"

namespace memhier::softmax::detail {

/// Requires gridDim.x == rows * cluster size (one cluster per row, one block without
/// CLUSTER) and blockDim.x a multiple of 32. chunk_units: units (PACK floats) per block.
template <int PACK, int UNROLL, bool CLUSTER>
__device__ __forceinline__ void two_pass_row(const float* __restrict__ in, float* __restrict__ out,
                                             int rows, int cols, int chunk_units) {
  __shared__ float2 scratch[32];
  __shared__ ClusterSlots slots;
  const int csize = CLUSTER ? cluster_size() : 1;
  const int rank = CLUSTER ? cluster_rank() : 0;
  const long long row = blockIdx.x / csize;
  if (row >= rows) return;  // uniform over the cluster: it shares the row
  if constexpr (CLUSTER) cluster_exchange_begin(slots);
  const int count = index::chunk_count(rank, chunk_units, cols / PACK);
  const long long first = index::chunk_begin(rank, chunk_units) * PACK;
  const float* x = in + index::row_start(row, cols) + (count > 0 ? first : 0);
  float* y = out + index::row_start(row, cols) + (count > 0 ? first : 0);
  const int step = UNROLL * blockDim.x;

  MaxSum p = empty_max_sum();
  for (int base = threadIdx.x; base < count; base += step) {  // pass 1: max and sum together
    float v[UNROLL][PACK];
    load_batch<PACK, UNROLL>(x, base, blockDim.x, count, v, neg_inf());
    online_update(p, v);
  }
  p = block_combine(p, scratch);
  if constexpr (CLUSTER) p = cluster_exchange(slots, p);
  const float m = safe_max(p.m);
  const float inv = 1.f / p.s;

  for (int base = threadIdx.x; base < count; base += step) {  // pass 2: read again, write
    float v[UNROLL][PACK];
    load_batch<PACK, UNROLL>(x, base, blockDim.x, count, v, 0.f);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const int i = base + u * blockDim.x;
      if (i < count) {
#pragma unroll
        for (int k = 0; k < PACK; ++k) v[u][k] = expf(v[u][k] - m) * inv;
        store_pack<PACK>(y + static_cast<long long>(i) * PACK, v[u]);
      }
    }
  }
}

}  // namespace memhier::softmax::detail
