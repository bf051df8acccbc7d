// The claims catalogue, Hopper's own tiers: what the seeds say of TMA, thread-block clusters
// and distributed shared memory, the two L2 partitions and the tensor cores, with the probe or
// ladder that checks each. Cited like the rest of the catalogue (see catalogue.cpp).
#include "stated.hpp"

namespace memhier::claims {

std::vector<Claim> hopper_claims() {
  return {
      // ---- TMA and bulk copies (probe tma; the transpose and elementwise TMA rungs).
      checked(ClaimId::tma_hopper_adds_bulk_copies,
              "001 §Memory Subsystem Evolution: V100, A100, H100; 002 §cp.async.bulk (Hopper)",
              "Hopper keeps cp.async and extends it with cp.async.bulk through the Tensor Memory "
              "Accelerator (the table's async copy row: 'Yes (enhanced TMA)')",
              {probe("tma")},
              {Tolerance::inside_range(),
               "a capability: each of the three copy instructions runs and lands the right "
               "bytes, or it does not"}),
      checked(ClaimId::tma_offloads_addressing,
              "001 §Architecture Comparison: V100 vs A100 vs H100",
              "TMA offloads complex addressing patterns from the SM entirely", {probe("tma")},
              {Tolerance::at_least(0.9),
               "one issuing thread per block must keep at least 90 % of the pace of 256 "
               "threads computing every 16-byte address, or the SM was not relieved of work "
               "that mattered"}),
      checked(ClaimId::tma_tile_one_instruction_bounds, "001 §Async Copy: cp.async (Ampere+)",
              "TMA loads a multi-dimensional tile global to shared in a single instruction, "
              "handling all the address calculation and boundary checking in hardware",
              {probe("tma")},
              {Tolerance::per_figure(),
               "two counts, each exactly 0: elements a box loaded across a tensor's corner got "
               "wrong (the tensor's inside, zeros outside), and elements its store got wrong"}),
      checked(ClaimId::tma_swizzle_oob_in_hardware, "002 §cp.async.bulk (Hopper)",
              "TMA copies a whole 2-D tile in a single instruction, handling address "
              "computation, swizzling and out-of-bounds clamping in hardware",
              {probe("tma")},
              {Tolerance::per_figure(),
               "three counts, each exactly 0: words a 128-byte-swizzled load misplaced, and the "
               "edge box's wrong loaded and stored elements"}),

      // ---- Clusters and distributed shared memory (probe dsmem).
      checked(ClaimId::dsmem_cluster_shares_shared_memory,
              "003 §Cluster-Shared Memory; 004 §Memory and Cache Types",
              "from compute capability 9.0 the threads of a thread-block cluster can access the "
              "shared memory of every block in the cluster, not only their own block's",
              {probe("dsmem")},
              {Tolerance::inside_range(),
               "a yes or no: every remote rank's shared memory read back as that rank wrote it"}),
      checked(ClaimId::dsmem_latency_remote_215_237_cycles_published,
              "published figures: H100 PCIe distributed shared memory microbenchmarks",
              "a load from another block's shared memory in the cluster (ld.shared::cluster) "
              "takes about 215-237 cycles",
              {probe("dsmem")}, kLatency),
      checked(ClaimId::dsmem_latency_own_49_cycles_published,
              "published figures: H100 PCIe distributed shared memory microbenchmarks",
              "a load from the block's own shared memory through the cluster window takes about "
              "49 cycles, against 215-237 for another block's",
              {probe("dsmem")}, kLatency),
      checked(ClaimId::dsmem_all_to_all_3200_400_gbps_published,
              "published figures: H100 PCIe distributed shared memory microbenchmarks",
              "all-to-all distributed shared memory bandwidth is about 3.2 TB/s in clusters of 2 "
              "and falls to about 0.4 TB/s in clusters of 16",
              {probe("dsmem")},
              {Tolerance::per_figure(),
               "two figures, each within a factor of 2: another card (an H100 PCIe, 114 SMs), "
               "another kernel, one hobby measurement"}),

      // ---- The two L2 partitions (probe l2-partitions).
      checked(ClaimId::l2_far_half_1_8x_near_published,
              "published figures: H100 PCIe L2 pointer-chase microbenchmarks",
              "the L2 is two halves: a hit in the half far from the SM costs about 1.8x one in the "
              "near half (about 475 against 265 cycles)",
              {probe("l2-partitions")},
              {Tolerance::within_percent(35),
               "a ratio from another card (an H100 PCIe) and another chase: wider than the "
               "default, yet short of the 1.15x where the map finds one cluster"}),

      // ---- Gathers, random working sets, local memory (probes gather, random, local).

      // ---- Tensor cores (the gemm_bf16 ladder, the roofline).
      checked(ClaimId::fp16_tensor_590_flop_per_byte, "001 §The 1000x Bandwidth Gap",
              "H100: 1,979 TFLOP/s fp16 on tensor cores against 3,350 GB/s, ~590 FLOP per byte",
              {report("roofline")},
              {Tolerance::within_percent(25),
               "a ratio of two datasheet figures, judged as this card's measured ridge (its "
               "fastest bf16 GEMM over its HBM tier's bandwidth): the default ±25 %"}),
  };
}

}  // namespace memhier::claims
