// The reduction streams (see stream.hpp).
#include "kernels/reduction/stream.hpp"

#include <cstdint>
#include <vector>

#include "kernels/predict.hpp"
#include "kernels/reduction/index.cuh"
#include "memhier/registry/family.hpp"

namespace memhier::reduction::detail {
namespace {

using kernels::predict::buffer_base;
using kernels::predict::Recorder;
using kernels::predict::warp_access;

const std::uint64_t kIn = buffer_base(0);        // the n input floats (256-byte aligned)
const std::uint64_t kPartials = buffer_base(1);  // the block partials
constexpr int kClassicThreads = 256;             // kClassicBlock (variants.hpp)
constexpr std::uint32_t kAll = 0xffffffffu;

std::size_t parse_n(const std::string& shape) {
  return static_cast<std::size_t>(registry::parse_shape(shape, 1, "reduction")[0]);
}

}  // namespace

void stream_classic(std::size_t elems_per_block, const std::string& shape,
                    model::AccessSink& sink) {
  const std::size_t n = parse_n(shape);
  Recorder rec(&sink);
  rec.launch(kClassicThreads, kClassicThreads * 4);  // the block's shared tree
  const std::size_t blocks = (n + elems_per_block - 1) / elems_per_block;
  for (std::size_t b = 0; b < blocks; ++b)
    for (int w = 0; w < kClassicThreads / 32; ++w) {
      rec.at(b, w);
      auto element = [&](int lane) {
        return index::classic_element(b, static_cast<unsigned>(w * 32 + lane), elems_per_block);
      };
      rec.global(warp_access(kAll, 4, false, [&](int lane, std::uint64_t* a) {
        *a = kIn + 4 * element(lane);
        return element(lane) < n;
      }));
      if (elems_per_block == 2 * kClassicThreads)  // the first add during the load
        rec.global(warp_access(kAll, 4, false, [&](int lane, std::uint64_t* a) {
          *a = kIn + 4 * (element(lane) + kClassicThreads);
          return element(lane) + kClassicThreads < n;
        }));
      if (w == 0)  // thread 0 stores the block's partial
        rec.global(warp_access(1u, 4, true, [&](int, std::uint64_t* a) {
          *a = kPartials + 4 * b;
          return true;
        }));
    }
}

void stream_grid(int block_threads, int unroll, GridLoad load, const std::string& shape,
                 model::AccessSink& sink) {
  const std::size_t n = parse_n(shape);
  Recorder rec(&sink);
  rec.launch(block_threads, 32 * 4);  // block_reduce's one word per warp
  const std::size_t head = index::scalar_head(kIn, n);
  const std::size_t nvec = (n - head) / 4, tail_start = head + 4 * nvec;
  const std::uint64_t vec = kIn + 4 * head;
  const std::size_t tile = static_cast<std::size_t>(block_threads) * unroll;
  const std::size_t tiles = nvec == 0 ? 1 : (nvec + tile - 1) / tile;
  for (std::size_t t = 0; t < tiles; ++t)
    for (int w = 0; w < block_threads / 32; ++w) {
      rec.at(t, w);
      for (int u = 0; u < unroll; ++u) {
        model::WarpAccess a = warp_access(kAll, 16, false, [&](int lane, std::uint64_t* addr) {
          const std::size_t j = t * tile + static_cast<std::size_t>(u) * block_threads +
                                static_cast<std::size_t>(w * 32 + lane);
          *addr = vec + 16 * j;
          return j < nvec;
        });
        a.l1_cached = load == GridLoad::cached;
        a.l2_promote_bytes = load == GridLoad::l2_256b ? 256 : 0;
        a.async_copy = load == GridLoad::async_copy_l1_bypass;
        rec.global(a);
      }
      if (t != 0) continue;
      // The scalar head and tail (__ldg, fewer than 4 floats each): the grid's first threads.
      for (std::size_t start : {std::size_t{0}, tail_start}) {
        const std::size_t count = start == 0 ? head : n - tail_start;
        rec.global(warp_access(kAll, 4, false, [&](int lane, std::uint64_t* a) {
          const std::size_t g = static_cast<std::size_t>(w * 32 + lane);
          *a = kIn + 4 * (start + g);
          return g < count;
        }));
      }
    }
}

}  // namespace memhier::reduction::detail
