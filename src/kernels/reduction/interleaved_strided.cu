// Rung 2, interleaved addressing with strided index (Harris's kernel 2): thread tid
// works on shared word 2*s*tid, so the active threads are packed into the first warps
// (no divergence within a warp) but a warp's words are 2s apart: 2-, 4-, ... up to
// 32-way bank conflicts, which is the next problem.
#include "index.cuh"
#include "multi_pass.cuh"
#include "reduce_ops.cuh"

namespace memhier::reduction::detail {
namespace {

template <class OpT>
__global__ void __launch_bounds__(kClassicBlock)
    interleaved_strided_kernel(const float* in, std::size_t n, float* out) {
  __shared__ float s[kClassicBlock];
  const unsigned tid = threadIdx.x;
  const std::size_t i = index::classic_element(blockIdx.x, tid, kClassicBlock);
  s[tid] = i < n ? in[i] : OpT::identity();
  __syncthreads();
  for (unsigned st = 1; st < kClassicBlock; st *= 2) {
    const unsigned w = index::strided_word(tid, st);
    if (w < kClassicBlock) s[w] = OpT::apply(s[w], s[w + st]);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

}  // namespace

void launch_interleaved_strided(const Launch& l) {
  run_passes(
      l.op == Op::sum ? interleaved_strided_kernel<SumOp> : interleaved_strided_kernel<MaxOp>,
      kClassicBlock, l);
}

const void* interleaved_strided_symbol() {
  return reinterpret_cast<const void*>(interleaved_strided_kernel<SumOp>);
}

}  // namespace memhier::reduction::detail
