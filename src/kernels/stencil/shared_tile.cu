// Rung 3: the block stages its 32×16 output tile plus a halo of R on every side in shared
// memory once (clamped at the borders), then each thread computes one output from shared
// memory with the filter in __constant__ memory. Global reads per output drop from K² to
// (16+K-1)(32+K-1)/512 (1.3 for K=3, 1.6 for K=7).
#include <stdexcept>

#include "kernels/stencil/fill.cuh"
#include "kernels/stencil/index.cuh"
#include "kernels/stencil/launch.cuh"
#include "kernels/stencil/variants.hpp"

namespace memhier::stencil::detail {
namespace {

__constant__ float c_filter[kMaxK * kMaxK];

constexpr int kBX = 32;                        // tile width: one warp per tile row
constexpr int kBY = kSharedTileThreads / kBX;  // tile height: 16

template <int K>
__global__ void __launch_bounds__(kSharedTileThreads)
    shared_tile_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols,
                       long long col_tiles, long long tiles) {
  constexpr int R = K / 2;
  constexpr int SH = kBY + K - 1, SW = kBX + K - 1;
  __shared__ float tile[SH * SW];
  const int tx = static_cast<int>(threadIdx.x) % kBX, ty = static_cast<int>(threadIdx.x) / kBX;
  for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
    const long long r0 = tile_row0(t, col_tiles, kBY), c0 = tile_col0(t, col_tiles, kBX);
    fill_tile_clamped<kSharedTileThreads, SH, SW>(tile, in, rows, cols, r0 - R, c0 - R);
    __syncthreads();
    float acc = 0.f;
#pragma unroll
    for (int i = 0; i < K; ++i)
#pragma unroll
      for (int j = 0; j < K; ++j)
        acc = fmaf(c_filter[i * K + j], tile[tile_word(ty + i, tx + j, SW)], acc);
    const long long r = r0 + ty, c = c0 + tx;
    if (r < rows && c < cols) out[element_index(r, c, cols)] = acc;
    __syncthreads();  // the next tile's fill overwrites words slower warps may still read
  }
}

template <int K>
void launch(const Args& a) {
  launch_tiles<K>(a, c_filter, shared_tile_kernel<K>, kBX, kBY, kSharedTileThreads);
}

}  // namespace

void run_shared_tile(const Args& a) {
  with_filter_size(a.k, [&](auto k) { launch<decltype(k)::value>(a); });
}

const void* shared_tile_symbol(int k) {
  return symbol_for_filter_size(k,
                                [](auto kk) { return &shared_tile_kernel<decltype(kk)::value>; });
}

}  // namespace memhier::stencil::detail
