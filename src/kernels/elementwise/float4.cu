// Rung 3, float4: one 16-byte vector per thread, the widest load a thread can issue: a warp
// moves 512 contiguous bytes per instruction. A scalar head (up to 3 elements) brings x and
// y to a 16-byte boundary together; a scalar tail finishes lengths that are not a multiple.
#include "memhier/core/check.hpp"
#include "ops.cuh"
#include "variants.hpp"

namespace memhier::elementwise::detail {
namespace {

template <class Op>
__global__ void __launch_bounds__(kBlock)
    float4_kernel(Op op, const float* __restrict__ x, float* __restrict__ y, Split sp) {
  const std::size_t t = flat_index(blockIdx.x, blockDim.x, threadIdx.x);
  if (t < sp.nvec) {
    const float4* xv = reinterpret_cast<const float4*>(x + sp.head);
    float4* yv = reinterpret_cast<float4*>(y + sp.head);
    const float4 xr = xv[t];
    const float4 yr = Op::kReadsY ? yv[t] : make_float4(0.f, 0.f, 0.f, 0.f);
    yv[t] = apply4(op, xr, yr);
  }
  split_edges(op, x, y, sp, t);
}

}  // namespace

void launch_float4(OpArgs op, const float* x, float* y, const Split& sp, cudaStream_t s) {
  const unsigned grid = blocks_for(sp.nvec);
  if (op.op == Op::axpy)
    float4_kernel<<<grid, kBlock, 0, s>>>(AxpyOp{op.a}, x, y, sp);
  else
    float4_kernel<<<grid, kBlock, 0, s>>>(CopyOp{}, x, y, sp);
  MEMHIER_CHECK_LAUNCH();
}

const void* float4_symbol(Op op) {
  return op == Op::axpy ? reinterpret_cast<const void*>(float4_kernel<AxpyOp>)
                        : reinterpret_cast<const void*>(float4_kernel<CopyOp>);
}

}  // namespace memhier::elementwise::detail
