// Split-K in one launch: the splits of a tile each store their partial sums to the workspace
// (workspace.hpp), count themselves in at the tile's counter, and the last to arrive adds the
// partials in split order, so C has the same bits whichever split finished last.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "kernels/gemm_bf16/output.cuh"
#include "kernels/split_k/workspace.hpp"

namespace memhier::kernels::split_k {

/// Called by every thread of the group that stored one split's partials of a tile, after its
/// stores; `sync` is the group's barrier, `leader` one of its threads, `flag` a shared int.
/// True in every thread of the last split to arrive, whose reads then see every other split's
/// partials; that split also resets the counter for the next launch.
template <class Sync>
__device__ __forceinline__ bool arrive_last(unsigned* counter, int splits, bool leader, int* flag,
                                            Sync sync) {
  sync();  // the group's partials are all stored
  if (leader) {
    __threadfence();  // ...and visible on the device before the count says so
    const bool last = atomicAdd(counter, 1u) == static_cast<unsigned>(splits - 1);
    if (last) {
      *counter = 0;
      __threadfence();  // the other splits' partials, seen after their counts
    }
    *flag = last ? 1 : 0;
  }
  sync();
  return *flag != 0;
}

/// The partial sums of one element over the splits (slices `slice` floats apart), added in
/// split order; read past L1, which may hold an earlier launch's lines.
__device__ __forceinline__ float4 sum4(const float* partials, std::size_t slice, int splits,
                                       std::size_t offset) {
  float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
  for (int s = 0; s < splits; ++s) {
    const float4 p = __ldcg(reinterpret_cast<const float4*>(partials + s * slice + offset));
    v.x += p.x;
    v.y += p.y;
    v.z += p.z;
    v.w += p.w;
  }
  return v;
}

/// Where C lands: C = the splits' sum + beta * C + bias (alpha is in the partials), inside
/// m x n, fp32 or bf16 (gemm_bf16/output.hpp).
struct Target {
  ::memhier::gemm_bf16::detail::COut out;
  long long ldc;
  int m, n;
  float beta;
};

/// The last split writes the tile rows [r0, r0 + rows) x columns [c0, c0 + cols) of C (c0 and
/// cols multiples of 4; partial rows `ld` floats, a multiple of 4): `threads` threads, this one
/// `i`, four columns a step, four steps in flight (one round trip to L2 for a small tile).
__device__ __forceinline__ void finish_tile(const float* partials, std::size_t slice, int ld,
                                            int splits, const Target& t, int r0, int rows, int c0,
                                            int cols, int i, int threads) {
  namespace out = ::memhier::gemm_bf16::detail;
  const int groups = cols / 4;
#pragma unroll 4
  for (int g = i; g < rows * groups; g += threads) {
    const int row = r0 + g / groups, col = c0 + 4 * (g % groups);
    if (row >= t.m) break;  // rows only grow with g
    if (col >= t.n) continue;
    const float4 v = sum4(partials, slice, splits,
                          static_cast<std::size_t>(row) * ld + static_cast<std::size_t>(col));
    const float vs[4] = {v.x, v.y, v.z, v.w};
    const std::size_t at = static_cast<std::size_t>(row) * t.ldc + col;
#pragma unroll
    for (int j = 0; j < 4; ++j)
      if (col + j < t.n) {
        const float old = t.beta != 0.f ? out::c_load(t.out, at + j) : 0.f;
        out::c_store(t.out, at + j,
                     out::c_finish(vs[j], 1.f, t.beta, old, out::c_bias(t.out, col + j)));
      }
  }
}

}  // namespace memhier::kernels::split_k
