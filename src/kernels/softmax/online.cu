// Rung 6, online softmax (Milakov & Gimelshein): the max and the sum in one read, the sum
// rescaled by exp(old max - new max) whenever the max grows; a second read writes the
// output. Two reads and one write per element instead of rung 5's two reads, two writes
// and one read back; block per row, float4, four loads in flight per thread.
#include <cuda_runtime.h>

#include "memhier/core/check.hpp"
#include "two_pass.cuh"
#include "variants.hpp"

namespace memhier::softmax::detail {
namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;

template <int PACK>
__global__ void __launch_bounds__(kThreads, 4)
    online_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  two_pass_row<PACK, kUnroll, false>(in, out, rows, cols, cols / PACK);
}

}  // namespace

void launch_online(const Problem& p) {
  if (p.vec4)
    online_kernel<4><<<p.rows, kThreads, 0, p.stream>>>(p.in, p.out, p.rows, p.cols);
  else
    online_kernel<1><<<p.rows, kThreads, 0, p.stream>>>(p.in, p.out, p.rows, p.cols);
  MEMHIER_CHECK_LAUNCH();
}

const void* online_symbol() {
  return reinterpret_cast<const void*>(&online_kernel<4>);
}

}  // namespace memhier::softmax::detail
