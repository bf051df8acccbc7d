// Rung 10, cp_async_pipeline: best_b512_v4x4's single pass with its loads staged through
// shared memory by cp.async in a multistage pipeline, as the seed's "custom reduction" (1,600
// to 1,750 GB/s on an A100) used it. Each block strides over tiles of 256 x 2 float4; a tile
// is copied global -> shared with cp.async.cg (16 bytes, L1 bypassed, no register held while
// it is in flight) into one of 4 stages, so 3 tiles are in flight while the oldest is summed.
// Each thread sums only the vectors it copied itself: cp.async.wait_group makes a thread's own
// copies visible to it, so the pipeline needs no barrier.
#include "grid_stride.cuh"

namespace memhier::reduction::detail {
namespace {

constexpr int kBlock = 256;
constexpr int kVecs = 2;    // float4 each thread copies per tile
constexpr int kStages = 4;  // tiles in shared memory: kStages - 1 in flight, one being summed
constexpr std::size_t kTile = static_cast<std::size_t>(kBlock) * kVecs;

/// This thread's share of the n floats at `in`: the scalar head and tail as
/// thread_accumulate peels them, and the float4 tiles blockIdx.x, + gridDim.x, ... through
/// the pipeline. Every stage issued is one commit group (empty past the last tile), so the
/// count of groups in flight is the same in every step.
template <class OpT>
__device__ __forceinline__ float staged_accumulate(const float* in, std::size_t n) {
  __shared__ __align__(16) float4 stage[kStages][kTile];  // 32 KiB
  const std::size_t head = index::scalar_head(reinterpret_cast<std::uintptr_t>(in), n);
  const std::size_t nvec = (n - head) / 4;
  const std::size_t tail_start = head + 4 * nvec;
  const float4* vec = reinterpret_cast<const float4*>(in + head);
  const std::size_t tiles = (nvec + kTile - 1) / kTile;
  const unsigned t = threadIdx.x;

  auto issue = [&](std::size_t tile, int slot) {
    if (tile < tiles) {
#pragma unroll
      for (int u = 0; u < kVecs; ++u) {
        const std::size_t j = tile * kTile + static_cast<std::size_t>(u) * kBlock + t;
        if (j < nvec) ptx::cp_async_cg_16(&stage[slot][u * kBlock + t], vec + j);
      }
    }
    ptx::cp_async_commit_group();
  };

  float acc[kVecs];
#pragma unroll
  for (int u = 0; u < kVecs; ++u) acc[u] = OpT::identity();
  std::size_t tile = blockIdx.x;
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) issue(tile + static_cast<std::size_t>(s) * gridDim.x, s);
  int slot = 0;
  for (; tile < tiles; tile += gridDim.x) {
    ptx::cp_async_wait_group<kStages - 2>();  // the oldest group, this tile's, has landed
#pragma unroll
    for (int u = 0; u < kVecs; ++u) {
      const std::size_t j = tile * kTile + static_cast<std::size_t>(u) * kBlock + t;
      if (j < nvec) acc[u] = OpT::apply(acc[u], reduce4<OpT>(stage[slot][u * kBlock + t]));
    }
    // Refill the stage summed one step ago (this thread's words only, already read).
    issue(tile + static_cast<std::size_t>(kStages - 1) * gridDim.x, (slot + kStages - 1) % kStages);
    slot = (slot + 1) % kStages;
  }
  ptx::cp_async_wait_all();  // only empty groups are left, but leave none behind

  const std::size_t g = static_cast<std::size_t>(blockIdx.x) * kBlock + t;
  if (g < head) acc[0] = OpT::apply(acc[0], __ldg(in + g));
  if (g < n - tail_start) acc[0] = OpT::apply(acc[0], __ldg(in + tail_start + g));
#pragma unroll
  for (int u = 1; u < kVecs; ++u) acc[0] = OpT::apply(acc[0], acc[u]);
  return acc[0];
}

template <class OpT>
__global__ void __launch_bounds__(kBlock)
    cp_async_pipeline_kernel(const float* in, std::size_t n, float* partials, unsigned* counter,
                             float* out) {
  const float v = block_reduce<OpT, kBlock>(staged_accumulate<OpT>(in, n));
  single_pass_finish<OpT, kBlock, Ticket::acq_rel>(v, partials, counter, out);
}

}  // namespace

GridConfig cp_async_pipeline_config() {
  return {kBlock, kVecs, reinterpret_cast<const void*>(cp_async_pipeline_kernel<SumOp>)};
}

void launch_cp_async_pipeline(const Launch& l) {
  if (l.op == Op::sum)
    cp_async_pipeline_kernel<SumOp>
        <<<l.grid, kBlock, 0, l.stream>>>(l.in, l.n, l.slots, l.counter, l.out);
  else
    cp_async_pipeline_kernel<MaxOp>
        <<<l.grid, kBlock, 0, l.stream>>>(l.in, l.n, l.slots, l.counter, l.out);
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace memhier::reduction::detail
