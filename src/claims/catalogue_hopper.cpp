// The claims catalogue, Hopper's own tiers: what the seeds say of TMA, thread-block clusters
// and distributed shared memory, the two L2 partitions and the tensor cores, with the probe or
// ladder that checks each. Cited like the rest of the catalogue (see catalogue.cpp).
#include "stated.hpp"

namespace memhier::claims {

std::vector<Claim> hopper_claims() {
  return {
      // ---- TMA and bulk copies (probe tma; the transpose and elementwise TMA rungs).
      checked("tma-hopper-adds-bulk-copies",
              "001 §Memory Subsystem Evolution: V100, A100, H100; 002 §cp.async.bulk (Hopper)",
              "Hopper keeps cp.async and extends it with cp.async.bulk through the Tensor Memory "
              "Accelerator (the table's async copy row: 'Yes (enhanced TMA)')",
              {"tma"},
              {Tolerance::inside_range(),
               "a capability: each of the three copy instructions runs and lands the right "
               "bytes, or it does not"}),
      checked("tma-offloads-addressing", "001 §Architecture Comparison: V100 vs A100 vs H100",
              "TMA offloads complex addressing patterns from the SM entirely", {"tma"},
              {Tolerance::at_least(0.9),
               "one issuing thread per block must keep at least 90 % of the pace of 256 "
               "threads computing every 16-byte address, or the SM was not relieved of work "
               "that mattered"}),
      checked("tma-tile-one-instruction-bounds", "001 §Async Copy: cp.async (Ampere+)",
              "TMA loads a multi-dimensional tile global to shared in a single instruction, "
              "handling all the address calculation and boundary checking in hardware",
              {"tma"},
              {Tolerance::per_figure(),
               "two counts, each exactly 0: elements a box loaded across a tensor's corner got "
               "wrong (the tensor's inside, zeros outside), and elements its store got wrong"}),
      checked("tma-swizzle-oob-in-hardware", "002 §cp.async.bulk (Hopper)",
              "TMA copies a whole 2-D tile in a single instruction, handling address "
              "computation, swizzling and out-of-bounds clamping in hardware",
              {"tma"},
              {Tolerance::per_figure(),
               "three counts, each exactly 0: words a 128-byte-swizzled load misplaced, and the "
               "edge box's wrong loaded and stored elements"}),

      // ---- Clusters and distributed shared memory (probe dsmem).

      // ---- The two L2 partitions (probe l2-partitions).

      // ---- Gathers, random working sets, local memory (probes gather, random, local).

      // ---- Tensor cores (the gemm_bf16 ladder, the roofline).
  };
}

}  // namespace memhier::claims
