// Rung 3, smem_tile16: 16 x 16 shared-memory tiles (2 KiB per block, 256 threads).
// Each element of A and B is read from global memory once per block and reused 16 times.
#include "smem_tile.cuh"

namespace memhier::gemm::detail {
namespace {

constexpr int kTile = 16, kRows = 1;

void launch(const Params& p, cudaStream_t s) {
  launch_smem_tile<kTile, 0, kRows>(p, s, "smem_tile16");
}

const void* symbol() {
  return reinterpret_cast<const void*>(smem_tile_kernel<kTile, 0, kRows>);
}

}  // namespace

Launcher smem_tile16_launcher() {
  return {launch, symbol, kTile * kTile / kRows, 0};
}

}  // namespace memhier::gemm::detail
