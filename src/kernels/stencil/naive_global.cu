// Rung 1: one output per thread, the filter in plain global memory and every input tap
// read from global memory (L1/L2 catch the K² overlapping reads, nothing else does).
#include "kernels/stencil/per_output.cuh"

namespace memhier::stencil::detail {
namespace {

// The filter as an ordinary global-memory array (not __constant__): each tap is a global load.
__device__ float g_filter[kMaxK * kMaxK];

struct GlobalFilter {
  __device__ static float tap(int i) { return g_filter[i]; }
};

}  // namespace

void run_naive_global(const Args& a) {
  with_filter_size(
      a.k, [&](auto k) { launch_per_output<decltype(k)::value, GlobalFilter>(a, g_filter); });
}

const void* naive_global_symbol(int k) {
  return symbol_for_filter_size(
      k, [](auto kk) { return &per_output_kernel<decltype(kk)::value, GlobalFilter>; });
}

}  // namespace memhier::stencil::detail
