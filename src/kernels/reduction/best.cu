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

// Below 4 Mi elements (16 MB, well inside L2's 50 MB) latency rules; above, HBM
// streaming does. Revisit with the first H100 run of `memhier bench reduction`.
Variant choose_best(std::size_t n) {
  constexpr std::size_t kLargeFrom = std::size_t(1) << 22;
  return n < kLargeFrom ? Variant::best_b512_v4x2 : Variant::best_b256_v4x8_l2pf;
}

}  // namespace memhier::reduction::detail
