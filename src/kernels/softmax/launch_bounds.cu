// Rung 5, __launch_bounds__(256, 4): the compiler is told the block size and that four
// blocks (1024 threads, half of an H100 SM's 2048) must fit per SM, a budget of 64
// registers a thread, which it spends on unrolling each pass by 4 so four loads are in
// flight per thread. 'GPU Memory Hierarchy' found (256, 2) the sweet spot on the A100
// (50% occupancy).
#include <cuda_runtime.h>

#include "memhier/core/check.hpp"
#include "three_pass.cuh"
#include "variants.hpp"

namespace memhier::softmax::detail {
namespace {

constexpr int kThreads = 256;
constexpr int kMinBlocksPerSm = 4;

template <int PACK>
__global__ void __launch_bounds__(kThreads, kMinBlocksPerSm)
    launch_bounds_kernel(const float* __restrict__ in, float* __restrict__ out, int rows,
                         int cols) {
  three_pass_row<PACK, 4>(in, out, rows, cols);
}

}  // namespace

void launch_launch_bounds(const Problem& p) {
  if (p.vec4)
    launch_bounds_kernel<4><<<p.rows, kThreads, 0, p.stream>>>(p.in, p.out, p.rows, p.cols);
  else
    launch_bounds_kernel<1><<<p.rows, kThreads, 0, p.stream>>>(p.in, p.out, p.rows, p.cols);
  MEMHIER_CHECK_LAUNCH();
}

const void* launch_bounds_symbol() {
  return reinterpret_cast<const void*>(&launch_bounds_kernel<4>);
}

}  // namespace memhier::softmax::detail
