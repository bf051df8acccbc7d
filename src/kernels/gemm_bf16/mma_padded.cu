// Rung 3: mma.sync m16n8k16 with ldmatrix from tiles padded by 16 bytes a row (A: 80-byte
// rows, B: 272-byte rows), each k-tile staged through registers between two barriers.
#include "mma_tile.cuh"

namespace memhier::gemm_bf16::detail {
namespace {

void launch(const Params& p, cudaStream_t s) {
  launch_mma<Layout::padded, 1>(p, s, "mma_padded");
}

}  // namespace

Launcher mma_padded_launcher() {
  return mma_launcher_for<Layout::padded, 1>(launch);
}

}  // namespace memhier::gemm_bf16::detail
