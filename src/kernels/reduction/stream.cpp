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
const std::uint64_t kCounter = buffer_base(2);   // the single pass's ticket counter
const std::uint64_t kOut = buffer_base(3);       // the result
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

void stream_grid(int block_threads, int unroll, GridLoad load, Finish finish,
                 const std::string& shape, model::AccessSink& sink) {
  const std::size_t n = parse_n(shape);
  Recorder rec(&sink);
  rec.launch(block_threads, 32 * 4);  // block_reduce's one word per warp
  const std::size_t head = index::scalar_head(kIn, n);
  const std::size_t nvec = (n - head) / 4, tail_start = head + 4 * nvec;
  const std::uint64_t vec = kIn + 4 * head;
  const std::size_t tile = static_cast<std::size_t>(block_threads) * unroll;
  const std::size_t tiles = nvec == 0 ? 1 : (nvec + tile - 1) / tile;
  // The kernel's grid: as many blocks as the card holds at once, at most one per tile.
  const std::uint64_t resident = rec.resident_blocks();
  const std::size_t grid = resident > 0 && resident < tiles ? resident : tiles;
  auto one_lane = [](std::uint64_t address, bool store) {
    return warp_access(1u, 4, store, [&](int, std::uint64_t* a) {
      *a = address;
      return true;
    });
  };
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
      if (finish != Finish::two_pass && grid > 1 && t + grid >= tiles) {
        // The block's last tile: thread 0's partial, fence and ticket; the last block (the
        // last tile's) fences again and reads every partial, writes out, resets the counter.
        const std::size_t b = t % grid;
        if (w == 0) {
          rec.global(one_lane(kPartials + 4 * b, true));
          rec.fence();  // __threadfence, or the release half of the acq_rel ticket
          model::WarpAccess ticket = one_lane(kCounter, false);
          ticket.is_atomic = true;
          rec.global(ticket);
        }
        if (t + 1 == tiles) {
          if (w == 0 && finish == Finish::fences) rec.fence();
          for (std::size_t i0 = static_cast<std::size_t>(w) * 32; i0 < grid;
               i0 += static_cast<std::size_t>(block_threads)) {
            model::WarpAccess p = warp_access(kAll, 4, false, [&](int lane, std::uint64_t* a) {
              *a = kPartials + 4 * (i0 + static_cast<std::size_t>(lane));
              return i0 + static_cast<std::size_t>(lane) < grid;
            });
            p.l1_cached = false;  // __ldcg
            rec.global(p);
          }
          if (w == 0) {
            rec.global(one_lane(kOut, true));
            rec.global(one_lane(kCounter, true));
          }
        }
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
