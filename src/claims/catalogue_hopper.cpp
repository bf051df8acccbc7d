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
      checked("fp16-tensor-590-flop-per-byte", "001 §The 1000x Bandwidth Gap",
              "H100: 1,979 TFLOP/s fp16 on tensor cores against 3,350 GB/s, ~590 FLOP per byte",
              {"bench-gemm_bf16"},
              {Tolerance::within_percent(25),
               "a ratio of two datasheet figures, judged as this card's measured balance (its "
               "fastest bf16 GEMM over its copy bandwidth): the default ±25 %"}),
  };
}

}  // namespace memhier::claims
