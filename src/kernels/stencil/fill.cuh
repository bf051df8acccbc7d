// Device helper of the shared-tile rungs: stage an input tile plus its halo, clamped at the
// image borders, in shared memory.
#pragma once

#include "kernels/stencil/index.cuh"

namespace memhier::stencil::detail {

/// Fills the SH×SW shared tile `smem` (row-major) with in[clamp(row0 + sr)][clamp(col0 + sc)]
/// using all NT threads of the block: consecutive threads take consecutive words (coalesced
/// global reads, conflict-free shared stores). Every load is issued before the first store,
/// so each thread has ceil(SH*SW / NT) independent loads in flight. The caller synchronizes.
template <int NT, int SH, int SW>
__device__ __forceinline__ void fill_tile_clamped(float* smem, const float* in, int rows, int cols,
                                                  long long row0, long long col0) {
  constexpr int kWords = SH * SW;
  constexpr int kIters = (kWords + NT - 1) / NT;
  float staged[kIters];
#pragma unroll
  for (int it = 0; it < kIters; ++it) {
    const int w = static_cast<int>(threadIdx.x) + it * NT;
    staged[it] = 0.f;
    if (w < kWords) {
      const int sr = w / SW, sc = w - sr * SW;
      staged[it] =
          in[element_index(clamp_coord(row0 + sr, rows), clamp_coord(col0 + sc, cols), cols)];
    }
  }
#pragma unroll
  for (int it = 0; it < kIters; ++it) {
    const int w = static_cast<int>(threadIdx.x) + it * NT;
    if (w < kWords) smem[w] = staged[it];
  }
}

}  // namespace memhier::stencil::detail
