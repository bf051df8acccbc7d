// Rung 6: rung 5 in pairs of blocks (thread-block clusters of 2, sm_90) that merge their
// counts through distributed shared memory before the global atomics, two pairs' worth of
// blocks per SM. See lane_privatized.cuh.
#include "kernels/histogram/lane_privatized.cuh"

namespace memhier::histogram::detail {

void launch_lane_privatized_pairs(const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                                  cudaStream_t s) {
  launch_lane_pairs<std::uint8_t>(in, n, bins, s);
}
void launch_lane_privatized_pairs(const std::int32_t* in, std::size_t n, std::uint32_t* bins,
                                  cudaStream_t s) {
  launch_lane_pairs<std::int32_t>(in, n, bins, s);
}
const void* lane_privatized_pairs_symbol() {
  return reinterpret_cast<const void*>(&lane_privatized_kernel<std::uint8_t, true, 2>);
}

}  // namespace memhier::histogram::detail
