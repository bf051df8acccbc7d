// Rungs 8 and 9: two configurations of the single-pass kernel, registered separately so a
// GPU run can compare them; `best` (the last rung) runs the one tuned for the card and n
// (tuner.cpp). Both take their ticket with one acquire-release atomic, not rung 7's two fences.
//  - best_b512_v4x4: 512 threads, 4 float4 (64 bytes) per thread per step, ld.global.nc:
//    a grid step of resident blocks covers about 17 MB on an H100 (4 blocks per SM).
//  - best_b256_v4x8_l2pf: 256 threads, 8 float4 (128 bytes) in flight per thread per
//    step, loads hinted L1::no_allocate + L2::256B so L2 fetches whole 256-byte blocks
//    from HBM: aimed at arrays far larger than L2, where sustained HBM reads are the time.
#include "grid_stride.cuh"

namespace memhier::reduction::detail {

GridConfig best_b512_v4x4_config() {
  return {512, 4,
          reinterpret_cast<const void*>(
              single_pass_kernel<SumOp, 512, 4, Load::ldg, Ticket::acq_rel>)};
}

GridConfig best_b256_v4x8_l2pf_config() {
  return {256, 8,
          reinterpret_cast<const void*>(
              single_pass_kernel<SumOp, 256, 8, Load::l2_prefetch_256, Ticket::acq_rel>)};
}

void launch_best_b512_v4x4(const Launch& l) {
  launch_single_pass_config<512, 4, Load::ldg, Ticket::acq_rel>(l);
}

void launch_best_b256_v4x8_l2pf(const Launch& l) {
  launch_single_pass_config<256, 8, Load::l2_prefetch_256, Ticket::acq_rel>(l);
}

}  // namespace memhier::reduction::detail
