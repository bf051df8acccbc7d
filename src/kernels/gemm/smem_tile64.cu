// Rung 5, smem_tile64: 64 x 64 shared-memory tiles (32 KiB per block, 1024 threads, 4
// outputs per thread since 64 x 64 threads exceed the block limit): 64x reuse.
#include "smem_tile.cuh"

namespace memhier::gemm::detail {
namespace {

constexpr int kTile = 64, kRows = 4;

void launch(const Params& p, cudaStream_t s) {
  launch_smem_tile<kTile, 0, kRows>(p, s, "smem_tile64");
}

const void* symbol() {
  return reinterpret_cast<const void*>(smem_tile_kernel<kTile, 0, kRows>);
}

}  // namespace

Launcher smem_tile64_launcher() {
  return {launch, symbol, kTile * kTile / kRows, 0};
}

}  // namespace memhier::gemm::detail
