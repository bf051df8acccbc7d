// Rung 9, uncached (OneFlow's name for it): rows too long for shared memory. Pass 1 reads
// the row once for the online max and sum, pass 2 reads it again (from L2 when the rows in
// flight fit there) and writes; eight float4 loads in flight per thread. When rows are
// fewer than the SMs, a thread-block cluster splits each row (sm_90), the blocks merging
// their partials through distributed shared memory, so that 8 rows still fill 132 SMs.
#include <cuda_runtime.h>

#include <algorithm>

#include "memhier/core/check.hpp"
#include "two_pass.cuh"
#include "variants.hpp"

namespace memhier::softmax::detail {
namespace {

constexpr int kThreads = 512;
constexpr int kUnroll = 8;
constexpr int kMinChunkFloats = 4096;  // below this a block's share is mostly latency

template <int PACK, bool CLUSTER>
__global__ void __launch_bounds__(kThreads)
    uncached_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols,
                    int chunk_units) {
  two_pass_row<PACK, kUnroll, CLUSTER>(in, out, rows, cols, chunk_units);
}

template <int PACK>
void launch_packed(const Problem& p) {
  const DeviceLimits& lim = device_limits();
  const int units = p.cols / PACK;
  // Split rows over a cluster only when there are fewer rows than SMs.
  int c = 1;
  if (lim.clusters && p.rows < lim.sm_count) {
    const int fill = pow2_ceil(index::ceil_div(lim.sm_count, p.rows));
    const int longest = pow2_floor(std::max(1, p.cols / kMinChunkFloats));
    c = std::min({fill, longest, 16});
    const void* k = reinterpret_cast<const void*>(&uncached_kernel<PACK, true>);
    if (c > 1) allow_large_clusters(k);
    // The largest size the device can run, and above the portable 8, all clusters at once.
    while (c > 1) {
      const int n = max_active_clusters(k, c, kThreads, 0);
      if (n >= 1 && (c <= 8 || n >= p.rows)) break;
      c /= 2;
    }
  }
  if (c == 1) {
    uncached_kernel<PACK, false>
        <<<p.rows, kThreads, 0, p.stream>>>(p.in, p.out, p.rows, p.cols, units);
    MEMHIER_CHECK_LAUNCH();
    return;
  }
  int chunk = index::ceil_div(units, c);
  const float* in = p.in;
  float* out = p.out;
  int rows = p.rows, cols = p.cols;
  void* args[] = {&in, &out, &rows, &cols, &chunk};
  launch_clustered(reinterpret_cast<const void*>(&uncached_kernel<PACK, true>), args, p.rows * c, c,
                   kThreads, 0, p.stream);
}

}  // namespace

void launch_uncached(const Problem& p) {
  if (p.vec4)
    launch_packed<4>(p);
  else
    launch_packed<1>(p);
}

const void* uncached_symbol() {
  return reinterpret_cast<const void*>(&uncached_kernel<4, false>);
}

}  // namespace memhier::softmax::detail
