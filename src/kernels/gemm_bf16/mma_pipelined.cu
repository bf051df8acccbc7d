// Rung 5: the swizzled tiles fed by a 4-stage cp.async pipeline in 64 KiB of dynamic shared
// memory (opted in above 48 KiB): three k-tiles in flight while one is multiplied.
#include "mma_tile.cuh"

namespace memhier::gemm_bf16::detail {
namespace {

void launch(const Params& p, cudaStream_t s) {
  launch_mma<Layout::swizzled, 4>(p, s, "mma_pipelined");
}

}  // namespace

Launcher mma_pipelined_launcher() {
  return mma_launcher_for<Layout::swizzled, 4>(launch);
}

}  // namespace memhier::gemm_bf16::detail
