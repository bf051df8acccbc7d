// The claims catalogue, Hopper's own tiers: what the seeds say of TMA, thread-block clusters
// and distributed shared memory, the two L2 partitions and the tensor cores, with the probe or
// ladder that checks each. Cited like the rest of the catalogue (see catalogue.cpp).
#include "stated.hpp"

namespace memhier::claims {

std::vector<Claim> hopper_claims() {
  return {
      // ---- TMA and bulk copies (probe tma; the transpose and elementwise TMA rungs).

      // ---- Clusters and distributed shared memory (probe dsmem).

      // ---- The two L2 partitions (probe l2-partitions).

      // ---- Gathers, random working sets, local memory (probes gather, random, local).

      // ---- Tensor cores (the gemm_bf16 ladder, the roofline).
  };
}

}  // namespace memhier::claims
