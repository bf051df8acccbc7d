// Rungs 1 and 2 share this body: one output per thread, every input tap read from global
// memory; they differ only in where the filter lives (Filter::tap reads it).
#pragma once

#include "kernels/stencil/index.cuh"
#include "kernels/stencil/launch.cuh"
#include "kernels/stencil/variants.hpp"

namespace memhier::stencil::detail {

constexpr int kPerOutputBX = 32;  // a warp spans 32 columns: coalesced
constexpr int kPerOutputBY = kPerOutputThreads / kPerOutputBX;  // 8 rows per block

template <int K, typename Filter>
__global__ void __launch_bounds__(kPerOutputThreads)
    per_output_kernel(const float* in, float* out, int rows, int cols, long long col_tiles,
                      long long tiles) {
  constexpr int R = K / 2;
  const int tx = static_cast<int>(threadIdx.x) % kPerOutputBX;
  const int ty = static_cast<int>(threadIdx.x) / kPerOutputBX;
  for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
    const long long r = tile_row0(t, col_tiles, kPerOutputBY) + ty;
    const long long c = tile_col0(t, col_tiles, kPerOutputBX) + tx;
    if (r >= rows || c >= cols) continue;
    float acc = 0.f;
    for (int i = 0; i < K; ++i) {
      const long long ir = clamp_coord(r + i - R, rows);
      for (int j = 0; j < K; ++j)
        acc = fmaf(Filter::tap(i * K + j),
                   in[element_index(ir, clamp_coord(c + j - R, cols), cols)], acc);
    }
    out[element_index(r, c, cols)] = acc;
  }
}

/// Uploads the filter to `symbol` (Filter's storage) and launches the K instantiation.
template <int K, typename Filter, typename Symbol>
void launch_per_output(const Args& a, const Symbol& symbol) {
  launch_tiles<K>(a, symbol, per_output_kernel<K, Filter>, kPerOutputBX, kPerOutputBY,
                  kPerOutputThreads);
}

}  // namespace memhier::stencil::detail
