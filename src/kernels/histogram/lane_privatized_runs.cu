// Rung 5: rung 4 plus run detection: a 16-byte vector holding one value (16 equal bytes,
// or 4 equal int32) is counted with a single atomic instead of 16 (or 4). Uniform input
// pays a few compares per vector; runs of equal values (degenerate input, flat image
// regions) need 16x fewer shared atomics. See lane_privatized.cuh.
#include "kernels/histogram/lane_privatized.cuh"

namespace memhier::histogram::detail {

void launch_lane_privatized_runs(const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                                 cudaStream_t s) {
  launch_lane<std::uint8_t, true>(in, n, bins, s);
}
void launch_lane_privatized_runs(const std::int32_t* in, std::size_t n, std::uint32_t* bins,
                                 cudaStream_t s) {
  launch_lane<std::int32_t, true>(in, n, bins, s);
}
const void* lane_privatized_runs_symbol() {
  return reinterpret_cast<const void*>(&lane_privatized_kernel<std::uint8_t, true>);
}

}  // namespace memhier::histogram::detail
