// Rung 10, a cluster per row (Hopper): a thread-block cluster of 2..16 blocks splits each row;
// every block caches its chunk in shared memory (one global read, one write per element)
// and the blocks merge their (max, sum) partials through distributed shared memory. Chunks
// of about 32 KB keep six blocks per SM overlapping their read and write phases where one
// block per SM could hold a 128 KB row, and a few long rows (8 x 65536) fill 128 SMs.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>

#include "memhier/core/check.hpp"
#include "smem_row.cuh"
#include "variants.hpp"

namespace memhier::softmax::detail {
namespace {

constexpr int kTargetChunkFloats = 8192;  // 32 KB: six blocks per H100 SM
constexpr int kMinChunkFloats = 1024;     // split a row for parallelism only down to this
constexpr int kMaxCluster = 16;           // non-portable above 8 (sm_90 allows 16)

template <int PACK>
__global__ void __launch_bounds__(kSmemMaxThreads)
    cluster_per_row_kernel(const float* __restrict__ in, float* __restrict__ out, int rows,
                           int cols, int chunk_units) {
  smem_row<PACK, true>(in, out, rows, cols, chunk_units);
}

const void* kernel_for(bool vec4) {
  return vec4 ? reinterpret_cast<const void*>(&cluster_per_row_kernel<4>)
              : reinterpret_cast<const void*>(&cluster_per_row_kernel<1>);
}

/// Whether the device runs clusters of `c` blocks for this row: the chunk fits in shared
/// memory, the grid fits in int, and (above the portable 8) all clusters fit at once.
bool runnable(const void* k, int c, int rows, int units, int unit_bytes, int max_dyn) {
  if (static_cast<long long>(rows) * c > INT_MAX) return false;
  const long long smem = static_cast<long long>(index::ceil_div(units, c)) * unit_bytes;
  if (smem > max_dyn) return false;
  if (c == 1) return true;  // a cluster of one block runs wherever the block does
  const int n = max_active_clusters(k, c, smem_row_threads(index::ceil_div(units, c)),
                                    static_cast<int>(smem));
  return n >= 1 && (c <= 8 || n >= rows);
}

}  // namespace

int cluster_per_row_plan(int rows, int cols, bool vec4) {
  const DeviceLimits& lim = device_limits();
  if (!lim.clusters) return 0;
  const void* k = kernel_for(vec4);
  const int max_dyn = prepare_smem_kernel(k, true);
  const int units = vec4 ? cols / 4 : cols, unit_bytes = vec4 ? 16 : 4;
  // Chunks of about 32 KB; and when rows are fewer than SMs, enough blocks to fill them.
  const int for_smem = pow2_ceil(index::ceil_div(cols, kTargetChunkFloats));
  const int for_fill = std::min(pow2_ceil(index::ceil_div(lim.sm_count, rows)),
                                pow2_floor(std::max(1, cols / kMinChunkFloats)));
  const int want = std::min(std::max(for_smem, for_fill), kMaxCluster);
  for (int c = want; c <= kMaxCluster; c *= 2)  // the wanted size, or larger if it must be
    if (runnable(k, c, rows, units, unit_bytes, max_dyn)) return c;
  for (int c = want / 2; c >= 1; c /= 2)  // smaller, where the device cannot run it
    if (runnable(k, c, rows, units, unit_bytes, max_dyn)) return c;
  return 0;
}

void launch_cluster_per_row(const Problem& p) {
  if (!device_limits().clusters)
    throw std::invalid_argument(
        "cluster_per_row needs thread-block clusters (compute capability 9.0 or newer).");
  const int c = cluster_per_row_plan(p.rows, p.cols, p.vec4);
  if (c == 0)
    throw std::invalid_argument("cluster_per_row cannot split a row of " + std::to_string(p.cols) +
                                " columns over the shared memory of a cluster on this device.");
  const int units = p.vec4 ? p.cols / 4 : p.cols;
  int chunk = index::ceil_div(units, c);
  const int smem = chunk * (p.vec4 ? 16 : 4);
  const float* in = p.in;
  float* out = p.out;
  int rows = p.rows, cols = p.cols;
  void* args[] = {&in, &out, &rows, &cols, &chunk};
  launch_clustered(kernel_for(p.vec4), args, p.rows * c, c, smem_row_threads(chunk), smem,
                   p.stream);
}

const void* cluster_per_row_symbol() {
  return kernel_for(true);
}

}  // namespace memhier::softmax::detail
