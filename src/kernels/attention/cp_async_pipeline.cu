// Rung 4: rung 3 with the K/V tiles in a cp.async ring: 3 stages of 16 KiB at head_dim 64,
// 2 of 32 KiB at 128 (80 KiB with Q, opted in above 48 KiB).
#include "mma.cuh"

namespace memhier::attention::detail {

/// K/V stages by head_dim: what fits beside Q with two blocks an SM on an sm_80 card.
template <int D>
constexpr int kStages = D == 64 ? 3 : 2;

void launch_cp_async_pipeline(const Problem& p) {
  if (p.s.head_dim == 64) return launch_mma<64, kStages<64>>(p, "cp_async_pipeline");
  launch_mma<128, kStages<128>>(p, "cp_async_pipeline");
}

Geometry cp_async_pipeline_geometry(int head_dim) {
  return {MmaTile::kRows, MmaTile::kKeys, MmaTile::kThreads,
          head_dim == 64 ? mma_smem_bytes<64, kStages<64>>() : mma_smem_bytes<128, kStages<128>>(),
          KvLoad::cp_async};
}

const void* cp_async_pipeline_symbol() {
  return reinterpret_cast<const void*>(mma_attention_kernel<128, kStages<128>>);
}

}  // namespace memhier::attention::detail
