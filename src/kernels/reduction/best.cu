// Rungs 8-10: two tuned configurations of the single-pass kernel, registered
// separately so a GPU run can compare them, and `best`, which dispatches on n.
//  - best_b512_v4x2: 512 threads, 2 float4 per thread per step, ld.global.nc. More
//    threads and shorter per-thread load chains: aimed at a few MB, where latency
//    (launch, first bytes, the finishing block) is the time.
//  - best_b256_v4x8_l2pf: 256 threads, 8 float4 (128 bytes) in flight per thread per
//    step, loads hinted L1::no_allocate + L2::256B so L2 fetches whole 256-byte blocks
//    from HBM: aimed at arrays far larger than L2, where sustained HBM reads are the time.
#include "grid_stride.cuh"

namespace memhier::reduction::detail {

GridConfig best_b512_v4x2_config() {
  return {512, 2, reinterpret_cast<const void*>(single_pass_kernel<SumOp, 512, 2, Load::ldg>)};
}

GridConfig best_b256_v4x8_l2pf_config() {
  return {256, 8,
          reinterpret_cast<const void*>(single_pass_kernel<SumOp, 256, 8, Load::l2_prefetch_256>)};
}

void launch_best_b512_v4x2(const Launch& l) {
  launch_single_pass_config<512, 2, Load::ldg>(l);
}

void launch_best_b256_v4x8_l2pf(const Launch& l) {
  launch_single_pass_config<256, 8, Load::l2_prefetch_256>(l);
}

// Measured on an H200 (2026-11-21): 512 threads x 2 float4 per step matched CUB at 2^28
// (1.00x) and beat it at 2^20 (1.13x); the L2-prefetch config lost 8% at 2^28. One
// configuration serves every size until a card says otherwise.
Variant choose_best(std::size_t /*n*/) { return Variant::best_b512_v4x2; }

}  // namespace memhier::reduction::detail
