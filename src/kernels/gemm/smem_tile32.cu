// Rung 4, smem_tile32: 32 x 32 shared-memory tiles (8 KiB per block, 1024 threads):
// twice the reuse of the 16 x 16 tile, and a warp reads a full 128-byte row of each tile.
#include "smem_tile.cuh"

namespace memhier::gemm::detail {
namespace {

constexpr int kTile = 32, kRows = 1;

void launch(const Params& p, cudaStream_t s) {
  launch_smem_tile<kTile, 0, kRows>(p, s, "smem_tile32");
}

const void* symbol() {
  return reinterpret_cast<const void*>(smem_tile_kernel<kTile, 0, kRows>);
}

}  // namespace

Launcher smem_tile32_launcher() {
  return {launch, symbol, kTile * kTile / kRows, 0};
}

}  // namespace memhier::gemm::detail
