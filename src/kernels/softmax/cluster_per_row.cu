// Rung 10, a cluster per row (Hopper), for rows fewer than the SMs: a thread-block cluster
// of 1..16 blocks splits each row; every block holds its chunk in registers (one global
// read, one write per element, all of a thread's loads in flight at once), reduces it to a
// (max, sum) pair with REDUX and one barrier, and the blocks exchange their pairs through
// distributed shared memory (cluster_exchange in common.cuh: st.async into every block).
// Few long rows are latency-bound: what costs is the chain load -> reduce -> exchange ->
// store, so each link is kept short: the row is the cluster's index (no division before
// the loads), the exponentials are one multiply and one ex2.approx each (exp_fast: the
// last warp's data arrives last, and its exponentials are on the chain), and the block's
// pair needs one barrier (each warp's lanes share its max, so their sums just add).
// Measured on an H100 at 8 x 65536, clusters of 8 blocks of 512 threads, x memcpy (by a
// harness, not kept): remote store + release arrive
// and expf 0.785, st.async 0.829, st.async and ex2.approx 0.850, no exchange at all (wrong
// results: the floor of this structure) 0.897. Clusters of 16 run 7 at once on an H100
// (one GPC has fewer than 16 SMs), so the eighth row shares SMs: 0.833; clusters of 10..14
// (uneven chunks) 0.78-0.82; 4 blocks 0.748. Early stores to claim the output's L2 lines,
// and stores through shared memory by cp.async.bulk, measured no better. The design before
// (chunks staged by cp.async, cluster.sync, remote reads) measured 0.57-0.60. Worst element
// error against float64 there: 7.0e-7 relative with ex2.approx, 5.6e-7 with expf. Later
// (another harness, not kept): posted pairs merged by merge_posted and the scale
// by exp_fast took the exchange after a cluster's last block pair from 352 to 288 ns; the
// product bench read 0.837-0.848, where the same structure without any exchange reads
// 0.87-0.90.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>

#include "common.cuh"
#include "memhier/core/check.hpp"
#include "memhier/core/gate.hpp"
#include "variants.hpp"

namespace memhier::softmax::detail {
namespace {

constexpr int kThreads = 512;            // per block, at most
constexpr int kMaxUnroll = 8;            // units in registers per thread, at most
constexpr int kTargetChunkUnits = 2048;  // 32 KB of float4 per block
constexpr int kMinChunkUnits = 1024;     // split further for parallelism only down to this

template <int PACK, int U>
__global__ void __launch_bounds__(kThreads)
    cluster_per_row_kernel(const float* __restrict__ in, float* __restrict__ out, int rows,
                           int cols, int chunk_units) {
  __shared__ float2 scratch[32];
  __shared__ ClusterSlots slots;
  const int rank = cluster_rank();
  const long long row = cluster_index();  // no division before the loads
  if (row >= rows) return;                // uniform over the cluster: it shares the row
  const int count = index::chunk_count(rank, chunk_units, cols / PACK);
  const long long first = index::chunk_begin(rank, chunk_units) * PACK;
  const float* x = in + index::row_start(row, cols) + (count > 0 ? first : 0);
  float* y = out + index::row_start(row, cols) + (count > 0 ? first : 0);

  float v[U][PACK];
  // Streaming (evict-first) loads and stores: each element is touched once. Measured on
  // an H100 at 8 x 65536: 0.79 x memcpy against 0.72 with the default cache policy.
  load_batch<PACK, U, true>(x, threadIdx.x, blockDim.x, count, v, neg_inf());
  cluster_exchange_begin(slots);  // overlaps the loads

  float tmax = neg_inf();
#pragma unroll
  for (int u = 0; u < U; ++u)
#pragma unroll
    for (int k = 0; k < PACK; ++k) tmax = fmaxf(tmax, v[u][k]);
  // Exponentials against the warp's max (REDUX), so that only warp pairs need merging.
  const float wmax = warp_max_redux(tmax);
  const float use = safe_max(wmax);  // a warp with nothing finite: its exponentials are 0
  float sum = 0.f;
#pragma unroll
  for (int u = 0; u < U; ++u)
#pragma unroll
    for (int k = 0; k < PACK; ++k) {
      v[u][k] = exp_fast(v[u][k] - use);  // -inf padding gives 0
      sum += v[u][k];
    }
  const MaxSum all = cluster_exchange(slots, block_combine<true>(MaxSum{wmax, sum}, scratch));
  // exp(x - M) / S = exp(x - wmax) * exp(wmax - M) / S: one scale per thread.
  const float scale = wmax == neg_inf() ? 0.f : __fdividef(exp_fast(wmax - all.m), all.s);
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const int i = threadIdx.x + u * blockDim.x;
    if (i < count) {
#pragma unroll
      for (int k = 0; k < PACK; ++k) v[u][k] *= scale;
      store_pack<PACK, true>(y + static_cast<long long>(i) * PACK, v[u]);
    }
  }
}

template <int PACK>
const void* kernel_for(int unroll) {
  switch (unroll) {
    case 1:
      return reinterpret_cast<const void*>(&cluster_per_row_kernel<PACK, 1>);
    case 2:
      return reinterpret_cast<const void*>(&cluster_per_row_kernel<PACK, 2>);
    case 4:
      return reinterpret_cast<const void*>(&cluster_per_row_kernel<PACK, 4>);
    default:
      return reinterpret_cast<const void*>(&cluster_per_row_kernel<PACK, kMaxUnroll>);
  }
}

/// The launch of a cluster of `c` blocks over a row of `units` units.
struct Shape {
  int chunk = 0;    // units per block
  int threads = 0;  // per block
  int unroll = 0;   // units per thread: 1, 2, 4 or 8
};

Shape shape_for(int units, int c) {
  Shape s;
  s.chunk = index::ceil_div(units, c);
  s.threads = std::min(kThreads, index::ceil_div(s.chunk, 32) * 32);
  s.unroll = pow2_ceil(index::ceil_div(s.chunk, s.threads));
  return s;
}

const void* kernel_for(bool vec4, int unroll) {
  return vec4 ? kernel_for<4>(unroll) : kernel_for<1>(unroll);
}

}  // namespace

int cluster_per_row_plan(int rows, int cols, bool vec4) {
  const DeviceLimits& lim = device_limits();
  if (!lim.clusters) return 0;
  const int units = vec4 ? cols / 4 : cols;
  const long long per_block = static_cast<long long>(kThreads) * kMaxUnroll;
  const int fewest = pow2_ceil(static_cast<int>((units + per_block - 1) / per_block));
  if (fewest > kMaxClusterBlocks) return 0;  // the row does not fit in a cluster's registers
  // Chunks of about 32 KB; with few rows, smaller ones (down to 16 KB) on more SMs.
  int c = std::max(fewest, pow2_ceil(index::ceil_div(units, kTargetChunkUnits)));
  while (c < kMaxClusterBlocks && static_cast<long long>(rows) * c < lim.sm_count / 4 &&
         units / (2 * c) >= kMinChunkUnits)
    c *= 2;
  c = std::min(c, kMaxClusterBlocks);
  for (; c >= fewest; c /= 2) {  // the largest size the device can run
    if (static_cast<long long>(rows) * c > INT_MAX) continue;
    if (c == 1) return 1;  // a cluster of one block runs wherever the block does
    const Shape s = shape_for(units, c);
    const void* k = kernel_for(vec4, s.unroll);
    allow_large_clusters(k);
    if (max_active_clusters(k, c, s.threads, 0) >= 1) return c;
  }
  return 0;
}

void launch_cluster_per_row(const Problem& p) {
  core::require_kernel("softmax cluster_per_row", cluster_per_row_symbol(), {90, false, 0, 2});
  const int c = cluster_per_row_plan(p.rows, p.cols, p.vec4);
  if (c == 0)
    throw std::invalid_argument(
        "cluster_per_row holds a row in the registers of a cluster of at most " +
        std::to_string(kMaxClusterBlocks) + " blocks: at most " +
        std::to_string(kMaxClusterBlocks * kThreads * kMaxUnroll * (p.vec4 ? 4 : 1)) + " columns " +
        (p.vec4 ? "" : "(unaligned) ") + "on this device, not " + std::to_string(p.cols) + ".");
  const Shape s = shape_for(p.vec4 ? p.cols / 4 : p.cols, c);
  const float* in = p.in;
  float* out = p.out;
  int rows = p.rows, cols = p.cols, chunk = s.chunk;
  void* args[] = {&in, &out, &rows, &cols, &chunk};
  launch_clustered(kernel_for(p.vec4, s.unroll), args, p.rows * c, c, s.threads, 0, p.stream);
}

const void* cluster_per_row_symbol() {
  return kernel_for(true, 4);
}

}  // namespace memhier::softmax::detail
