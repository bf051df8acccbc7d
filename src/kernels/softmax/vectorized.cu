// Rung 4, float4: 16-byte loads and stores (a quarter of the load instructions) where every
// row is 16-byte aligned; the same kernel with scalar accesses otherwise.
#include <cuda_runtime.h>

#include "memhier/core/check.hpp"
#include "three_pass.cuh"
#include "variants.hpp"

namespace memhier::softmax::detail {
namespace {

constexpr int kThreads = 256;

template <int PACK>
__global__ void vectorized_kernel(const float* __restrict__ in, float* __restrict__ out, int rows,
                                  int cols) {
  three_pass_row<PACK, 1>(in, out, rows, cols);
}

}  // namespace

void launch_vectorized(const Problem& p) {
  if (p.vec4)
    vectorized_kernel<4><<<p.rows, kThreads, 0, p.stream>>>(p.in, p.out, p.rows, p.cols);
  else
    vectorized_kernel<1><<<p.rows, kThreads, 0, p.stream>>>(p.in, p.out, p.rows, p.cols);
  MEMHIER_CHECK_LAUNCH();
}

const void* vectorized_symbol() {
  return reinterpret_cast<const void*>(&vectorized_kernel<4>);
}

}  // namespace memhier::softmax::detail
