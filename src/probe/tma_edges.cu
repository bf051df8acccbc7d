// Probe "tma", edges and swizzle: what the copy engine does that threads would have to do.
// A 32 x 32 box loaded across the corner of a 37 x 53 tensor (row pitch 64 floats) must
// bring the tensor's elements and zeros for everything outside it, the padding columns
// included; the same box stored there must write exactly the part inside the tensor; and a
// box loaded with the 128-byte swizzle must land each 16-byte chunk where
// tma::swizzle_128b says.
#include <cuda.h>

#include <cstring>
#include <vector>

#include "common.cuh"
#include "memhier/core/tma.cuh"
#include "memhier/core/tma.hpp"
#include "tma_detail.cuh"

namespace memhier::probe::tma_detail {
namespace {

constexpr int kRows = 37, kCols = 53, kPitch = 64;  // floats
constexpr int kBox = 32;                            // a 32 x 32 box
constexpr int kAtX = 40, kAtY = 20;                 // straddles the corner
constexpr int kSwzRows = 16, kSwzCols = 32;         // 128-byte rows, swizzled

__global__ void tma_probe_edges(const __grid_constant__ CUtensorMap load_map,
                                const __grid_constant__ CUtensorMap store_map,
                                const __grid_constant__ CUtensorMap swz_map, float* load_dump,
                                unsigned* swz_dump) {
#if MEMHIER_TMA_DEVICE
  __shared__ __align__(1024) float box[kBox * kBox];
  __shared__ __align__(1024) unsigned swz[kSwzRows * kSwzCols];
  __shared__ alignas(8) unsigned long long bar;
  const unsigned b = tma::smem_addr(&bar);
  if (threadIdx.x == 0) {
    tma::mbarrier_init(b, 1);
    tma::fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    tma::mbarrier_arrive_expect_tx(b, sizeof box + sizeof swz);
    tma::tensor_load_2d(tma::smem_addr(box), &load_map, kAtX, kAtY, b);
    tma::tensor_load_2d(tma::smem_addr(swz), &swz_map, 0, 0, b);
  }
  tma::mbarrier_wait_parity(b, 0);
  for (int i = threadIdx.x; i < kBox * kBox; i += blockDim.x) load_dump[i] = box[i];
  for (int i = threadIdx.x; i < kSwzRows * kSwzCols; i += blockDim.x) swz_dump[i] = swz[i];
  __syncthreads();
  for (int i = threadIdx.x; i < kBox * kBox; i += blockDim.x)
    box[i] = 1000.f + static_cast<float>(i);
  tma::fence_proxy_async_shared();
  __syncthreads();
  if (threadIdx.x == 0) {
    tma::tensor_store_2d(&store_map, kAtX, kAtY, tma::smem_addr(box));
    tma::bulk_commit();
    tma::bulk_wait<0>();
  }
#else
  (void)load_map, (void)store_map, (void)swz_map, (void)load_dump, (void)swz_dump;
  tma::unsupported();
#endif
}

core::Tensor2d tensor(const float* base, int rows, int cols, int pitch, int box_cols, int box_rows,
                      core::TmaSwizzle swizzle) {
  core::Tensor2d t;
  t.base = base;
  t.rows = static_cast<std::uint64_t>(rows);
  t.cols = static_cast<std::uint64_t>(cols);
  t.pitch_bytes = static_cast<std::uint64_t>(pitch) * sizeof(float);
  t.box_cols = static_cast<std::uint32_t>(box_cols);
  t.box_rows = static_cast<std::uint32_t>(box_rows);
  t.swizzle = swizzle;
  return t;
}

}  // namespace

void check_edges(TmaResult& m) {
  // The input fills every pitch column (a read of the padding would show), values nonzero.
  std::vector<float> in(kRows * kPitch), swz_in(kSwzRows * kSwzCols);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = 1.f + static_cast<float>(i);
  for (std::size_t i = 0; i < swz_in.size(); ++i) swz_in[i] = 5000.f + static_cast<float>(i);
  // The output has twice the rows, so a store past the tensor's last row would show too.
  core::DeviceBuffer<float> d_in(in.size()), d_out(2 * in.size()), d_swz(swz_in.size()),
      load_dump(kBox * kBox);
  core::DeviceBuffer<unsigned> swz_dump(swz_in.size());
  d_in.upload(in);
  d_swz.upload(swz_in);
  MEMHIER_CUDA(cudaMemset(d_out.data(), 0xff, d_out.bytes()));
  using core::TmaSwizzle;
  const CUtensorMap load_map = core::encode_tensor_map_2d(
      tensor(d_in.data(), kRows, kCols, kPitch, kBox, kBox, TmaSwizzle::none));
  const CUtensorMap store_map = core::encode_tensor_map_2d(
      tensor(d_out.data(), kRows, kCols, kPitch, kBox, kBox, TmaSwizzle::none));
  const CUtensorMap swz_map = core::encode_tensor_map_2d(
      tensor(d_swz.data(), kSwzRows, kSwzCols, kSwzCols, kSwzCols, kSwzRows, TmaSwizzle::b128));
  tma_probe_edges<<<1, 128>>>(load_map, store_map, swz_map, load_dump.data(), swz_dump.data());
  MEMHIER_CHECK_LAUNCH();
  MEMHIER_CUDA(cudaDeviceSynchronize());

  const std::vector<float> loaded = load_dump.download(), out = d_out.download();
  const std::vector<unsigned> raw = swz_dump.download();
  m.oob_checked = m.oob_load_wrong = m.oob_store_checked = m.oob_store_wrong = 0;
  m.oob_store_chunk_spill = 0;
  for (int r = 0; r < kBox; ++r)
    for (int c = 0; c < kBox; ++c) {
      const int y = kAtY + r, x = kAtX + c;
      const float want =
          y < kRows && x < kCols ? in[static_cast<std::size_t>(y * kPitch + x)] : 0.f;
      ++m.oob_checked;
      if (loaded[static_cast<std::size_t>(r * kBox + c)] != want) ++m.oob_load_wrong;
    }
  for (int y = 0; y < 2 * kRows; ++y)
    for (int x = 0; x < kPitch; ++x) {
      const bool written =
          y < kRows && x < kCols && y >= kAtY && y < kAtY + kBox && x >= kAtX && x < kAtX + kBox;
      const float got = out[static_cast<std::size_t>(y * kPitch + x)];
      const float boxed = 1000.f + static_cast<float>((y - kAtY) * kBox + (x - kAtX));
      const bool ok = written ? got == boxed : got != got;  // else still the NaN sentinel
      // The H100 stores the rest of the row's last 16-byte chunk (padding, by the 16-byte
      // pitch rule): counted apart, it is where the store's bound really lies.
      const bool in_chunk =
          y >= kAtY && y < kRows && x >= kCols && x < (kCols + 3) / 4 * 4 && x < kAtX + kBox;
      ++m.oob_store_checked;
      if (!ok && in_chunk && got == boxed)
        ++m.oob_store_chunk_spill;
      else if (!ok)
        ++m.oob_store_wrong;
    }
  m.swizzle_checked = m.swizzle_wrong = 0;
  for (int r = 0; r < kSwzRows; ++r)
    for (int c = 0; c < kSwzCols; ++c) {
      const unsigned at = tma::swizzle_128b(static_cast<unsigned>(r * 128 + c * 4)) / 4;
      float got;
      std::memcpy(&got, &raw[at], sizeof got);
      ++m.swizzle_checked;
      if (got != swz_in[static_cast<std::size_t>(r * kSwzCols + c)]) ++m.swizzle_wrong;
    }
}

}  // namespace memhier::probe::tma_detail
