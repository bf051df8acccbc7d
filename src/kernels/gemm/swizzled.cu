// Rung 15, swizzled: cp_async_3stage with an XOR-swizzled A tile instead of padding: the
// k-group of a row flips bits of its row index (index.cuh), which spreads the transposing
// stores over all 32 banks without the 4 padding floats per row, and keeps each float4 of
// fragments contiguous for LDS.128.
#include "cp_async.cuh"

namespace memhier::gemm::detail {
namespace {

using Tile = BlockTile<128, 128, 8, 2, 2, /*SWZ=*/true>;
constexpr int kStages = 3, kMinBlocks = 2;

void launch(const Params& p, cudaStream_t s) {
  launch_cp_async<Tile, kStages, kMinBlocks>(p, s, "swizzled");
}

}  // namespace

Launcher swizzled_launcher() {
  return cp_async_launcher_for<Tile, kStages, kMinBlocks>(launch);
}

}  // namespace memhier::gemm::detail
