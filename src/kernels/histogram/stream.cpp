// The histogram shape and streams (see stream.hpp).
//
// Assumptions, stated once: the grids are those of the card the sink replays on (its SMs and
// the occupancy model at 32 registers per thread, as the replay assumes); a sink on no card
// (the per-instruction counts) launches as many blocks as the work asks for. A cluster pair
// launch fits two blocks per SM (max_active_clusters = the resident grid / 2). The input
// buffer is 256-byte aligned (cudaMalloc), so the lane-privatized rungs have no unaligned
// head.
#include "kernels/histogram/stream.hpp"

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <stdexcept>

#include "kernels/histogram/index.cuh"
#include "kernels/histogram/variants.hpp"
#include "kernels/predict.hpp"
#include "memhier/kernels/histogram.hpp"
#include "memhier/registry/decimal.hpp"

namespace memhier::histogram::detail {
namespace {

using kernels::predict::buffer_base;
using kernels::predict::kAllLanes;
using kernels::predict::Recorder;
using kernels::predict::warp_access;
using Seen = std::bitset<kBins>;

const std::uint64_t kIn = buffer_base(0);      // the input (uint8 or int32)
const std::uint64_t kBinsAt = buffer_base(1);  // the 256 global bins
constexpr std::size_t kTile = std::size_t(kLaneThreads) * kLaneUnroll;  // lane rungs' tile
/// The degenerate input's one value (the Case draws it in 1..255 from the seed; which one
/// does not change the traffic: one bin word, one sector).
constexpr unsigned kDegenerateBin = 1;

/// The blocks of the launched kernel that fit on the sink's card at once (at most
/// `max_per_sm` per SM when positive): core::resident_grid's rule, read after rec.launch;
/// 0 when the sink replays on no card (no limit).
std::size_t resident_grid(const Recorder& rec, int max_per_sm) {
  const std::uint64_t all = rec.resident_blocks();
  const int sms = rec.multiprocessors();
  if (all == 0 || sms <= 0) return 0;
  std::uint64_t per_sm = all / static_cast<std::uint64_t>(sms);
  if (max_per_sm > 0)
    per_sm = std::min<std::uint64_t>(per_sm, static_cast<std::uint64_t>(max_per_sm));
  return static_cast<std::size_t>(per_sm * static_cast<std::uint64_t>(sms));
}

/// grid_for's rule: enough blocks for `items` at `per_block`, at most the resident grid
/// (0: no limit).
std::size_t grid_for_items(std::size_t resident, std::size_t items, std::size_t per_block) {
  const std::size_t wanted = std::max<std::size_t>((items + per_block - 1) / per_block, 1);
  return resident > 0 ? std::min(resident, wanted) : wanted;
}

/// The bin element i falls in (kBins: none), drawn from the Case's distribution since the
/// stream cannot see the GPU's input: a splitmix64 of i stands for the Case's random bits
/// (u8: the low byte; int32: the Case's mapping, 2 % outside [0, 256)); degenerate input
/// is one value.
unsigned draw_bin(const HistShape& s, std::uint64_t i) {
  if (s.degenerate) return kDegenerateBin;
  std::uint64_t z = (i + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  if (s.u8) return static_cast<unsigned>(z & 0xFFu);
  const auto h = static_cast<std::uint32_t>(z);
  return (h & 0xFFFFu) % 50u == 0 ? kBins : h >> 24;
}

/// Adds the bins of elements [first, last) to `seen`, stopping once all 256 are seen.
void add_seen(const HistShape& s, std::size_t first, std::size_t last, Seen& seen) {
  if (s.degenerate && first < last) seen.set(kDegenerateBin);
  for (std::size_t i = first; i < last && !s.degenerate && !seen.all(); ++i) {
    const unsigned b = draw_bin(s, i);
    if (b < kBins) seen.set(b);
  }
}

/// One global atomicAdd per lane on bin bin_of(lane) (lanes off where it returns kBins).
template <class BinOf>
model::WarpAccess bin_atomic(std::uint32_t live, BinOf&& bin_of) {
  model::WarpAccess a = warp_access(live, 4, false, [&](int lane, std::uint64_t* addr) {
    const unsigned b = bin_of(lane);
    *addr = kBinsAt + 4ull * b;
    return b < kBins;
  });
  a.is_atomic = true;
  return a;
}

/// Rungs 1-3 (grid-stride, 256 threads): tile t (elements 256t ..) as block t; rung 1 adds
/// each element's atomic, rungs 2 and 3 merge the block's nonzero bins after its last tile
/// (tile t is block t mod grid's; thread i < 256 adds bin i).
void stream_scalar(bool privatized, int smem, const HistShape& s, model::AccessSink& sink) {
  Recorder rec(&sink);
  rec.launch(kScalarThreads, smem);
  const std::size_t n = s.n, es = s.u8 ? 1 : 4;
  const std::size_t tiles = (n + kScalarThreads - 1) / kScalarThreads;
  // Rungs 2 and 3 ask for 16 elements per thread; rung 1 for one.
  const std::size_t grid =
      grid_for_items(resident_grid(rec, 0), n, std::size_t(kScalarThreads) * (privatized ? 16 : 1));
  Seen seen;
  for (std::size_t t = 0; t < tiles; ++t) {
    const bool last = t + grid >= tiles;
    if (privatized && last) {  // the block's elements: its tiles t mod grid, t mod grid + grid ..
      seen.reset();
      for (std::size_t u = t % grid; u < tiles && !seen.all(); u += grid)
        add_seen(s, u * kScalarThreads, std::min(n, (u + 1) * kScalarThreads), seen);
    }
    for (int w = 0; w < kScalarThreads / 32; ++w) {
      rec.at(t, w);
      const std::size_t base = t * kScalarThreads + std::size_t(w) * 32;
      rec.global(
          warp_access(kAllLanes, static_cast<int>(es), false, [&](int lane, std::uint64_t* a) {
            *a = kIn + es * (base + lane);
            return base + lane < n;
          }));
      if (!privatized)
        rec.global(bin_atomic(kAllLanes, [&](int lane) {
          return base + lane < n ? draw_bin(s, base + lane) : kBins;
        }));
      else if (last)
        rec.global(bin_atomic(kAllLanes, [&](int lane) {
          const unsigned b = static_cast<unsigned>(w * 32 + lane);
          return seen[b] ? b : kBins;
        }));
    }
  }
}

/// Rungs 4-6 (lane_privatized.cuh): block b loads its share of 16-byte vectors in tiles of
/// 2 x 1024 (the next tile's two loads before the current tile is counted), the rest one
/// vector per thread; block 0's first threads load the tail. Merge: without pairs, warp w's
/// lane 0 adds bins w, w + 32, .. one atomic each; in pairs, block rank r's threads
/// 0..127 add bins r * 128 + tid of the pair's summed totals.
void stream_lane(bool pairs, int smem, const HistShape& s, model::AccessSink& sink) {
  Recorder rec(&sink);
  rec.launch(kLaneThreads, smem);
  const std::size_t es = s.u8 ? 1 : 4, per_vec = 16 / es;
  const std::size_t nvec = s.n / per_vec, ntail = s.n - nvec * per_vec;
  std::size_t grid = 0;
  if (pairs) {  // launch_lane_pairs: as many pairs as fit, at most one per two tiles
    const std::size_t most = resident_grid(rec, 0) / 2;  // 0: no card, no limit
    const std::size_t needed = (nvec + kTile - 1) / kTile;
    const std::size_t pairs_wanted = (needed + 1) / 2;
    grid = 2 * std::max<std::size_t>(1, most > 0 ? std::min(most, pairs_wanted) : pairs_wanted);
  } else {
    grid = grid_for_items(resident_grid(rec, kLaneBlocksPerSm), nvec, kTile);
  }
  const std::size_t share = ((nvec + grid - 1) / grid + 7) & ~std::size_t(7);
  auto range = [&](std::size_t b, std::size_t* begin, std::size_t* end) {
    *begin = std::min(b * share, nvec);
    *end = nvec - *begin < share ? nvec : *begin + share;
  };
  auto block_seen = [&](std::size_t b, Seen& seen) {
    std::size_t begin = 0, end = 0;
    range(b, &begin, &end);
    add_seen(s, begin * per_vec, end * per_vec, seen);
    if (b == 0) add_seen(s, nvec * per_vec, s.n, seen);  // the tail
  };
  Seen seen;
  for (std::size_t b = 0; b < grid; ++b) {
    std::size_t begin = 0, end = 0;
    range(b, &begin, &end);
    const std::size_t full = (end - begin) / kTile;
    seen.reset();
    block_seen(pairs ? b & ~std::size_t(1) : b, seen);
    if (pairs) block_seen(b | 1, seen);
    for (int w = 0; w < kLaneThreads / 32; ++w) {
      rec.at(b, w);
      const std::size_t tid0 = std::size_t(w) * 32;
      auto vec_load = [&](std::size_t first, std::size_t limit) {  // vectors first + lane
        rec.global(warp_access(kAllLanes, 16, false, [&](int lane, std::uint64_t* a) {
          *a = kIn + 16 * (first + lane);
          return first + lane < limit;
        }));
      };
      if (b == 0 && w == 0 && ntail > 0)
        rec.global(
            warp_access(kAllLanes, static_cast<int>(es), false, [&](int lane, std::uint64_t* a) {
              *a = kIn + es * (nvec * per_vec + lane);
              return std::size_t(lane) < ntail;
            }));
      for (std::size_t t = 0; t < full; ++t)  // tile t's loads (tile 0's before the loop)
        for (int k = 0; k < kLaneUnroll; ++k)
          vec_load(begin + t * kTile + k * kLaneThreads + tid0, end);
      for (std::size_t i = begin + full * kTile + tid0; i < end; i += kLaneThreads)
        vec_load(i, end);
      // A pair's two cluster.sync: each a release arrive and an acquire wait, four GPU-scope
      // fences a block (the H100 counts 4.0 a block's worth of membar lookups).
      if (pairs && w == 0)
        for (int f = 0; f < 4; ++f) rec.fence();
      if (!pairs) {
        for (unsigned b8 = static_cast<unsigned>(w); b8 < kBins; b8 += kLaneThreads / 32)
          rec.global(bin_atomic(1u, [&](int) { return seen[b8] ? b8 : kBins; }));
      } else if (w < static_cast<int>(kBins / 2 / 32)) {
        const unsigned first = static_cast<unsigned>((b & 1) * (kBins / 2) + tid0);
        rec.global(bin_atomic(kAllLanes, [&](int lane) {
          return seen[first + lane] ? first + static_cast<unsigned>(lane) : kBins;
        }));
      }
    }
  }
}

}  // namespace

HistShape parse_hist_shape(const std::string& shape) {
  const std::string form =
      " is not TYPE-DIST:COUNT with TYPE u8 or i32 and DIST uniform or degenerate "
      "(for example u8-uniform:268435456).";
  const std::size_t colon = shape.find(':');
  if (colon == std::string::npos)
    throw std::invalid_argument("histogram shape '" + shape + "'" + form);
  const std::string kind = shape.substr(0, colon);
  HistShape s;
  if (kind != "u8-uniform" && kind != "u8-degenerate" && kind != "i32-uniform" &&
      kind != "i32-degenerate")
    throw std::invalid_argument("histogram shape '" + shape + "'" + form);
  s.u8 = kind.rfind("u8-", 0) == 0;
  s.degenerate = kind.find("-degenerate") != std::string::npos;
  // The count: strict decimal (no leading zero), 1 .. kMaxElements (a 32-bit bin must not wrap).
  const registry::Decimal count = registry::read_decimal(shape.substr(colon + 1));
  if (!count.ok())
    throw std::invalid_argument("histogram shape '" + shape + "': the count " + count.problem +
                                "; give a decimal integer (for example u8-uniform:268435456).");
  const std::int64_t v = count.value;
  if (v < 1 || static_cast<std::uint64_t>(v) > kMaxElements)
    throw std::invalid_argument("histogram shape '" + shape + "' needs 1 to " +
                                std::to_string(kMaxElements) +
                                " elements (a 32-bit bin must not overflow).");
  s.n = static_cast<std::size_t>(v);
  s.text = kind + ":" + std::to_string(s.n);
  return s;
}

void stream_histogram(StreamKind kind, int smem_bytes, const std::string& shape,
                      model::AccessSink& sink) {
  const HistShape s = parse_hist_shape(shape);
  switch (kind) {
    case StreamKind::global_atomics:
      return stream_scalar(false, smem_bytes, s, sink);
    case StreamKind::block_privatized:
      return stream_scalar(true, smem_bytes, s, sink);
    case StreamKind::lane_privatized:
      return stream_lane(false, smem_bytes, s, sink);
    case StreamKind::lane_pairs:
      return stream_lane(true, smem_bytes, s, sink);
  }
}

}  // namespace memhier::histogram::detail
