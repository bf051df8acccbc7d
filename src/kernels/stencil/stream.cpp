// The stencil streams (see stream.hpp).
#include "kernels/stencil/stream.hpp"

#include <cstdint>

#include "kernels/predict.hpp"
#include "kernels/stencil/index.cuh"

namespace memhier::stencil::detail {
namespace {

using kernels::predict::buffer_base;
using kernels::predict::Recorder;
using kernels::predict::warp_access;

const std::uint64_t kIn = buffer_base(0);
const std::uint64_t kOut = buffer_base(1);
const std::uint64_t kFilter = buffer_base(2);  // the __device__ filter array of rung 1
constexpr int kBX = 32, kBY = 8;               // per_output.cuh's block: 32 x 8 outputs
constexpr std::uint32_t kAll = 0xffffffffu;

}  // namespace

void stream_per_output(int rows, int cols, int k, bool global_filter, model::AccessSink& sink) {
  Recorder rec(&sink);
  rec.launch(kBX * kBY, 0);
  const long long col_tiles = ceil_div(static_cast<long long>(cols), static_cast<long long>(kBX));
  const long long tiles =
      col_tiles * ceil_div(static_cast<long long>(rows), static_cast<long long>(kBY));
  const int radius = k / 2;
  for (long long t = 0; t < tiles; ++t)
    for (int ty = 0; ty < kBY; ++ty) {
      rec.at(static_cast<std::uint64_t>(t), ty);
      const long long r = tile_row0(t, col_tiles, kBY) + ty;
      const long long c0 = tile_col0(t, col_tiles, kBX);
      auto on = [&](int tx) { return r < rows && c0 + tx < cols; };
      for (int i = 0; i < k; ++i) {
        const long long ir = clamp_coord(r + i - radius, rows);
        for (int j = 0; j < k; ++j) {
          if (global_filter)
            rec.global(warp_access(kAll, 4, false, [&](int tx, std::uint64_t* a) {
              *a = kFilter + 4 * static_cast<std::uint64_t>(i * k + j);
              return on(tx);
            }));
          rec.global(warp_access(kAll, 4, false, [&](int tx, std::uint64_t* a) {
            *a = kIn + 4 * element_index(ir, clamp_coord(c0 + tx + j - radius, cols), cols);
            return on(tx);
          }));
        }
      }
      rec.global(warp_access(kAll, 4, true, [&](int tx, std::uint64_t* a) {
        *a = kOut + 4 * element_index(r, c0 + tx, cols);
        return on(tx);
      }));
    }
}

}  // namespace memhier::stencil::detail
