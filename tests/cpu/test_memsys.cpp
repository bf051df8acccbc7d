// The memory-system model against traffic computed by hand for small streams: a copy, a
// strided read, a transpose tile, an L2 working set one line over capacity, dirty
// evictions, the persisting window, and the launch order's waves.
#include <gtest/gtest.h>

#include <chrono>

#include "memhier/model/card.hpp"
#include "memhier/model/memsys.hpp"
#include "memhier/model/replay.hpp"

using namespace memhier::model;

namespace {

// One SM, a 4 KiB L1 of 4 ways with LRU, and an L2 of `l2_lines` lines in one fully associative set
// (so LRU is exact and the counts can be worked out by hand). Stores count as L2 hits only
// when they find their sector, so the tests see the cache's contents.
HierarchyConfig tiny(long long l2_lines, long long l1_bytes = 4096) {
  HierarchyConfig h;
  h.l2_store_hits = false;
  h.sms = 1;
  h.l1_bytes = l1_bytes;
  h.l1_ways = 4;
  h.l1_random_replacement = false;
  h.l2_bytes = l2_lines * 128;
  h.l2_ways = static_cast<int>(l2_lines);
  h.l2_partitions = 1;
  return h;
}

// A warp instruction on one SM: 32 lanes at base + lane * stride bytes, 4 bytes each (a
// store passes the bytes it writes).
void warp(MemorySystem& m, std::uint64_t base, std::uint64_t stride, bool store) {
  static std::uint64_t bytes[1 << 12][2];
  unsigned masks[1 << 12] = {};
  std::uint64_t first = ~0ull, last = 0;
  for (int l = 0; l < 32; ++l) {
    const std::uint64_t s = (base + l * stride) >> 5;
    first = std::min(first, s >> 2);
    last = std::max(last, s >> 2);
  }
  ASSERT_LT(last - first, 1u << 12);
  for (std::uint64_t line = first; line <= last; ++line)
    bytes[line - first][0] = bytes[line - first][1] = 0;
  for (int l = 0; l < 32; ++l) {
    const std::uint64_t a = base + l * stride, s = a >> 5;
    masks[(s >> 2) - first] |= 1u << (s & 3);
    for (std::uint64_t b = a; b < a + 4; ++b)
      bytes[(b >> 7) - first][(b >> 6) & 1] |= 1ull << (b & 63);
  }
  for (std::uint64_t line = first; line <= last; ++line)
    if (masks[line - first])
      m.access(0, line, masks[line - first], store, true, bytes[line - first]);
}

}  // namespace

// Copy of 1024 floats (32 warps, 128 bytes each): every load sector misses L1 and L2 once;
// the stores allocate in L2 without reading DRAM and stay dirty (no DRAM write yet).
TEST(MemorySystem, CopyCountsEachSectorOnce) {
  MemorySystem m(tiny(1024));
  for (int w = 0; w < 32; ++w) {
    warp(m, (1ull << 20) + w * 128, 4, false);
    warp(m, (2ull << 20) + w * 128, 4, true);
  }
  const Traffic t = m.traffic();
  EXPECT_EQ(t.l1_ld_sectors, 128);
  EXPECT_EQ(t.l1_ld_hits, 0);
  EXPECT_EQ(t.l1_st_sectors, 128);
  EXPECT_EQ(t.l2_ld_sectors, 128);
  EXPECT_EQ(t.l2_st_sectors, 128);
  EXPECT_EQ(t.l2_ld_hits + t.l2_st_hits, 0);
  EXPECT_EQ(t.dram_rd_sectors, 128);
  EXPECT_EQ(t.dram_wr_sectors, 0);
  EXPECT_EQ(t.l2_dirty_end_sectors, 128);
  EXPECT_DOUBLE_EQ(t.l2_hit_rate(), 0.0);
}

// A read at a 128-byte stride (one sector per lane, 32 lines), then the same at +4 bytes:
// the second pass hits L1 in every sector (32 lines fit the 4 KiB L1), so 50% overall.
TEST(MemorySystem, StridedReadHitsL1OnTheNeighbourWord) {
  MemorySystem m(tiny(1024));
  warp(m, 0, 128, false);
  warp(m, 4, 128, false);
  const Traffic t = m.traffic();
  EXPECT_EQ(t.l1_ld_sectors, 64);
  EXPECT_EQ(t.l1_ld_hits, 32);
  EXPECT_DOUBLE_EQ(t.l1_hit_rate(), 50.0);
  EXPECT_EQ(t.l2_ld_sectors, 32);
  EXPECT_EQ(t.dram_rd_sectors, 32);
}

// A non-caching load (ld.global.cg) looks up L1 and never allocates: the re-read misses.
TEST(MemorySystem, NonCachingLoadsDoNotAllocate) {
  MemorySystem m(tiny(1024));
  m.access(0, 7, 0xf, false, false);
  m.access(0, 7, 0xf, false, false);
  const Traffic t = m.traffic();
  EXPECT_EQ(t.l1_ld_hits, 0);
  EXPECT_EQ(t.l2_ld_sectors, 8);
  EXPECT_EQ(t.l2_ld_hits, 4);
}

// A 32x32 transpose tile: 32 row reads (4 sectors each), then 32 column writes (32 lines,
// one sector each). Each output sector gets 8 of the 4-byte writes: the first misses, the
// next seven hit, in L2 and in L1 alike (both write-allocate; the 32 output lines evict the
// input's from the 32-line L1).
TEST(MemorySystem, TransposeTileByHand) {
  MemorySystem m(tiny(1024));
  const std::uint64_t in = 1ull << 20, out = 2ull << 20;
  for (int r = 0; r < 32; ++r) warp(m, in + r * 128, 4, false);
  for (int c = 0; c < 32; ++c) warp(m, out + c * 4, 128, true);
  const Traffic t = m.traffic();
  EXPECT_EQ(t.l1_ld_sectors, 128);
  EXPECT_EQ(t.l1_st_sectors, 1024);
  EXPECT_EQ(t.l1_st_hits, 896);
  EXPECT_EQ(t.l2_st_sectors, 1024);
  EXPECT_EQ(t.l2_st_hits, 896);
  EXPECT_EQ(t.dram_rd_sectors, 128);
  EXPECT_EQ(t.l2_dirty_end_sectors, 128);
}

// A sector written in part is present for the next store but holds no data for a load: a
// 4-byte store, a load of its sector (misses L1 and L2, reads DRAM), then seven stores that
// complete the next sector, whose load then hits L1.
TEST(MemorySystem, PartlyWrittenSectorsServeNoLoad) {
  MemorySystem m(tiny(1024));
  const std::uint64_t line = 50, word0[2] = {0xfull, 0};
  m.access(0, line, 0x1, true, true, word0);
  m.access(0, line, 0x1, false);
  Traffic t = m.traffic();
  EXPECT_EQ(t.l1_st_hits, 0);
  EXPECT_EQ(t.l1_ld_hits, 0);
  EXPECT_EQ(t.l2_ld_hits, 0);
  EXPECT_EQ(t.dram_rd_sectors, 1);
  for (int b = 0; b < 8; ++b) {  // sector 1: bytes 32..63, four at a time
    const std::uint64_t word[2] = {0xfull << (32 + 4 * b), 0};
    m.access(0, line, 0x2, true, true, word);
  }
  m.access(0, line, 0x2, false);
  t = m.traffic();
  EXPECT_EQ(t.l1_st_hits, 7);
  EXPECT_EQ(t.l1_ld_hits, 1);
  EXPECT_EQ(t.dram_rd_sectors, 1);
}

// Store combining: a warp's round of three stores into a line it loaded reaches L2 once a
// sector, and Nsight Compute counts the later two neither in L1 nor in L2; into sectors L1
// does not hold whole (four bytes at a time, never loaded), and across rounds, every store
// goes on.
TEST(MemorySystem, ARoundOfStoresMergesIntoLoadedSectors) {
  MemorySystem m(tiny(1024));
  m.access(0, 60, 0xf, false);  // the loaded line
  m.begin_warp_round();
  for (int k = 0; k < 3; ++k) m.access(0, 60, 0x3, true);
  Traffic t = m.traffic();
  EXPECT_EQ(t.l1_st_sectors, 2);
  EXPECT_EQ(t.l1_st_hits, 2);
  EXPECT_EQ(t.l2_st_sectors, 2);
  m.begin_warp_round();
  m.access(0, 60, 0x3, true);  // a new round sends again
  for (int k = 0; k < 3; ++k) {
    const std::uint64_t word[2] = {0xfull << (4 * k), 0};
    m.access(0, 61, 0x1, true, true, word);
  }
  t = m.traffic();
  EXPECT_EQ(t.l1_st_sectors, 7);
  EXPECT_EQ(t.l2_st_sectors, 7);
}

// A working set of 32 lines in a 32-line L2 hits on the second pass; one line more and LRU
// evicts each line just before it is needed again: no hit at all. (No L1: every load
// reaches L2.)
TEST(MemorySystem, L2WorkingSetOneLineOverCapacity) {
  for (int lines : {32, 33}) {
    MemorySystem m(tiny(32, 0));
    for (int pass = 0; pass < 2; ++pass)
      for (int l = 0; l < lines; ++l) m.access(0, 1000 + l, 0xf, false);
    const Traffic t = m.traffic();
    EXPECT_EQ(t.l2_ld_sectors, 2 * 4 * lines);
    EXPECT_EQ(t.l2_ld_hits, lines == 32 ? 4 * 32 : 0) << lines << " lines";
    EXPECT_EQ(t.dram_rd_sectors, lines == 32 ? 4 * 32 : 8 * 33) << lines << " lines";
  }
}

// A cyclic working set a line over each L1 set (40 lines through 8 sets of 4): LRU evicts
// each line just before its reuse and hits never; random replacement keeps a share of them, as
// the H100's L1 keeps a share of an axpy's lines past its capacity.
TEST(MemorySystem, RandomL1ReplacementKeepsPartOfAThrashingSet) {
  for (bool random : {false, true}) {
    HierarchyConfig h = tiny(1024);
    h.l1_random_replacement = random;
    MemorySystem m(h);
    for (int pass = 0; pass < 8; ++pass)
      for (int l = 0; l < 40; ++l) m.access(0, 4096 + l, 0xf, false);
    const Traffic t = m.traffic();
    ASSERT_EQ(t.l1_ld_sectors, 8 * 40 * 4);
    const double share = static_cast<double>(t.l1_ld_hits) / (7 * 40 * 4);  // passes 2..8
    if (random) {
      EXPECT_GT(share, 0.2);
      EXPECT_LT(share, 0.9);
    } else {
      EXPECT_EQ(t.l1_ld_hits, 0);
    }
  }
}

// One-byte-a-lane loads ask a line's sectors one request each: a request whose 64-byte
// partner the SM's previous request asked is looked up again, a hit, in the share the
// configuration sets (26.7 % here: any share; card.cpp holds each measured card's); requests
// of two sectors or a whole line never are.
TEST(MemorySystem, OneSectorRequestsAfterTheirPartnerAreLookedUpAgain) {
  const long long lines = 20000;
  for (unsigned width : {1u, 2u, 4u}) {
    HierarchyConfig h = tiny(4 * lines, 0);
    h.l2_ways = 16;  // room for every line; sets keep the lookups fast
    h.l2_pair_replay_share = 0.267;
    MemorySystem m(h);
    for (long long l = 0; l < lines; ++l)
      for (unsigned s = 0; s < 4; s += width)
        m.access(0, 7000 + static_cast<std::uint64_t>(l), ((1u << width) - 1) << s, false);
    const Traffic t = m.traffic();
    const long long extra = t.l2_ld_sectors - 4 * lines;
    EXPECT_EQ(t.l2_ld_hits, extra) << width;  // every sector missed once; the extras hit
    if (width == 1)
      EXPECT_NEAR(static_cast<double>(extra) / (2 * lines), 0.267, 0.02);  // sectors 1 and 3
    else
      EXPECT_EQ(extra, 0) << width;
  }
}

// A kernel's 3,200 bytes of code after a cold start: 100 sectors read from DRAM once, 700 L2
// lookups of which a quarter (175) miss, nothing in L1.
TEST(MemorySystem, InstructionFetchReadsTheCodeOnce) {
  MemorySystem m(tiny(64));
  m.instruction_fetch(3200);
  const Traffic t = m.traffic();
  EXPECT_EQ(t.dram_rd_sectors, 100);
  EXPECT_EQ(t.l2_lookups(), 700);
  EXPECT_EQ(t.l2_lookups() - t.l2_hits(), 175);
  EXPECT_EQ(t.l1_ld_sectors, 0);
}

// Writing 64 lines through a 32-line L2 evicts the first 32, each four dirty sectors.
TEST(MemorySystem, DirtyEvictionsAreDramWrites) {
  MemorySystem m(tiny(32, 0));
  for (int l = 0; l < 64; ++l) m.access(0, 5000 + l, 0xf, true);
  const Traffic t = m.traffic();
  EXPECT_EQ(t.dram_wr_sectors, 32 * 4);
  EXPECT_EQ(t.l2_dirty_end_sectors, 32 * 4);
  EXPECT_EQ(t.dram_rd_sectors, 0);
}

// A hot set of 8 lines, then a stream of 1000 lines, then the hot set again, in an L2 of
// 64 lines: without a window the stream evicts the hot lines; with a persisting window over
// them (hit ratio 1, 16 lines set aside) every hot re-read hits.
TEST(MemorySystem, PersistingWindowKeepsHotLines) {
  for (bool window : {false, true}) {
    HierarchyConfig h = tiny(64, 0);
    h.l2_ways = 16;
    if (window) h.persist = {100 * 128, 8 * 128, 1.0, 16 * 128};
    MemorySystem m(h);
    for (int l = 0; l < 8; ++l) m.access(0, 100 + l, 0xf, false);
    for (int l = 0; l < 1000; ++l) m.access(0, 10000 + l, 0xf, false);
    const long long before = m.traffic().l2_ld_hits;
    for (int l = 0; l < 8; ++l) m.access(0, 100 + l, 0xf, false);
    const Traffic t = m.traffic();
    EXPECT_EQ(t.l2_ld_hits - before, window ? 32 : 0) << (window ? "with" : "without");
    EXPECT_EQ(t.l2_persist_hits, window ? 32 : 0);
  }
}

// As Nsight Compute counts them, stores hit in L2 whatever it held: a copy's hit rate is
// its stores' share of the lookups, 50%.
TEST(MemorySystem, StoresCountAsL2Hits) {
  HierarchyConfig h = tiny(1024);
  h.l2_store_hits = true;
  MemorySystem m(h);
  for (int w = 0; w < 32; ++w) {
    warp(m, (1ull << 20) + w * 128, 4, false);
    warp(m, (2ull << 20) + w * 128, 4, true);
  }
  const Traffic t = m.traffic();
  EXPECT_EQ(t.l2_st_hits, 128);
  EXPECT_EQ(t.l2_ld_hits, 0);
  EXPECT_DOUBLE_EQ(t.l2_hit_rate(), 50.0);
  EXPECT_EQ(t.dram_rd_sectors, 128);
}

// Two partitions, an SM on each: a line read by both is fetched from DRAM once; whichever SM
// is far from its home looks up its own partition (a miss) and then the home over the fabric,
// and a second read from that SM hits its local copy with no fabric lookup.
TEST(MemorySystem, FarLinesAreCachedLocallyToo) {
  HierarchyConfig h = tiny(64, 0);
  h.sms = 2;
  h.l2_partitions = 2;
  h.l2_ways = 16;
  h.l2_bytes = 2 * 64 * 128;
  for (std::uint64_t line : {10u, 11u, 12u, 13u}) {
    MemorySystem m(h);
    m.access(0, line, 0xf, false);
    m.access(1, line, 0xf, false);
    Traffic t = m.traffic();
    EXPECT_EQ(t.dram_rd_sectors, 4) << line;
    EXPECT_EQ(t.l2_ld_sectors, 8) << line;
    EXPECT_EQ(t.l2_fabric_sectors, 4) << line;
    const long long fabric = t.l2_fabric_sectors;
    m.access(0, line, 0xf, false);
    m.access(1, line, 0xf, false);
    t = m.traffic();
    EXPECT_EQ(t.l2_fabric_sectors, fabric) << line;
    EXPECT_EQ(t.dram_rd_sectors, 4) << line;
    EXPECT_EQ(t.l2_ld_hits, t.l2_fabric_hits == 4 ? 8 : 12) << line;  // home SM 0 or 1
    // As ncu counts them: the SMs' 16 lookups and the 4 at home over the fabric; 8 miss (the
    // far SM's first near lookup, and the first read's lookup that goes to DRAM): 12 of 20 hit.
    EXPECT_EQ(t.l2_lookups(), 20) << line;
    EXPECT_EQ(t.l2_hits(), 12) << line;
    EXPECT_DOUBLE_EQ(t.l2_hit_rate(), 60.0) << line;
  }
}

// The L2::128B / L2::256B fetch hints, by hand: one sector asked for, a miss fills the aligned
// 128- or 256-byte block at home from DRAM with one lookup counted; the neighbour's sectors then
// hit. DRAM reads the block once either way (a stream reading every sector reads no more).
TEST(MemorySystem, PromotedLoadsFetchTheirBlock) {
  for (int promote : {0, 128, 256}) {
    MemorySystem m(tiny(64, 0));
    m.access(0, 10, 0x1, false, false, nullptr, promote);
    Traffic t = m.traffic();
    EXPECT_EQ(t.l2_lookups(), 1) << promote;
    EXPECT_EQ(t.l2_hits(), 0) << promote;
    EXPECT_EQ(t.dram_rd_sectors, promote == 0 ? 1 : promote / 32) << promote;
    m.access(0, 10, 0xe, false, false, nullptr, promote);  // the line's other sectors
    m.access(0, 11, 0xf, false, false, nullptr, promote);  // its neighbour in the 256 bytes
    t = m.traffic();
    EXPECT_EQ(t.l2_lookups(), 8) << promote;
    EXPECT_EQ(t.l2_hits(), promote == 0 ? 0 : promote == 128 ? 3 : 7) << promote;
    EXPECT_EQ(t.dram_rd_sectors, 8) << promote;
  }
}

TEST(MemorySystem, BadGeometryIsOneSentence) {
  HierarchyConfig h = tiny(32);
  h.persist = {0, 4096, 1.0, 32 * 128};  // the whole L2 set aside
  EXPECT_THROW(MemorySystem{h}, std::invalid_argument);
  h = tiny(32);
  h.l2_bytes = 0;
  EXPECT_THROW(MemorySystem{h}, std::invalid_argument);
}

// The tables: every compute capability has a card, found by name and by capability.
TEST(Cards, EveryArchHasACard) {
  for (const ArchSpec& a : all_archs()) {
    const Card* c = find_card(a.cc());
    ASSERT_NE(c, nullptr) << a.cc();
    EXPECT_EQ(c->arch().cc(), a.cc());
    EXPECT_GT(c->l2_bytes, 0);
    EXPECT_FALSE(c->dram_source.empty());
  }
  ASSERT_NE(find_card("H100"), nullptr);
  EXPECT_EQ(find_card("h100")->sms, 132);
  EXPECT_EQ(find_card("sm_80")->l2_bytes, 40LL << 20);
  EXPECT_EQ(find_card("a101"), nullptr);
  EXPECT_EQ(find_card(""), nullptr);
}

// The launch order on an H100: 256-thread blocks with no shared memory are 8 per SM, so
// a wave is 132 x 8 blocks; 2000 blocks are two waves; a coalesced copy counts as above.
TEST(LaunchSimulator, WavesAndCounts) {
  const Card& h100 = *find_card("h100");
  LaunchSimulator sim(h100);
  sim.launch(256, 0);
  const long long blocks = 2000;
  for (long long b = 0; b < blocks; ++b)
    for (int w = 0; w < 8; ++w) {
      sim.at(static_cast<std::uint64_t>(b), w);
      WarpAccess ld, st;
      st.is_store = true;
      for (int l = 0; l < 32; ++l) {
        const std::uint64_t i = static_cast<std::uint64_t>((b * 8 + w) * 32 + l);
        ld.address[l] = (1ull << 40) + 4 * i;
        st.address[l] = (2ull << 40) + 4 * i;
      }
      sim.global(ld);
      sim.global(st);
    }
  const SimResult r = sim.finish();
  EXPECT_EQ(r.blocks_per_sm, 8);
  EXPECT_EQ(r.waves, 2);
  EXPECT_EQ(r.blocks, blocks);
  EXPECT_EQ(r.instructions, blocks * 16);
  // 8 blocks reserve 8 KiB: the 8 KiB carveout leaves 248 KiB of the 256 KiB for L1.
  EXPECT_EQ(r.l1_bytes, 248 * 1024);
  EXPECT_EQ(r.traffic.dram_rd_sectors, blocks * 8 * 4);
  EXPECT_EQ(r.traffic.dram_wr_sectors, 0);
  EXPECT_EQ(r.traffic.l2_st_sectors, blocks * 8 * 4);
  EXPECT_GT(r.time_bound_s, 0);
}

// An L2 prefetch of a 256-byte row (two lines) before the warp reads it: the prefetch's 8
// sector lookups miss and read DRAM; the load then misses L1 and hits L2 in all 8 sectors.
TEST(LaunchSimulator, L2PrefetchFillsL2NotL1) {
  LaunchSimulator sim(*find_card("h100"));
  sim.launch(32, 0);
  sim.at(0, 0);
  sim.l2_prefetch(1ull << 40, 256);
  WarpAccess ld;
  ld.width_bytes = 8;
  for (int l = 0; l < 32; ++l) ld.address[l] = (1ull << 40) + 8 * l;
  sim.global(ld);
  const Traffic t = sim.finish().traffic;
  EXPECT_EQ(t.dram_rd_sectors, 8);
  EXPECT_EQ(t.l1_ld_sectors, 8);
  EXPECT_EQ(t.l1_ld_hits, 0);
  EXPECT_EQ(t.l2_ld_sectors, 16);
  EXPECT_EQ(t.l2_ld_hits, 8);
}

// Two kernels of one stream: the second starts from cold caches, as Nsight Compute profiles
// it, so a row both read is read from DRAM twice (once within one kernel), a row the first
// wrote and the second reads is read from DRAM, and the counts are summed.
TEST(LaunchSimulator, EachKernelOfAStreamStartsCold) {
  const auto run = [](bool two_kernels) {
    LaunchSimulator sim(*find_card("h100"));
    WarpAccess row;
    for (int l = 0; l < 32; ++l) row.address[l] = (1ull << 40) + 4 * l;
    WarpAccess st = row;
    st.is_store = true;
    for (int l = 0; l < 32; ++l) st.address[l] = (2ull << 40) + 4 * l;
    WarpAccess ld_st = st;
    ld_st.is_store = false;
    sim.launch(32, 0);
    sim.at(0, 0);
    sim.global(row);
    sim.global(st);
    if (two_kernels) sim.launch(64, 0);
    sim.at(two_kernels ? 0 : 1, 0);
    sim.global(row);
    sim.global(ld_st);
    return sim.finish();
  };
  const SimResult one = run(false), two = run(true);
  EXPECT_EQ(one.traffic.dram_rd_sectors, 4);
  EXPECT_EQ(two.traffic.dram_rd_sectors, 12);      // the row twice, the stored row once
  EXPECT_EQ(two.traffic.l2_dirty_end_sectors, 4);  // the first kernel's store, still dirty
  EXPECT_EQ(two.instructions, 4);
  EXPECT_EQ(two.blocks, 2);
}

// A long streaming read through a 50 MiB L2 counts every sector once; the replay rate is
// printed, not asserted (speed belongs in benchmarks: under AddressSanitizer on a loaded
// 2-core machine it fell to 5.0 M sectors/s).
TEST(MemorySystem, ALongStreamCountsEverySectorOnce) {
  MemorySystem m(hierarchy_for(*find_card("h100"), 200 * 1024));
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t lines = 4u << 20;  // 16 M sectors, 512 MiB
  for (std::uint64_t l = 0; l < lines; ++l) m.access(static_cast<int>(l % 132), l, 0xf, false);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(m.traffic().dram_rd_sectors, static_cast<long long>(4 * lines));
  std::printf("memory-system model: %.1f M sectors/s\n", 4.0 * lines / s / 1e6);
}

// Atomics on 256 bins (1 KiB, 8 lines): the first atomic on each sector reads it from DRAM
// and misses; every later one hits at L2; none hits in L1 nor allocates there; the bins end
// dirty in L2.
TEST(MemorySystem, AtomicsReadOnceThenHitAtL2) {
  MemorySystem m(tiny(64));
  for (int round = 0; round < 3; ++round)
    for (std::uint64_t line = 0; line < 8; ++line) m.atomic(0, line, 0xfu);
  for (std::uint64_t line = 0; line < 8; ++line) m.access(0, line, 0xfu, false);  // a load after
  const Traffic t = m.traffic();
  EXPECT_EQ(t.l1_atom_sectors, 96);
  EXPECT_EQ(t.l1_ld_hits, 0);  // the atomics left nothing in L1
  EXPECT_EQ(t.l2_atom_sectors, 96);
  EXPECT_EQ(t.l2_atom_hits, 64);
  EXPECT_EQ(t.l2_ld_hits, 32);
  EXPECT_EQ(t.dram_rd_sectors, 32);
  EXPECT_EQ(t.l2_dirty_end_sectors, 32);
  EXPECT_NEAR(t.l1_hit_rate(), 0.0, 1e-9);
}

// The dirty-line cap: with 7 dirty lines allowed in a 16-way set, an 8th line written whole
// writes the oldest dirty one back (4 sectors) and leaves it clean; 7 lines stay dirty.
TEST(MemorySystem, DirtyCapWritesTheOldestBack) {
  HierarchyConfig h = tiny(16, 0);  // no L1: the load below reaches L2
  h.l2_dirty_ways = 7;
  MemorySystem m(h);
  for (std::uint64_t line = 0; line < 8; ++line) m.access(0, line, 0xfu, true);
  Traffic t = m.traffic();
  EXPECT_EQ(t.dram_wr_sectors, 4);
  EXPECT_EQ(t.l2_dirty_end_sectors, 28);
  m.access(0, 0, 0xfu, false);  // line 0 is still there, clean: a load hits it
  t = m.traffic();
  EXPECT_EQ(t.l2_ld_hits, 4);
  EXPECT_EQ(t.dram_rd_sectors, 0);
}

// A sector written in part and evicted dirty costs a DRAM write and a read (read-modify-write);
// a whole one only the write.
TEST(MemorySystem, PartlyWrittenSectorEvictedCostsARead) {
  MemorySystem m(tiny(1));
  std::uint64_t four_bytes[2] = {0xfull, 0};
  m.access(0, 0, 0x1u, true, true, four_bytes);  // 4 bytes of sector 0 of line 0
  m.access(0, 1, 0xfu, true);                    // evicts line 0
  m.access(0, 2, 0xfu, true);                    // evicts line 1, whole
  const Traffic t = m.traffic();
  EXPECT_EQ(t.dram_wr_sectors, 5);
  EXPECT_EQ(t.dram_rd_sectors, 1);
}
