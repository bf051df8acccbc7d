// Split-K in one launch: the splits of a tile each store their partial sums to the workspace
// (workspace.hpp), count themselves in at the tile's counter, and the last to arrive adds the
// partials in split order, so C has the same bits whichever split finished last.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

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

}  // namespace memhier::kernels::split_k
