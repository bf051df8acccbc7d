// Rung 3, padded: the same tile as [32][33]; the column stride of 33 words is coprime
// with the 32 banks, so the column read is conflict-free (padded_word in index.cuh).
// Also the fallback of the float4 rungs for unaligned or odd shapes.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>

#include "kernels/transpose/tiled.cuh"
#include "kernels/transpose/variants.hpp"
#include "memhier/core/check.hpp"

namespace memhier::transpose::detail {
namespace {

__global__ void __launch_bounds__(kBlockThreads)
    padded_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols,
                  unsigned tiles_x, unsigned tiles) {
  __shared__ float tile[PaddedLayout::kWords];
  tiled_transpose<PaddedLayout>(tile, in, out, rows, cols, tiles_x, tiles);
}

}  // namespace

const void* padded_symbol() {
  return reinterpret_cast<const void*>(&padded_kernel);
}

void launch_padded(const float* in, float* out, int rows, int cols, cudaStream_t s) {
  const TileGrid g = tile_grid(rows, cols, index::kTile, index::kTile);
  const unsigned grid = std::min<unsigned>(g.count, INT_MAX);  // one tile per block
  padded_kernel<<<grid, dim3(index::kTile, index::kBlockRows), 0, s>>>(in, out, rows, cols,
                                                                       g.tiles_x, g.count);
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace memhier::transpose::detail
