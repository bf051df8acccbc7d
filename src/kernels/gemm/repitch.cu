// The staging copy (repitch.hpp). One launch for both operands; a warp copies 256 consecutive
// 2-byte units of a row: its lanes read them as 2-byte loads 64 bytes apart (one wavefront
// each, any alignment), exchange them through shared memory and write 16-byte chunks.
// cudaMemcpy2DAsync did the same at about half the copy ceiling (measured on the H100 SXM).
#include <algorithm>

#include "common.cuh"
#include "repitch.hpp"

namespace memhier::gemm::detail {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kSpan = 256;  // units a warp copies at a time: 8 per lane

/// Copies of `n` segments of `r` (rows x ceil(cols / kSpan) of them), warp-strided from
/// segment `first` with `step`.
__device__ void copy_segments(const Repitch& r, long long first, long long step,
                              unsigned short* sh) {
  const int lane = threadIdx.x % 32;
  const int per_row = (r.cols + kSpan - 1) / kSpan;
  const long long total = static_cast<long long>(r.rows) * per_row;
  const unsigned short* src = reinterpret_cast<const unsigned short*>(r.src);
  for (long long s = first; s < total; s += step) {
    const int row = static_cast<int>(s / per_row);
    const int c0 = static_cast<int>(s % per_row) * kSpan;
    const unsigned short* in = src + rm_offset(row, c0, r.ld);
    const int avail = r.cols - c0;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int c = 32 * i + lane;
      sh[c] = c < avail ? __ldg(in + c) : static_cast<unsigned short>(0);
    }
    __syncwarp();
    // Chunks past the row's last unit are not written: the kernels read no further.
    if (8 * lane < avail)
      *reinterpret_cast<uint4*>(static_cast<unsigned short*>(r.dst) +
                                rm_offset(row, c0 + 8 * lane, r.ld8)) =
          reinterpret_cast<const uint4*>(sh)[lane];
    __syncwarp();
  }
}

__global__ void __launch_bounds__(kThreads) repitch_kernel(const Repitch a, const Repitch b) {
  __shared__ __align__(16) unsigned short sh[kWarps][kSpan];
  const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const long long warps = static_cast<long long>(gridDim.x) * kWarps;
  unsigned short* mine = sh[threadIdx.x / 32];
  if (a.dst) copy_segments(a, warp, warps, mine);
  if (b.dst) copy_segments(b, warp, warps, mine);
}

long long segments(const Repitch& r) {
  return r.dst ? static_cast<long long>(r.rows) * ((r.cols + kSpan - 1) / kSpan) : 0;
}

}  // namespace

void launch_repitch(const Repitch& a, const Repitch& b, cudaStream_t stream) {
  const long long warps = std::max(segments(a), segments(b));
  if (warps == 0) return;
  int dev = 0, sms = 0;
  MEMHIER_CUDA(cudaGetDevice(&dev));
  MEMHIER_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  // Enough warps to fill every SM several times over; the rest stride.
  const long long blocks = std::min<long long>((warps + kWarps - 1) / kWarps, 16LL * sms);
  launch_kernel(repitch_kernel, dim3(static_cast<unsigned>(blocks)), dim3(kThreads), 0, stream, a,
                b);
}

}  // namespace memhier::gemm::detail
