// Rung tma: the Tensor Memory Accelerator moves both sides. One thread loads a 64x64 input
// tile as two 64x32 boxes (cp.async.bulk.tensor, 128-byte swizzled, completing on an
// mbarrier), the block transposes it 4x4 per thread between two swizzled shared tiles
// (conflict-free both ways, index::tma_role), and one thread stores the transposed tile as
// two boxes. TMA computes every address, zero-fills reads past the matrix's edge and drops
// writes past it, so partial tiles need no bounds checks. TMA cannot describe a matrix
// whose rows (input or output) do not start on 16-byte boundaries: those shapes decline.
#include <cuda.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "kernels/transpose/index.cuh"
#include "kernels/transpose/variants.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/gate.hpp"
#include "memhier/core/tma.cuh"
#include "memhier/core/tma.hpp"

namespace memhier::transpose::detail {
namespace {

constexpr int kHalf = index::kTmaTile / 2;                   // box columns (128 bytes)
constexpr unsigned kBoxBytes = index::kTmaTile * kHalf * 4;  // 8 KiB
constexpr unsigned kTileBytes = 2 * kBoxBytes;               // 16 KiB a side
// Both tiles, and room to round the dynamic base up to the swizzle's 1024-byte alignment.
constexpr int kSmemBytes = 2 * kTileBytes + 1024;

/// The 16-byte chunk `chunk` (0..15) of tile row `row` (0..63) of a tile held as two
/// swizzled 64 x 32 boxes: its byte offset from the tile's start.
__device__ __forceinline__ unsigned chunk_offset(int row, int chunk) {
  return static_cast<unsigned>(chunk / 8) * kBoxBytes +
         tma::swizzle_128b(static_cast<unsigned>(row * 128 + (chunk % 8) * 16));
}

__global__ void __launch_bounds__(kBlockThreads)
    tma_kernel(const __grid_constant__ CUtensorMap in_map,
               const __grid_constant__ CUtensorMap out_map, int rows, int cols, unsigned tiles_x) {
#if MEMHIER_TMA_DEVICE
  __shared__ alignas(8) unsigned long long bar;
  extern __shared__ unsigned char dyn[];
  const unsigned raw = tma::smem_addr(dyn);
  const unsigned base = (raw + 1023u) & ~1023u;
  unsigned char* tile_in = dyn + (base - raw);
  unsigned char* tile_out = tile_in + kTileBytes;
  const unsigned bar_addr = tma::smem_addr(&bar);
  long long row0 = 0, col0 = 0;
  index::tile_origin(blockIdx.x, tiles_x, index::kTmaTile, index::kTmaTile, &row0, &col0);
  // A right half wholly past the last column (or a lower half past the last row, for the
  // store) is not issued: nothing of it exists.
  const bool right = col0 + kHalf < cols, lower = row0 + kHalf < rows;
  if (threadIdx.x == 0) {
    tma::prefetch_tensor_map(&in_map);
    tma::prefetch_tensor_map(&out_map);
    tma::mbarrier_init(bar_addr, 1);
    tma::fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    tma::mbarrier_arrive_expect_tx(bar_addr, right ? kTileBytes : kBoxBytes);
    tma::tensor_load_2d(base, &in_map, static_cast<int>(col0), static_cast<int>(row0), bar_addr);
    if (right)
      tma::tensor_load_2d(base + kBoxBytes, &in_map, static_cast<int>(col0 + kHalf),
                          static_cast<int>(row0), bar_addr);
  }
  tma::mbarrier_wait_parity(bar_addr, 0);

  int br = 0, bc = 0;
  index::tma_role(static_cast<int>(threadIdx.x), &br, &bc);
  float4 a[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
    a[k] = *reinterpret_cast<const float4*>(tile_in + chunk_offset(4 * br + k, bc));
  // Output row 4bc+m (input column) holds input rows 4br..4br+3: element m of each a[k].
  const float4 b[4] = {
      make_float4(a[0].x, a[1].x, a[2].x, a[3].x), make_float4(a[0].y, a[1].y, a[2].y, a[3].y),
      make_float4(a[0].z, a[1].z, a[2].z, a[3].z), make_float4(a[0].w, a[1].w, a[2].w, a[3].w)};
#pragma unroll
  for (int m = 0; m < 4; ++m)
    *reinterpret_cast<float4*>(tile_out + chunk_offset(4 * bc + m, br)) = b[m];
  tma::fence_proxy_async_shared();  // the threads' writes, before the copy engine reads them
  __syncthreads();
  if (threadIdx.x == 0) {
    // Output column = input row, output row = input column.
    tma::tensor_store_2d(&out_map, static_cast<int>(row0), static_cast<int>(col0),
                         base + kTileBytes);
    if (lower)
      tma::tensor_store_2d(&out_map, static_cast<int>(row0 + kHalf), static_cast<int>(col0),
                           base + kTileBytes + kBoxBytes);
    tma::bulk_commit();
    tma::bulk_wait_read<0>();  // the tile must outlive the store's reads of it
  }
#else
  (void)in_map, (void)out_map, (void)rows, (void)cols, (void)tiles_x;
  tma::unsupported();
#endif
}

/// A side of the transpose as TMA sees it: rows x cols floats, 64 x 32 boxes, swizzled.
core::Tensor2d side(const float* base, int rows, int cols) {
  core::Tensor2d t;
  t.base = base;
  t.cols = static_cast<std::uint64_t>(cols);
  t.rows = static_cast<std::uint64_t>(rows);
  t.pitch_bytes = t.cols * sizeof(float);
  t.elem_bytes = sizeof(float);
  t.box_cols = kHalf;
  t.box_rows = index::kTmaTile;
  t.swizzle = core::TmaSwizzle::b128;
  return t;
}

}  // namespace

const void* tma_symbol() {
  return reinterpret_cast<const void*>(&tma_kernel);
}

void launch_tma(const float* in, float* out, int rows, int cols, cudaStream_t s) {
  core::require_kernel("transpose tma", tma_symbol(), {90, false, kSmemBytes, 0});
  const core::Tensor2d in_side = side(in, rows, cols);
  const core::Tensor2d out_side = side(out, cols, rows);
  for (const auto& [what, t] : {std::pair{"input", in_side}, std::pair{"output", out_side}}) {
    const std::string why = core::tma_unsupported(t);
    if (!why.empty())
      throw std::invalid_argument("transpose tma: " + std::to_string(rows) + "x" +
                                  std::to_string(cols) + " declined, the " + what + ": " + why);
  }
  const CUtensorMap in_map = core::encode_tensor_map_2d(in_side);
  const CUtensorMap out_map = core::encode_tensor_map_2d(out_side);
  const TileGrid g = tile_grid(rows, cols, index::kTmaTile, index::kTmaTile);
  tma_kernel<<<g.count, kBlockThreads, kSmemBytes, s>>>(in_map, out_map, rows, cols, g.tiles_x);
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace memhier::transpose::detail
