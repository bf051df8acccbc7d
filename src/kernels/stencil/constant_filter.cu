// Rung 2: rung 1 with the filter in __constant__ memory: every lane of a warp reads the same
// tap at the same time, so the constant cache broadcasts it (one read per warp, not 32).
#include "kernels/stencil/per_output.cuh"

namespace memhier::stencil::detail {
namespace {

// The filter in constant memory: uniform index across the warp = broadcast.
__constant__ float c_filter[kMaxK * kMaxK];

struct ConstantFilter {
  __device__ static float tap(int i) { return c_filter[i]; }
};

}  // namespace

void run_constant_filter(const Args& a) {
  with_filter_size(
      a.k, [&](auto k) { launch_per_output<decltype(k)::value, ConstantFilter>(a, c_filter); });
}

const void* constant_filter_symbol(int k) {
  return symbol_for_filter_size(
      k, [](auto kk) { return &per_output_kernel<decltype(kk)::value, ConstantFilter>; });
}

}  // namespace memhier::stencil::detail
