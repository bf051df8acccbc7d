// Rung 1, scalar: one element per thread, 4-byte loads and stores. Coalesced (a warp
// touches 128 contiguous bytes per instruction) but four times the instructions of float4.
#include "memhier/core/check.hpp"
#include "ops.cuh"
#include "variants.hpp"

namespace memhier::elementwise::detail {
namespace {

template <class Op>
__global__ void __launch_bounds__(kBlock)
    scalar_kernel(Op op, const float* __restrict__ x, float* __restrict__ y, std::size_t n) {
  const std::size_t i = flat_index(blockIdx.x, blockDim.x, threadIdx.x);
  if (i < n) scalar_element(op, x, y, i);
}

}  // namespace

void launch_scalar(OpArgs op, const float* x, float* y, std::size_t n, cudaStream_t s) {
  const unsigned grid = blocks_for(n);
  if (op.op == Op::axpy)
    scalar_kernel<<<grid, kBlock, 0, s>>>(AxpyOp{op.a}, x, y, n);
  else
    scalar_kernel<<<grid, kBlock, 0, s>>>(CopyOp{}, x, y, n);
  MEMHIER_CHECK_LAUNCH();
}

const void* scalar_symbol(Op op) {
  return op == Op::axpy ? reinterpret_cast<const void*>(scalar_kernel<AxpyOp>)
                        : reinterpret_cast<const void*>(scalar_kernel<CopyOp>);
}

}  // namespace memhier::elementwise::detail
