// Rung 4: the shared tile of rung 3, but each thread computes a column of kRowsPerThread
// outputs. Walking down its column, the thread loads each input row's K taps from shared
// memory into registers once and applies them to every output row they touch (up to K):
// shared loads per output fall from K² to K(8+K-1)/8, and the tile grows to 32×64, so the
// halo costs less global traffic too.
#include <stdexcept>

#include "kernels/stencil/fill.cuh"
#include "kernels/stencil/index.cuh"
#include "kernels/stencil/launch.cuh"
#include "kernels/stencil/variants.hpp"

namespace memhier::stencil::detail {
namespace {

__constant__ float c_filter[kMaxK * kMaxK];

constexpr int kBX = 32;                             // tile width: one warp per row of threads
constexpr int kBY = kRegisterBlockedThreads / kBX;  // 8 rows of threads
constexpr int kRowsPerThread = 8;                   // outputs per thread, one column
constexpr int kTileH = kBY * kRowsPerThread;        // 64

template <int K>
__global__ void __launch_bounds__(kRegisterBlockedThreads)
    register_blocked_kernel(const float* __restrict__ in, float* __restrict__ out, int rows,
                            int cols, long long col_tiles, long long tiles) {
  constexpr int R = K / 2;
  constexpr int SH = kTileH + K - 1, SW = kBX + K - 1;
  __shared__ float tile[SH * SW];
  const int tx = static_cast<int>(threadIdx.x) % kBX, ty = static_cast<int>(threadIdx.x) / kBX;
  for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
    const long long r0 = tile_row0(t, col_tiles, kTileH), c0 = tile_col0(t, col_tiles, kBX);
    fill_tile_clamped<kRegisterBlockedThreads, SH, SW>(tile, in, rows, cols, r0 - R, c0 - R);
    __syncthreads();
    float acc[kRowsPerThread];
#pragma unroll
    for (int o = 0; o < kRowsPerThread; ++o) acc[o] = 0.f;
      // Input row ii of the thread's window feeds output row o through filter row i = ii - o.
#pragma unroll
    for (int ii = 0; ii < kRowsPerThread + K - 1; ++ii) {
      float v[K];
#pragma unroll
      for (int j = 0; j < K; ++j) v[j] = tile[tile_word(ty * kRowsPerThread + ii, tx + j, SW)];
#pragma unroll
      for (int o = 0; o < kRowsPerThread; ++o) {
        const int i = ii - o;
        if (i < 0 || i >= K) continue;
#pragma unroll
        for (int j = 0; j < K; ++j) acc[o] = fmaf(c_filter[i * K + j], v[j], acc[o]);
      }
    }
    const long long c = c0 + tx;
#pragma unroll
    for (int o = 0; o < kRowsPerThread; ++o) {
      const long long r = r0 + ty * kRowsPerThread + o;
      if (r < rows && c < cols) out[element_index(r, c, cols)] = acc[o];
    }
    __syncthreads();  // the next tile's fill overwrites words slower warps may still read
  }
}

template <int K>
void launch(const Args& a) {
  launch_tiles<K>(a, c_filter, register_blocked_kernel<K>, kBX, kTileH, kRegisterBlockedThreads);
}

}  // namespace

void run_register_blocked(const Args& a) {
  with_filter_size(a.k, [&](auto k) { launch<decltype(k)::value>(a); });
}

const void* register_blocked_symbol(int k) {
  return symbol_for_filter_size(
      k, [](auto kk) { return &register_blocked_kernel<decltype(kk)::value>; });
}

}  // namespace memhier::stencil::detail
