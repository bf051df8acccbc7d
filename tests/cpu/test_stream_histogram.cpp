// The histogram streams by hand: each rung's global loads and atomics counted from the
// kernels' index math (src/kernels/histogram/*.cu), and what a cold replay of them reads.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "memhier/bench/simulate.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/model/card.hpp"
#include "memhier/registry/registry.hpp"

namespace {

using memhier::model::WarpAccess;

// Counts loads and atomics apart: instructions, active lanes, distinct 32-byte sectors.
class HistSink : public memhier::model::AccessSink {
 public:
  long long ld_instr = 0, ld_sectors = 0, st_instr = 0;
  long long atom_instr = 0, atom_lanes = 0, atom_sectors = 0, launches = 0;
  std::set<std::uint64_t> atom_words;                 // distinct bin words an atomic touched
  std::map<std::uint64_t, std::uint64_t> first_load;  // block -> its lowest load address
  void launch(int, int) override { ++launches; }
  void at(std::uint64_t block, int) override { block_ = block; }
  void global(const WarpAccess& w) override {
    if (!w.active_mask) return;
    std::set<std::uint64_t> sectors;
    for (int l = 0; l < 32; ++l) {
      if (!w.active(l)) continue;
      for (std::uint64_t s = w.address[l] >> 5; s <= (w.address[l] + w.width_bytes - 1) >> 5; ++s)
        sectors.insert(s);
      if (w.is_atomic) ++atom_lanes, atom_words.insert(w.address[l]);
    }
    const long long n = static_cast<long long>(sectors.size());
    if (w.is_atomic)
      ++atom_instr, atom_sectors += n;
    else if (w.is_store)
      ++st_instr;
    else
      ++ld_instr, ld_sectors += n;
    if (w.is_atomic || w.is_store) return;
    for (int l = 0; l < 32; ++l)
      if (w.active(l)) {
        auto it = first_load.emplace(block_, w.address[l]).first;
        it->second = std::min(it->second, w.address[l]);
      }
  }

 private:
  std::uint64_t block_ = 0;
};

// A sink on a made-up card of 2 SMs that holds 4 blocks at once: the grids are its, not a
// card's the stream names.
class SmallCardSink : public HistSink {
 public:
  std::uint64_t resident_blocks() const override { return 4; }
  int multiprocessors() const override { return 2; }
};

template <class Sink = HistSink>
Sink run(const std::string& variant, const std::string& shape) {
  memhier::kernels::register_families();
  Sink sink;
  for (const auto& v : memhier::registry::find_family("histogram")->variants)
    if (v.name == variant) v.stream(shape, sink);
  return sink;
}

// The accesses alone (no instruction fetch): what the by-hand counts count.
memhier::model::Traffic replay(const std::string& variant, const std::string& shape) {
  return memhier::bench::simulate_one("histogram", variant, shape,
                                      *memhier::model::find_card("h100"), /*fetch_code=*/false)
      .result.traffic;
}

}  // namespace

// Rung 1 at u8-degenerate:1000: 4 tiles of 256 elements, 8 warps each, all 32 warps with a
// lane on (the last has 8): a 32-byte load and an atomic on the one bin's word per warp, 1000
// atomic lanes. Cold: 32 input sectors and the bin's sector read from DRAM, the bin dirty.
TEST(StreamHistogram, GlobalAtomicsDegenerateByHand) {
  const HistSink s = run("global_atomics", "u8-degenerate:1000");
  EXPECT_EQ(s.launches, 1);
  EXPECT_EQ(s.ld_instr, 32);
  EXPECT_EQ(s.ld_sectors, 32);
  EXPECT_EQ(s.atom_instr, 32);
  EXPECT_EQ(s.atom_sectors, 32);
  EXPECT_EQ(s.atom_lanes, 1000);
  EXPECT_EQ(s.atom_words.size(), 1u);
  EXPECT_EQ(s.st_instr, 0);
  const auto t = replay("global_atomics", "u8-degenerate:1000");
  EXPECT_EQ(t.dram_read_bytes(), 32.0 * 32 + 32);
  EXPECT_EQ(t.l2_dirty_end_sectors, 1);
  EXPECT_EQ(t.l1_ld_hits, 0);
}

// Rung 1 on uniform input: an atomic per u8 element on all 256 bins; int32 values skip the
// 2 % outside [0, 256) (the Case's rule), loading 4 bytes an element.
TEST(StreamHistogram, GlobalAtomicsUniform) {
  const HistSink u8 = run("global_atomics", "u8-uniform:65536");
  EXPECT_EQ(u8.atom_lanes, 65536);
  EXPECT_EQ(u8.atom_words.size(), 256u);
  EXPECT_EQ(u8.ld_sectors, 65536 / 32);
  const HistSink i32 = run("global_atomics", "i32-uniform:65536");
  EXPECT_EQ(i32.ld_instr, 65536 / 32);
  EXPECT_EQ(i32.ld_sectors, 65536 / 8);
  EXPECT_GT(i32.atom_lanes, 0.975 * 65536);
  EXPECT_LT(i32.atom_lanes, 0.985 * 65536);
  EXPECT_EQ(i32.atom_words.size(), 256u);
}

// Rungs 2 and 3 at 2^20 u8: 256 blocks (16 elements a thread), 4096 elements each, so every
// block merges all 256 bins: 8 warp atomics over 32 consecutive words (4 sectors) a block.
// Degenerate input merges one bin per block: one lane.
TEST(StreamHistogram, BlockPrivatizedMergesEachBlocksBins) {
  for (const char* v : {"shared_privatized", "warp_privatized"}) {
    const HistSink u = run(v, "u8-uniform:1048576");
    EXPECT_EQ(u.ld_instr, 1048576 / 32) << v;
    EXPECT_EQ(u.atom_instr, 256 * 8) << v;
    EXPECT_EQ(u.atom_lanes, 256 * 256) << v;
    EXPECT_EQ(u.atom_sectors, 256 * 8 * 4) << v;
    const HistSink d = run(v, "u8-degenerate:1048576");
    EXPECT_EQ(d.atom_instr, 256) << v;
    EXPECT_EQ(d.atom_lanes, 256) << v;
  }
}

// On a card that holds 4 blocks, rungs 2 and 3 launch 4 (not the 256 the work asks for),
// each merging all 256 bins once: 4 x 8 warp atomics.
TEST(StreamHistogram, TheGridIsTheSinksCards) {
  for (const char* v : {"shared_privatized", "warp_privatized"}) {
    const HistSink s = run<SmallCardSink>(v, "u8-uniform:1048576");
    EXPECT_EQ(s.ld_instr, 1048576 / 32) << v;
    EXPECT_EQ(s.atom_instr, 4 * 8) << v;
    EXPECT_EQ(s.atom_lanes, 4 * 256) << v;
  }
  // The pairs rung: 4 resident blocks are 2 pairs, each block adding 128 bins in 4 atomics.
  const HistSink p = run<SmallCardSink>("lane_privatized_pairs", "u8-uniform:1048581");
  EXPECT_EQ(p.atom_instr, 4 * 4);
}

// Rungs 4 and 5 at 2^20 + 5 u8: 65536 vectors, 32 blocks of one full tile (2 x 1024 vectors),
// 512 bytes (16 sectors) a warp load, the 5-byte tail one more load; each block's lane 0s
// add the 256 bins one atomic each. Pairs (rung 6, best): 16 pairs, each block of a pair
// adds 128 bins in 4 warp atomics: half the atomics. Cold: the input and the 1 KiB of bins
// read from DRAM once, the bins dirty.
TEST(StreamHistogram, LanePrivatizedByHand) {
  const std::string shape = "u8-uniform:1048581";
  for (const char* v :
       {"lane_privatized", "lane_privatized_runs", "lane_privatized_pairs", "best"}) {
    const bool pairs = std::string(v) == "lane_privatized_pairs" || std::string(v) == "best";
    const HistSink s = run(v, shape);
    EXPECT_EQ(s.ld_instr, 65536 / 32 + 1) << v;
    EXPECT_EQ(s.ld_sectors, 65536 / 2 + 1) << v;
    EXPECT_EQ(s.atom_lanes, pairs ? 32 * 128 : 32 * 256) << v;
    EXPECT_EQ(s.atom_instr, pairs ? 32 * 4 : 32 * 256) << v;
    EXPECT_EQ(s.atom_words.size(), 256u) << v;
    const auto t = replay(v, shape);
    EXPECT_EQ(t.dram_read_bytes(), 1048576.0 + 32 + 1024) << v;
    EXPECT_EQ(t.l2_dirty_end_sectors, 32) << v;
  }
  const HistSink d = run("lane_privatized", "u8-degenerate:1048576");
  EXPECT_EQ(d.atom_lanes, 32);
  const HistSink dp = run("lane_privatized_pairs", "u8-degenerate:1048576");
  EXPECT_EQ(dp.atom_lanes, 16);
}

// The shares at 4129 vectors (u8-uniform:66064): 3 blocks, shares of ceil(4129 / 3) = 1377
// vectors rounded up to 1384 (128-byte boundaries), no full tile, so the rest loop: 32 + 12,
// 32 + 12 and 32 + 11 warp loads (the last 1361 vectors); 692 + 692 + 681 sectors.
TEST(StreamHistogram, LanePrivatizedShares) {
  const HistSink s = run("lane_privatized", "u8-uniform:66064");
  EXPECT_EQ(s.ld_instr, 44 + 44 + 43);
  EXPECT_EQ(s.ld_sectors, 692 + 692 + 681);
  EXPECT_EQ(s.atom_instr, 3 * 256);
  ASSERT_EQ(s.first_load.size(), 3u);
  EXPECT_EQ(s.first_load.at(1) - s.first_load.at(0), 16u * 1384);
  EXPECT_EQ(s.first_load.at(2) - s.first_load.at(0), 16u * 2768);
}
