// Rung 7, a warp per row (OneFlow's softmax_warp): the row lives in the lanes' registers
// (CPL elements each), read once and written once, reductions by shuffles only, no shared
// memory and no barrier. Templated on elements per lane; short rows put two rows per warp
// so each lane still has two loads in flight.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "common.cuh"
#include "memhier/core/check.hpp"
#include "variants.hpp"

namespace memhier::softmax::detail {
namespace {

constexpr int kThreads = 128;  // 4 warps
constexpr int kWarps = kThreads / 32;

template <int CPL>
constexpr int rows_per_warp() {
  return CPL <= 4 ? 2 : 1;
}

template <int PACK, int CPL>
__global__ void __launch_bounds__(kThreads)
    warp_per_row_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  static_assert(CPL % PACK == 0, "a lane holds whole packs");
  constexpr int kRows = rows_per_warp<CPL>();
  constexpr int kAccesses = CPL / PACK;
  const int lane = threadIdx.x & 31;
  const long long row0 = (static_cast<long long>(blockIdx.x) * kWarps + (threadIdx.x >> 5)) * kRows;
  if (row0 >= rows) return;  // uniform over the warp

  float v[kRows][CPL];
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const bool live = row0 + r < rows;
    const float* x = in + index::row_start(live ? row0 + r : row0, cols);
#pragma unroll
    for (int a = 0; a < kAccesses; ++a) {
      const int col = index::warp_row_col(lane, a * PACK, PACK);
      if (live && col < cols) {  // PACK == 4 only when 4 divides cols: the pack is whole
        load_global<PACK>(x + col, &v[r][a * PACK]);
      } else {
#pragma unroll
        for (int k = 0; k < PACK; ++k) v[r][a * PACK + k] = neg_inf();
      }
    }
  }
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    float m = neg_inf();
#pragma unroll
    for (int j = 0; j < CPL; ++j) m = fmaxf(m, v[r][j]);
    m = safe_max(warp_max(m));
    float s = 0.f;
#pragma unroll
    for (int j = 0; j < CPL; ++j) {
      v[r][j] = expf(v[r][j] - m);  // padding: exp(-inf) = 0
      s += v[r][j];
    }
    const float inv = 1.f / warp_sum(s);
    if (row0 + r >= rows) continue;
    float* y = out + index::row_start(row0 + r, cols);
#pragma unroll
    for (int a = 0; a < kAccesses; ++a) {
      const int col = index::warp_row_col(lane, a * PACK, PACK);
      if (col < cols) {
#pragma unroll
        for (int k = 0; k < PACK; ++k) v[r][a * PACK + k] *= inv;
        store_pack<PACK>(y + col, &v[r][a * PACK]);
      }
    }
  }
}

template <int PACK, int CPL>
void launch(const Problem& p) {
  constexpr int rows_per_block = kWarps * rows_per_warp<CPL>();
  const int blocks = index::ceil_div(p.rows, rows_per_block);
  warp_per_row_kernel<PACK, CPL><<<blocks, kThreads, 0, p.stream>>>(p.in, p.out, p.rows, p.cols);
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace

void launch_warp_per_row(const Problem& p) {
  if (p.cols > kWarpPerRowMaxCols)
    throw std::invalid_argument("warp_per_row holds a row in one warp's registers: at most " +
                                std::to_string(kWarpPerRowMaxCols) + " columns, not " +
                                std::to_string(p.cols) + ".");
  const int pack = index::warp_row_pack(p.cols, p.vec4);
  const int per_lane = index::warp_row_elems(p.cols, pack);  // the stream model's rule too
  if (pack == 4) {                                           // float4: 4 .. 32 elements a lane
    switch (per_lane) {
      case 4:
        return launch<4, 4>(p);
      case 8:
        return launch<4, 8>(p);
      case 16:
        return launch<4, 16>(p);
      default:
        return launch<4, 32>(p);
    }
  }
  switch (per_lane) {
    case 1:
      return launch<1, 1>(p);
    case 2:
      return launch<1, 2>(p);
    case 4:
      return launch<1, 4>(p);
    case 8:
      return launch<1, 8>(p);
    case 16:
      return launch<1, 16>(p);
    default:
      return launch<1, 32>(p);
  }
}

const void* warp_per_row_symbol() {
  return reinterpret_cast<const void*>(&warp_per_row_kernel<4, 32>);
}

}  // namespace memhier::softmax::detail
