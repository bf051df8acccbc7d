// Rung 1, naive: each thread copies in[r][c] to out[c][r]. Reads are coalesced (lanes
// along an input row); writes are strided by `rows` elements, one 32-byte sector per lane.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>

#include "kernels/transpose/index.cuh"
#include "kernels/transpose/variants.hpp"
#include "memhier/core/check.hpp"

namespace memhier::transpose::detail {
namespace {

__global__ void __launch_bounds__(kBlockThreads)
    naive_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols,
                 unsigned tiles_x, unsigned tiles) {
  const int tx = static_cast<int>(threadIdx.x);
  const int ty = static_cast<int>(threadIdx.y);
  for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x) {
    long long row0 = 0, col0 = 0;
    index::tile_origin(t, tiles_x, index::kTile, index::kTile, &row0, &col0);
    const long long c = col0 + tx;
#pragma unroll
    for (int k = 0; k < index::kTile; k += index::kBlockRows) {
      const long long r = row0 + ty + k;
      if (r < rows && c < cols)
        out[index::out_offset(r, c, rows)] = in[index::in_offset(r, c, cols)];
    }
  }
}

}  // namespace

const void* naive_symbol() {
  return reinterpret_cast<const void*>(&naive_kernel);
}

void launch_naive(const float* in, float* out, int rows, int cols, cudaStream_t s) {
  const TileGrid g = tile_grid(rows, cols, index::kTile, index::kTile);
  const unsigned grid = std::min<unsigned>(g.count, INT_MAX);  // one tile per block
  naive_kernel<<<grid, dim3(index::kTile, index::kBlockRows), 0, s>>>(in, out, rows, cols,
                                                                      g.tiles_x, g.count);
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace memhier::transpose::detail
