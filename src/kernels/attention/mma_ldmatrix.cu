// Rung 3: mma.sync m16n8k16 fed by ldmatrix from swizzled tiles, P in registers between the
// two matmuls; each K/V tile loaded through registers between two barriers.
#include "mma.cuh"

namespace memhier::attention::detail {

void launch_mma_ldmatrix(const Problem& p) {
  if (p.s.head_dim == 64) return launch_mma<64, 1>(p, "mma_ldmatrix");
  launch_mma<128, 1>(p, "mma_ldmatrix");
}

Geometry mma_ldmatrix_geometry(int head_dim) {
  return {MmaTile::kRows, MmaTile::kKeys, MmaTile::kThreads,
          head_dim == 64 ? mma_smem_bytes<64, 1>() : mma_smem_bytes<128, 1>(), KvLoad::plain};
}

const void* mma_ldmatrix_symbol() {
  return reinterpret_cast<const void*>(mma_attention_kernel<128, 1>);
}

}  // namespace memhier::attention::detail
