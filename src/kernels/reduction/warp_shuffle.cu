// Rung 5, the last warp by shuffle (Harris's kernel 5, "unroll the last warp", done the
// modern way): first add during load, the sequential shared-memory tree while more than
// 32 partials remain, then one warp adds the final 64 words and finishes with
// __shfl_down_sync: no barriers and no shared-memory traffic for the last 5 steps.
#include "index.cuh"
#include "multi_pass.cuh"
#include "reduce_ops.cuh"

namespace memhier::reduction::detail {
namespace {

constexpr std::size_t kElems = kPairElems;
static_assert(kClassicBlock >= 64, "the shuffle rung needs at least two warps");

template <class OpT>
__global__ void __launch_bounds__(kClassicBlock)
    warp_shuffle_kernel(const float* in, std::size_t n, float* out) {
  __shared__ float s[kClassicBlock];
  const unsigned tid = threadIdx.x;
  const std::size_t i = index::classic_element(blockIdx.x, tid, kElems);
  float v = i < n ? in[i] : OpT::identity();
  if (i + kClassicBlock < n) v = OpT::apply(v, in[i + kClassicBlock]);
  s[tid] = v;
  __syncthreads();
  for (unsigned st = kClassicBlock / 2; st > 32; st >>= 1) {
    if (tid < st) {
      const unsigned w = index::sequential_word(tid);
      s[w] = OpT::apply(s[w], s[w + st]);
    }
    __syncthreads();
  }
  if (tid < 32) {
    v = warp_reduce<OpT>(OpT::apply(s[tid], s[tid + 32]));
    if (tid == 0) out[blockIdx.x] = v;
  }
}

}  // namespace

void launch_warp_shuffle(const Launch& l) {
  run_passes(l.op == Op::sum ? warp_shuffle_kernel<SumOp> : warp_shuffle_kernel<MaxOp>, kElems, l);
}

const void* warp_shuffle_symbol() {
  return reinterpret_cast<const void*>(warp_shuffle_kernel<SumOp>);
}

}  // namespace memhier::reduction::detail
