// Rung 4, swizzled: an unpadded [32][32] tile with element (r, c) stored at column c ^ r:
// rows and columns of the tile both spread over 32 banks, with no padding words
// (swizzled_word in index.cuh).
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>

#include "kernels/transpose/tiled.cuh"
#include "kernels/transpose/variants.hpp"
#include "memhier/core/check.hpp"

namespace memhier::transpose::detail {
namespace {

__global__ void __launch_bounds__(kBlockThreads)
    swizzled_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols,
                    unsigned tiles_x, unsigned tiles) {
  __shared__ float tile[SwizzledLayout::kWords];
  tiled_transpose<SwizzledLayout>(tile, in, out, rows, cols, tiles_x, tiles);
}

}  // namespace

const void* swizzled_symbol() {
  return reinterpret_cast<const void*>(&swizzled_kernel);
}

void launch_swizzled(const float* in, float* out, int rows, int cols, cudaStream_t s) {
  const TileGrid g = tile_grid(rows, cols, index::kTile, index::kTile);
  const unsigned grid = std::min<unsigned>(g.count, INT_MAX);  // one tile per block
  swizzled_kernel<<<grid, dim3(index::kTile, index::kBlockRows), 0, s>>>(in, out, rows, cols,
                                                                         g.tiles_x, g.count);
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace memhier::transpose::detail
