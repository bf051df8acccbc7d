// The staging copy (repitch.hpp). One launch for both operands. A warp copies a span of 2048
// consecutive 2-byte units of a row (4 KB in flight a warp, which a faster HBM needs): its
// lanes load the 16-byte-aligned words that hold the span, exchange them through shared
// memory and write 16-byte chunks, each shifted into place by the span's misalignment (PRMT).
// Only the span's own bytes are read: a word that holds bytes outside it is read unit by
// unit, so no load touches memory past the operand's rows.
// cudaMemcpy2DAsync did the same at about half the copy ceiling (measured on the H100 SXM).
#include <algorithm>
#include <cstdint>

#include "common.cuh"
#include "repitch.hpp"

namespace memhier::gemm::detail {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kWordsPerLane = 8;
constexpr int kSpan = 32 * kWordsPerLane * 8;  // units a warp copies at a time
constexpr int kWindow = kSpan / 8 + 1;         // aligned words that hold a span: one more
// Registers for 4 blocks an SM: 32 warps with 4 KB each in flight.
constexpr int kMinBlocks = 4;

/// The 16-byte word at `base + 16 w` with the bytes outside [lo, hi) zero; loaded whole when
/// it lies inside, else unit by unit (units are 2-byte aligned, so are lo and hi).
__device__ __forceinline__ uint4 load_word(const unsigned char* base, int lo, int hi, int w) {
  const int b0 = 16 * w;
  if (b0 >= lo && b0 + 16 <= hi) return __ldg(reinterpret_cast<const uint4*>(base + b0));
  unsigned int v[4];
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const int b = b0 + 4 * q;
    const unsigned int l =
        (b >= lo && b < hi) ? __ldg(reinterpret_cast<const unsigned short*>(base + b)) : 0u;
    const unsigned int h = (b + 2 >= lo && b + 2 < hi)
                               ? __ldg(reinterpret_cast<const unsigned short*>(base + b + 2))
                               : 0u;
    v[q] = l | (h << 16);
  }
  return make_uint4(v[0], v[1], v[2], v[3]);
}

/// The 16 bytes that start `shift` units into the 32 bytes x:y (shift 0..7, warp-uniform).
__device__ __forceinline__ uint4 shifted(const uint4 x, const uint4 y, int shift) {
  const unsigned int a[8] = {x.x, x.y, x.z, x.w, y.x, y.y, y.z, y.w};
  const int k = shift >> 1;
  unsigned int c[5];
#pragma unroll
  for (int q = 0; q < 5; ++q)
    c[q] = k == 0 ? a[q] : (k == 1 ? a[q + 1] : (k == 2 ? a[q + 2] : a[q + 3]));
  // An odd shift takes the upper half of one word and the lower half of the next.
  const unsigned int sel = (shift & 1) ? 0x5432u : 0x3210u;
  return make_uint4(__byte_perm(c[0], c[1], sel), __byte_perm(c[1], c[2], sel),
                    __byte_perm(c[2], c[3], sel), __byte_perm(c[3], c[4], sel));
}

/// Copies of the spans of `r` (rows x ceil(cols / kSpan) of them), warp-strided from span
/// `first` with `step`; `sh` is the warp's kWindow words of shared memory.
__device__ void copy_spans(const Repitch& r, long long first, long long step, uint4* sh) {
  const int lane = threadIdx.x % 32;
  const int per_row = (r.cols + kSpan - 1) / kSpan;
  const long long total = static_cast<long long>(r.rows) * per_row;
  const unsigned short* src = static_cast<const unsigned short*>(r.src);
  unsigned short* dst = static_cast<unsigned short*>(r.dst);
  for (long long s = first; s < total; s += step) {
    const int row = static_cast<int>(s / per_row);
    const int c0 = static_cast<int>(s % per_row) * kSpan;
    const int avail = min(kSpan, r.cols - c0);
    const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(src + rm_offset(row, c0, r.ld));
    const unsigned char* base = reinterpret_cast<const unsigned char*>(at & ~std::uintptr_t{15});
    const int lo = static_cast<int>(at & 15), hi = lo + 2 * avail;
#pragma unroll
    for (int i = 0; i < kWordsPerLane; ++i)
      sh[lane + 32 * i] = load_word(base, lo, hi, lane + 32 * i);
    if (lane == 0) sh[kWindow - 1] = load_word(base, lo, hi, kWindow - 1);
    __syncwarp();
    // Units past the row's end arrive as zeros, so the last chunk's tail is written zero;
    // chunks wholly past it are not written: the kernels read no further.
#pragma unroll
    for (int i = 0; i < kWordsPerLane; ++i) {
      const int j = lane + 32 * i;
      if (8 * j < avail)
        *reinterpret_cast<uint4*>(dst + rm_offset(row, c0 + 8 * j, r.ld8)) =
            shifted(sh[j], sh[j + 1], lo / 2);
    }
    __syncwarp();  // the next span's loads overwrite words other lanes may still read
  }
}

__global__ void __launch_bounds__(kThreads, kMinBlocks)
    repitch_kernel(const Repitch a, const Repitch b) {
  __shared__ uint4 sh[kWarps][kWindow];
  const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const long long warps = static_cast<long long>(gridDim.x) * kWarps;
  uint4* mine = sh[threadIdx.x / 32];
  if (a.dst) copy_spans(a, warp, warps, mine);
  if (b.dst) copy_spans(b, warp, warps, mine);
}

long long spans(const Repitch& r) {
  return r.dst ? static_cast<long long>(r.rows) * ((r.cols + kSpan - 1) / kSpan) : 0;
}

}  // namespace

void launch_repitch(const Repitch& a, const Repitch& b, cudaStream_t stream) {
  const long long warps = std::max(spans(a), spans(b));
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
