// Rung 2, float2: one 8-byte vector per thread (half the instructions of scalar). A scalar
// head brings x and y to an 8-byte boundary together; a scalar tail finishes odd lengths.
#include "memhier/core/check.hpp"
#include "ops.cuh"
#include "variants.hpp"

namespace memhier::elementwise::detail {
namespace {

template <class Op>
__global__ void __launch_bounds__(kBlock)
    float2_kernel(Op op, const float* __restrict__ x, float* __restrict__ y, Split sp) {
  const std::size_t t = flat_index(blockIdx.x, blockDim.x, threadIdx.x);
  if (t < sp.nvec) {
    const float2* xv = reinterpret_cast<const float2*>(x + sp.head);
    float2* yv = reinterpret_cast<float2*>(y + sp.head);
    const float2 xr = xv[t];
    const float2 yr = Op::kReadsY ? yv[t] : make_float2(0.f, 0.f);
    yv[t] = apply2(op, xr, yr);
  }
  split_edges(op, x, y, sp, t);
}

}  // namespace

void launch_float2(OpArgs op, const float* x, float* y, const Split& sp, cudaStream_t s) {
  const unsigned grid = blocks_for(sp.nvec);
  if (op.op == Op::axpy)
    float2_kernel<<<grid, kBlock, 0, s>>>(AxpyOp{op.a}, x, y, sp);
  else
    float2_kernel<<<grid, kBlock, 0, s>>>(CopyOp{}, x, y, sp);
  MEMHIER_CHECK_LAUNCH();
}

const void* float2_symbol(Op op) {
  return op == Op::axpy ? reinterpret_cast<const void*>(float2_kernel<AxpyOp>)
                        : reinterpret_cast<const void*>(float2_kernel<CopyOp>);
}

}  // namespace memhier::elementwise::detail
