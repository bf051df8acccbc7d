// Rung 1: one output per thread, the filter in plain global memory and every input tap
// read from global memory (L1/L2 catch the K² overlapping reads, nothing else does).
#include <stdexcept>

#include "kernels/stencil/index.cuh"
#include "kernels/stencil/variants.hpp"
#include "memhier/core/check.hpp"

namespace memhier::stencil::detail {
namespace {

// The filter as an ordinary global-memory array (not __constant__): each tap is a global load.
__device__ float g_filter[kMaxK * kMaxK];

constexpr int kBX = 32;                   // a warp spans 32 consecutive columns: coalesced
constexpr int kBY = kNaiveThreads / kBX;  // 8 rows per block

template <int K>
__global__ void __launch_bounds__(kNaiveThreads)
    naive_global_kernel(const float* in, float* out, int rows, int cols, long long col_tiles,
                        long long tiles) {
  constexpr int R = K / 2;
  const int tx = static_cast<int>(threadIdx.x) % kBX, ty = static_cast<int>(threadIdx.x) / kBX;
  for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
    const long long r = tile_row0(t, col_tiles, kBY) + ty;
    const long long c = tile_col0(t, col_tiles, kBX) + tx;
    if (r >= rows || c >= cols) continue;
    float acc = 0.f;
    for (int i = 0; i < K; ++i) {
      const long long ir = clamp_coord(r + i - R, rows);
      for (int j = 0; j < K; ++j)
        acc = fmaf(g_filter[i * K + j], in[element_index(ir, clamp_coord(c + j - R, cols), cols)],
                   acc);
    }
    out[element_index(r, c, cols)] = acc;
  }
}

template <int K>
void launch(const Args& a) {
  MEMHIER_CUDA(cudaMemcpyToSymbolAsync(g_filter, a.filter, sizeof(float) * K * K, 0,
                                       cudaMemcpyHostToDevice, a.stream));
  const long long col_tiles = ceil_div(a.cols, kBX);
  const long long tiles = col_tiles * ceil_div(a.rows, kBY);
  naive_global_kernel<K><<<grid_for_tiles(tiles), kNaiveThreads, 0, a.stream>>>(
      a.in, a.out, a.rows, a.cols, col_tiles, tiles);
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace

void run_naive_global(const Args& a) {
  switch (a.k) {
    case 3:
      return launch<3>(a);
    case 5:
      return launch<5>(a);
    case 7:
      return launch<7>(a);
    default:
      throw std::invalid_argument("stencil filter size must be 3, 5 or 7.");
  }
}

const void* naive_global_symbol(int k) {
  switch (k) {
    case 3:
      return reinterpret_cast<const void*>(&naive_global_kernel<3>);
    case 5:
      return reinterpret_cast<const void*>(&naive_global_kernel<5>);
    case 7:
      return reinterpret_cast<const void*>(&naive_global_kernel<7>);
    default:
      return nullptr;
  }
}

}  // namespace memhier::stencil::detail
