// Rung 11, double_buffered: 128 x 128 x 8 block tile, 8 x 8 outputs per thread as four
// 4 x 4 quadrants (conflict-free LDS.128 fragment reads), A transposed and padded, two
// shared stages with the next k-tile prefetched into registers during the FMAs, grouped
// block rasterization for L2 reuse. The default `best` for large shapes.
#include "double_buffered.cuh"

namespace memhier::gemm::detail {
namespace {

using Tile = BlockTile<128, 128, 8, 2, 2, /*SWZ=*/false>;
constexpr int kMinBlocks = 2;  // <= 128 registers: two blocks (16 warps) per SM
// Bounds-checked loads every k-tile: under this register cap the stepped pointers
// (double_buffered.cuh) ran slower on the H200 (4096^3: 3.06 against 2.89 ms).
constexpr bool kStep = false;

void launch(const Params& p, cudaStream_t s) {
  launch_double_buffered<Tile, kMinBlocks, kStep>(p, s, "double_buffered");
}

}  // namespace

Launcher double_buffered_launcher() {
  return double_buffered_launcher_for<Tile, kMinBlocks, kStep>(launch);
}

}  // namespace memhier::gemm::detail
