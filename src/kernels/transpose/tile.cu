// Rung 2, tile: a 32x32 shared tile makes both the read and the write coalesced, but
// the unpadded [32][32] layout puts a tile column in one bank: the column read that
// feeds the write is a 32-way bank conflict (tile_word in index.cuh).
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>

#include "kernels/transpose/tiled.cuh"
#include "kernels/transpose/variants.hpp"
#include "memhier/core/check.hpp"

namespace memhier::transpose::detail {
namespace {

__global__ void __launch_bounds__(kBlockThreads)
    tile_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols,
                unsigned tiles_x, unsigned tiles) {
  __shared__ float tile[TileLayout::kWords];
  tiled_transpose<TileLayout>(tile, in, out, rows, cols, tiles_x, tiles);
}

}  // namespace

const void* tile_symbol() {
  return reinterpret_cast<const void*>(&tile_kernel);
}

void launch_tile(const float* in, float* out, int rows, int cols, cudaStream_t s) {
  const TileGrid g = tile_grid(rows, cols, index::kTile, index::kTile);
  const unsigned grid = std::min<unsigned>(g.count, INT_MAX);  // one tile per block
  tile_kernel<<<grid, dim3(index::kTile, index::kBlockRows), 0, s>>>(in, out, rows, cols, g.tiles_x,
                                                                     g.count);
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace memhier::transpose::detail
