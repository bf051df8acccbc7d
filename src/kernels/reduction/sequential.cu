// Rung 3, sequential addressing (Harris's kernel 3): stride s = blockDim/2 down to 1,
// threads tid < s add word tid + s into word tid. Consecutive lanes touch consecutive
// words (conflict-free) and whole warps retire as s halves. Half the threads still do
// nothing after the load: the next rung puts them to work.
#include "index.cuh"
#include "multi_pass.cuh"
#include "reduce_ops.cuh"

namespace memhier::reduction::detail {
namespace {

template <class OpT>
__global__ void __launch_bounds__(kClassicBlock)
    sequential_kernel(const float* in, std::size_t n, float* out) {
  __shared__ float s[kClassicBlock];
  const unsigned tid = threadIdx.x;
  const std::size_t i = index::classic_element(blockIdx.x, tid, kClassicBlock);
  s[tid] = i < n ? in[i] : OpT::identity();
  __syncthreads();
  for (unsigned st = kClassicBlock / 2; st > 0; st >>= 1) {
    if (tid < st) {
      const unsigned w = index::sequential_word(tid);
      s[w] = OpT::apply(s[w], s[w + st]);
    }
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

}  // namespace

void launch_sequential(const Launch& l) {
  run_passes(l.op == Op::sum ? sequential_kernel<SumOp> : sequential_kernel<MaxOp>, kClassicBlock,
             l);
}

const void* sequential_symbol() {
  return reinterpret_cast<const void*>(sequential_kernel<SumOp>);
}

}  // namespace memhier::reduction::detail
