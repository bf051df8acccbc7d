// The body shared by the scalar shared-memory rungs (tile, padded, swizzled): they differ
// only in where tile element (r, c) lives in shared memory (index.cuh), so the bounds
// logic is written once. 32x8 threads per 32x32 tile, 4 rows per thread; blocks loop
// over tiles when the grid is smaller than the tile count.
#pragma once

#include "kernels/transpose/index.cuh"

namespace memhier::transpose::detail {

/// Layout policies: Words is the shared array size, word(r, c) the element's word.
struct TileLayout {
  static constexpr int kWords = index::kTile * index::kTile;
  __device__ static int word(int r, int c) { return index::tile_word(r, c); }
};
struct PaddedLayout {
  static constexpr int kWords = index::kTile * (index::kTile + 1);
  __device__ static int word(int r, int c) { return index::padded_word(r, c); }
};
struct SwizzledLayout {
  static constexpr int kWords = index::kTile * index::kTile;
  __device__ static int word(int r, int c) { return index::swizzled_word(r, c); }
};

/// Coalesced read of a 32x32 tile into `tile`, then coalesced write of its transpose:
/// the read of tile column tx (lanes vary tx) is where the layouts differ.
template <class Layout>
__device__ __forceinline__ void tiled_transpose(float* tile, const float* __restrict__ in,
                                                float* __restrict__ out, int rows, int cols,
                                                unsigned tiles_x, unsigned tiles) {
  const int tx = static_cast<int>(threadIdx.x);
  const int ty = static_cast<int>(threadIdx.y);
  for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x) {
    long long row0 = 0, col0 = 0;
    index::tile_origin(t, tiles_x, index::kTile, index::kTile, &row0, &col0);
    // Read: lanes along an input row.
    const long long c = col0 + tx;
#pragma unroll
    for (int k = 0; k < index::kTile; k += index::kBlockRows) {
      const long long r = row0 + ty + k;
      if (r < rows && c < cols) tile[Layout::word(ty + k, tx)] = in[index::in_offset(r, c, cols)];
    }
    __syncthreads();
    // Write: lanes along an output row = input column col0+ty+k, input rows row0+tx.
    const long long r = row0 + tx;
#pragma unroll
    for (int k = 0; k < index::kTile; k += index::kBlockRows) {
      const long long cc = col0 + ty + k;
      if (r < rows && cc < cols)
        out[index::out_offset(r, cc, rows)] = tile[Layout::word(tx, ty + k)];
    }
    __syncthreads();  // the next tile overwrites `tile`
  }
}

}  // namespace memhier::transpose::detail
