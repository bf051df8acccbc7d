// Rung 1, interleaved addressing with divergent branching (Harris's kernel 1): at
// stride s = 1, 2, 4, ... the threads with tid % (2s) == 0 add their neighbour s words
// away. Half the threads of every warp idle from the first step on, and the warps stay
// resident until the last step: the divergence this ladder starts by removing.
#include "index.cuh"
#include "multi_pass.cuh"
#include "reduce_ops.cuh"

namespace memhier::reduction::detail {
namespace {

template <class OpT>
__global__ void __launch_bounds__(kClassicBlock)
    interleaved_divergent_kernel(const float* in, std::size_t n, float* out) {
  __shared__ float s[kClassicBlock];
  const unsigned tid = threadIdx.x;
  const std::size_t i = index::classic_element(blockIdx.x, tid, kClassicBlock);
  s[tid] = i < n ? in[i] : OpT::identity();
  __syncthreads();
  for (unsigned st = 1; st < kClassicBlock; st *= 2) {
    if (index::divergent_active(tid, st)) {
      const unsigned w = index::divergent_word(tid);
      s[w] = OpT::apply(s[w], s[w + st]);
    }
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

}  // namespace

void launch_interleaved_divergent(const Launch& l) {
  run_passes(
      l.op == Op::sum ? interleaved_divergent_kernel<SumOp> : interleaved_divergent_kernel<MaxOp>,
      kClassicBlock, l);
}

const void* interleaved_divergent_symbol() {
  return reinterpret_cast<const void*>(interleaved_divergent_kernel<SumOp>);
}

}  // namespace memhier::reduction::detail
