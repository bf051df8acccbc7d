// The host side every stencil rung shares: upload the K×K filter, number the tiles, launch
// the grid-stride kernel over them and check the launch.
#pragma once

#include <cuda_runtime.h>

#include "kernels/stencil/index.cuh"
#include "kernels/stencil/variants.hpp"
#include "memhier/core/check.hpp"

namespace memhier::stencil::detail {

/// Copies a.filter (K*K floats) into `filter_symbol`, then launches `kernel` with `threads`
/// per block over the tile_w × tile_h tiles of the image; `extra` follows the tile count.
template <int K, typename Symbol, typename... Extra>
void launch_tiles(const Args& a, const Symbol& filter_symbol,
                  void (*kernel)(const float*, float*, int, int, long long, long long, Extra...),
                  int tile_w, int tile_h, int threads, Extra... extra) {
  MEMHIER_CUDA(cudaMemcpyToSymbolAsync(filter_symbol, a.filter, sizeof(float) * K * K, 0,
                                       cudaMemcpyHostToDevice, a.stream));
  const long long col_tiles = ceil_div(a.cols, tile_w);
  const long long tiles = col_tiles * ceil_div(a.rows, tile_h);
  kernel<<<grid_for_tiles(tiles), threads, 0, a.stream>>>(a.in, a.out, a.rows, a.cols, col_tiles,
                                                          tiles, extra...);
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace memhier::stencil::detail
