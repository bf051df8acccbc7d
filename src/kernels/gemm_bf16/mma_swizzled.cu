// Rung 4: rung 3 with XOR-swizzled tiles instead of padded ones (layout.cuh): the same
// conflict-free ldmatrix and 16-byte stores in 16 KiB a stage instead of 18.5.
#include "mma_tile.cuh"

namespace memhier::gemm_bf16::detail {
namespace {

void launch(const Params& p, cudaStream_t s) {
  launch_mma<Layout::swizzled, 1>(p, s, "mma_swizzled");
}

}  // namespace

Launcher mma_swizzled_launcher() {
  return mma_launcher_for<Layout::swizzled, 1>(launch);
}

}  // namespace memhier::gemm_bf16::detail
