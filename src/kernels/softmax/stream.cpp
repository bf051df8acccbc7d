// The softmax streams (see stream.hpp). Buffers are 256-byte aligned, as cudaMalloc returns,
// so the kernels' vec4 test (rows 16-byte aligned) is cols % 4 == 0.
#include "kernels/softmax/stream.hpp"

#include <cstdint>

#include "kernels/predict.hpp"
#include "kernels/softmax/index.cuh"

namespace memhier::softmax::detail {
namespace {

using kernels::predict::buffer_base;
using kernels::predict::Recorder;
using kernels::predict::warp_access;

const std::uint64_t kIn = buffer_base(0);
const std::uint64_t kOut = buffer_base(1);
constexpr std::uint32_t kAll = 0xffffffffu;

}  // namespace

void stream_warp_per_row(int rows, int cols, model::AccessSink& sink) {
  constexpr int kWarps = 4;  // warp_per_row.cu's 128 threads
  const int pack = index::warp_row_pack(cols, cols % 4 == 0);
  const int cpl = index::warp_row_elems(cols, pack);
  const int rows_per_warp = cpl <= 4 ? 2 : 1, accesses = cpl / pack;
  Recorder rec(&sink);
  rec.launch(kWarps * 32, 0);
  const long long blocks = index::ceil_div(rows, kWarps * rows_per_warp);
  for (long long b = 0; b < blocks; ++b)
    for (int w = 0; w < kWarps; ++w) {
      const long long row0 = (b * kWarps + w) * rows_per_warp;
      if (row0 >= rows) continue;
      rec.at(static_cast<std::uint64_t>(b), w);
      for (bool store : {false, true})
        for (int r = 0; r < rows_per_warp; ++r) {
          if (row0 + r >= rows) continue;
          const std::uint64_t base = (store ? kOut : kIn) + 4 * index::row_start(row0 + r, cols);
          for (int a = 0; a < accesses; ++a)
            rec.global(warp_access(kAll, 4 * pack, store, [&](int lane, std::uint64_t* addr) {
              const int col = index::warp_row_col(lane, a * pack, pack);
              *addr = base + 4 * static_cast<std::uint64_t>(col);
              return col < cols;
            }));
        }
    }
}

void stream_online(int rows, int cols, model::AccessSink& sink) {
  constexpr int kThreads = 256, kUnroll = 4;  // online.cu
  const int pack = cols % 4 == 0 ? 4 : 1;
  const int count = index::chunk_count(0, cols / pack, cols / pack);  // the whole row
  Recorder rec(&sink);
  rec.launch(kThreads, 32 * 8 + 64);  // two_pass_row's scratch and cluster slots
  for (long long row = 0; row < rows; ++row)
    for (int w = 0; w < kThreads / 32; ++w) {
      rec.at(static_cast<std::uint64_t>(row), w);
      const std::uint64_t in = kIn + 4 * index::row_start(row, cols);
      const std::uint64_t out = kOut + 4 * index::row_start(row, cols);
      for (int pass = 0; pass < 2; ++pass)
        for (int base = w * 32; base < count; base += kUnroll * kThreads) {
          for (int u = 0; u < kUnroll; ++u)  // load_batch: all loads in flight
            rec.global(warp_access(kAll, 4 * pack, false, [&](int lane, std::uint64_t* a) {
              const int i = base + lane + u * kThreads;
              *a = in + 4 * static_cast<std::uint64_t>(i) * pack;
              return i < count;
            }));
          if (pass == 1)
            for (int u = 0; u < kUnroll; ++u)
              rec.global(warp_access(kAll, 4 * pack, true, [&](int lane, std::uint64_t* a) {
                const int i = base + lane + u * kThreads;
                *a = out + 4 * static_cast<std::uint64_t>(i) * pack;
                return i < count;
              }));
        }
    }
}

}  // namespace memhier::softmax::detail
