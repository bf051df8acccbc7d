// Rung 4: 32 per-lane shared copies (bank = lane: conflict-free for any input), 16-byte
// loads with the next tile in flight, one block of 1024 threads per SM. See
// lane_privatized.cuh.
#include "kernels/histogram/lane_privatized.cuh"

namespace memhier::histogram::detail {

void launch_lane_privatized(const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                            cudaStream_t s) {
  launch_lane<std::uint8_t, false>(in, n, bins, s);
}
void launch_lane_privatized(const std::int32_t* in, std::size_t n, std::uint32_t* bins,
                            cudaStream_t s) {
  launch_lane<std::int32_t, false>(in, n, bins, s);
}
const void* lane_privatized_symbol() {
  return reinterpret_cast<const void*>(&lane_privatized_kernel<std::uint8_t, false>);
}

}  // namespace memhier::histogram::detail
