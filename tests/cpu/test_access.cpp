// The seeds' rules for shared and global memory, as tests of the cost model.
#include <gtest/gtest.h>

#include <numeric>

#include "memhier/model/access.hpp"
#include "memhier/model/analyze.hpp"

using namespace memhier::model;

namespace {

WarpAccess warp_of(int width, std::uint64_t (*addr)(int lane)) {
  WarpAccess w;
  w.width_bytes = width;
  for (int l = 0; l < 32; ++l) w.address[l] = addr(l);
  return w;
}

WarpAccess strided(int width, int stride_elems, std::uint64_t base = 0) {
  WarpAccess w;
  w.width_bytes = width;
  for (int l = 0; l < 32; ++l)
    w.address[l] = base + static_cast<std::uint64_t>(l) * stride_elems * width;
  return w;
}

SharedAnalysis shared(const std::string& decl, const std::string& expr, WarpContext ctx = {}) {
  const Decl d = parse_decl(decl);
  return analyze_shared(Access::parse(expr, d), ctx);
}

}  // namespace

// Seed 002: degree of a 4-byte stride-s access is gcd(s, 32).
TEST(SharedModel, StrideTableDegreeIsGcd) {
  for (int s = 1; s <= 33; ++s) {
    const SharedCost c = shared_cost(strided(4, s));
    EXPECT_EQ(c.degree, std::gcd(s, 32)) << "stride " << s;
    EXPECT_EQ(c.wavefronts, std::gcd(s, 32)) << "stride " << s;
    EXPECT_EQ(c.ideal_wavefronts, 1);
    EXPECT_EQ(c.conflicts, std::gcd(s, 32) - 1);
  }
  EXPECT_EQ(shared_cost(strided(4, 64)).degree, 32);
}

TEST(SharedModel, TileColumnReadIs32WayAndFixesAreConflictFree) {
  WarpContext ctx;
  ctx.block_x = 32;
  ctx.block_y = 32;
  ctx.warp = 3;
  EXPECT_EQ(shared("float tile[32][32]", "tile[ty][tx]", ctx).wavefronts, 1);
  const auto col = shared("float tile[32][32]", "tile[tx][ty]", ctx);
  EXPECT_EQ(col.degree, 32);
  EXPECT_EQ(col.conflicts, 31);
  EXPECT_EQ(shared("float tile[32][33]", "tile[tx][ty]", ctx).conflicts, 0);
  EXPECT_EQ(shared("float tile[32][32]", "tile[tx][ty ^ tx]", ctx).conflicts, 0);
  EXPECT_EQ(shared("float tile[32][32]", "tile[ty][tx ^ ty]", ctx).conflicts, 0);
}

TEST(SharedModel, SuggestedFixesAreReanalyzedConflictFree) {
  WarpContext ctx;
  ctx.block_x = 32;
  ctx.block_y = 32;
  const Decl d = parse_decl("float tile[32][32]");
  const Access a = Access::parse("tile[tx][ty]", d);
  const auto fixes = suggest_shared_fixes(d, a, ctx);
  ASSERT_EQ(fixes.size(), 2u);
  EXPECT_EQ(fixes[0].kind, "padding");
  EXPECT_EQ(fixes[0].decl_text, "float tile[32][33]");
  EXPECT_EQ(fixes[0].analysis.conflicts, 0);
  EXPECT_EQ(fixes[1].kind, "xor-swizzle");
  EXPECT_EQ(fixes[1].analysis.conflicts, 0);
  // The fix itself must re-parse and give the same answer.
  const Decl d2 = parse_decl(fixes[1].decl_text);
  EXPECT_EQ(analyze_shared(Access::parse(fixes[1].access_text, d2), ctx).conflicts, 0);
}

TEST(SharedModel, OneDimensionalPaddingFix) {
  WarpContext ctx;
  const Decl d = parse_decl("float s[1024]");
  const Access a = Access::parse("s[lane * 32]", d);
  ASSERT_EQ(analyze_shared(a, ctx).degree, 32);
  const auto fixes = suggest_shared_fixes(d, a, ctx);
  ASSERT_FALSE(fixes.empty());
  EXPECT_EQ(fixes[0].analysis.conflicts, 0);
}

TEST(SharedModel, BroadcastAndMulticast) {
  // Every lane reads word 0: one wavefront.
  EXPECT_EQ(shared_cost(warp_of(4, [](int) { return std::uint64_t{0}; })).wavefronts, 1);
  // Pairs of lanes share a word: still one wavefront.
  EXPECT_EQ(shared_cost(warp_of(4, [](int l) { return std::uint64_t(l / 2) * 4; })).wavefronts, 1);
  // Byte array: 4 lanes per word, consecutive words: conflict-free.
  EXPECT_EQ(shared_cost(strided(1, 1)).wavefronts, 1);
  // Half-word array: 2 lanes per word.
  EXPECT_EQ(shared_cost(strided(2, 1)).wavefronts, 1);
  // char c[lane*4]: each lane its own word, all banks distinct.
  EXPECT_EQ(shared_cost(strided(1, 4)).wavefronts, 1);
  // char c[lane*128]: all in bank 0, distinct words: 32-way.
  EXPECT_EQ(shared_cost(strided(1, 128)).degree, 32);
  // Two words in the same bank, each read by half the warp: 2-way.
  EXPECT_EQ(shared_cost(warp_of(4, [](int l) { return std::uint64_t(l % 2) * 128; })).degree, 2);
}

TEST(SharedModel, StoresCountOneWriterPerWord) {
  WarpAccess w = warp_of(4, [](int) { return std::uint64_t{64}; });
  w.is_store = true;
  EXPECT_EQ(shared_cost(w).wavefronts, 1);
}

TEST(SharedModel, StructsOfThreeWordsAreConflictFree) {
  // Seed 004: struct {float x, y, z;} read member by member: 3 instructions, stride 3.
  const auto a = shared("struct {float x, y, z;} v[64]", "v[lane]");
  EXPECT_EQ(a.per_instruction.size(), 3u);
  EXPECT_EQ(a.conflicts, 0);
  EXPECT_EQ(shared("struct {float x, y, z;} v[64]", "v[lane].y").wavefronts, 1);
  // struct {float f; int c;}: stride 2 words, 2-way per member.
  EXPECT_EQ(shared("struct {float f; int c;} m[64]", "m[lane].f").degree, 2);
}

TEST(SharedModel, EightAndSixteenBytePhases) {
  const SharedCost d = shared_cost(strided(8, 1));
  EXPECT_EQ(d.phases, 2);
  EXPECT_EQ(d.wavefronts, 2);
  EXPECT_EQ(d.ideal_wavefronts, 2);
  EXPECT_EQ(d.conflicts, 0);
  const SharedCost v = shared_cost(strided(16, 1));
  EXPECT_EQ(v.phases, 4);
  EXPECT_EQ(v.wavefronts, 4);
  EXPECT_EQ(v.conflicts, 0);
  // double stride 16 elements = 128 bytes: 16 lanes of a phase on one bank pair: 16-way.
  EXPECT_EQ(shared_cost(strided(8, 16)).degree, 16);
  EXPECT_EQ(shared_cost(strided(8, 16)).wavefronts, 32);
  // float4 stride 2: 8 lanes of a phase span 256 bytes: 2-way.
  EXPECT_EQ(shared_cost(strided(16, 2)).wavefronts, 8);
  // Only the first quarter active: one phase carries data.
  WarpAccess q = strided(16, 1);
  q.active_mask = 0xff;
  EXPECT_EQ(shared_cost(q).ideal_wavefronts, 1);
  EXPECT_EQ(shared_cost(q).wavefronts, 1);
}

// Measured with Nsight Compute on an H100 (memhier profile shared-stride, memhier profile
// gemm): loads whose phases use disjoint banks, one word each, or whose lanes all read one
// address share one wavefront, within the whole warp for 8-byte and within each half-warp
// for 16-byte accesses; stores never merge.
TEST(SharedModel, WideLoadsMergePhasesThatFitOneWavefront) {
  auto cost = [](int width, bool store, std::uint64_t (*addr)(int)) {
    WarpAccess w = warp_of(width, addr);
    w.is_store = store;
    return shared_cost(w);
  };
  const auto half = [](int l) { return std::uint64_t(l / 2) * 8; };        // d[lane/2]
  const auto bcast = [](int) { return std::uint64_t{0}; };                  // broadcast
  const auto quarter = [](int l) { return std::uint64_t(l / 4) * 16; };     // v[lane/4]
  const auto repeat8 = [](int l) { return std::uint64_t(l % 8) * 2 * 16; }; // v[(lane%8)*2]
  EXPECT_EQ(cost(8, false, half).wavefronts, 1);
  EXPECT_EQ(cost(8, true, half).wavefronts, 2);
  EXPECT_EQ(cost(8, false, bcast).wavefronts, 1);
  EXPECT_EQ(cost(16, false, bcast).wavefronts, 2);  // half-warps never merge with each other
  EXPECT_EQ(cost(16, true, bcast).wavefronts, 4);
  EXPECT_EQ(cost(16, false, quarter).wavefronts, 2);
  EXPECT_EQ(cost(16, false, quarter).conflicts, 0);
  // Each quarter needs two words of some bank: no merge, 2 wavefronts per quarter.
  EXPECT_EQ(cost(16, false, repeat8).wavefronts, 8);
  EXPECT_EQ(cost(16, false, repeat8).conflicts, 4);
  // Every quarter (half for 8 bytes) reads the same words: one word per bank in all, but
  // each bank serves two phases, so each phase takes its own wavefront. 128 bytes per
  // phase: the shared-stride patterns; 64 bytes: warp_tiled's B fragments (4 float4 per
  // quarter), measured in the GEMM ladder.
  const auto same128_16 = [](int l) { return std::uint64_t(l % 8) * 16; };  // v[lane%8]
  const auto same128_8 = [](int l) { return std::uint64_t(l % 16) * 8; };   // d[lane%16]
  const auto same64_16 = [](int l) { return std::uint64_t(l % 4) * 16; };   // v[lane%4]
  EXPECT_EQ(cost(16, false, same128_16).wavefronts, 4);
  EXPECT_EQ(cost(16, false, same128_16).conflicts, 0);
  EXPECT_EQ(cost(8, false, same128_8).wavefronts, 2);
  EXPECT_EQ(cost(16, false, same64_16).wavefronts, 4);
  // Disjoint halves of 128 bytes each still merge: v[lane/2] in 2 wavefronts.
  const auto pairs = [](int l) { return std::uint64_t(l / 2) * 16; };  // v[lane/2]
  EXPECT_EQ(cost(16, false, pairs).wavefronts, 2);
}

TEST(SharedModel, InactiveLanesCostNothing) {
  WarpAccess w = strided(4, 32);
  w.active_mask = 0;
  const SharedCost c = shared_cost(w);
  EXPECT_EQ(c.wavefronts, 0);
  EXPECT_EQ(c.ideal_wavefronts, 0);
  EXPECT_EQ(c.lane_bank[0], -1);
  w.active_mask = 1;
  EXPECT_EQ(shared_cost(w).wavefronts, 1);
}

// Seed 004, "Access Patterns vs. Memory Throughput".
TEST(GlobalModel, AlignedConsecutive) {
  const GlobalCost c = global_cost(strided(4, 1));
  EXPECT_EQ(c.requests, 1);
  EXPECT_EQ(c.sectors, 4);
  EXPECT_EQ(c.lines, 1);
  EXPECT_EQ(c.ideal_sectors, 4);
  EXPECT_DOUBLE_EQ(c.caching_utilization, 1.0);
  EXPECT_DOUBLE_EQ(c.noncaching_utilization, 1.0);
}

TEST(GlobalModel, AlignedPermuted) {
  const GlobalCost c = global_cost(warp_of(4, [](int l) { return std::uint64_t((l * 7) % 32) * 4; }));
  EXPECT_EQ(c.sectors, 4);
  EXPECT_EQ(c.lines, 1);
  EXPECT_DOUBLE_EQ(c.noncaching_utilization, 1.0);
}

TEST(GlobalModel, MisalignedConsecutive) {
  const GlobalCost c = global_cost(strided(4, 1, 4));
  EXPECT_EQ(c.sectors, 5);
  EXPECT_EQ(c.lines, 2);
  EXPECT_DOUBLE_EQ(c.caching_utilization, 0.5);
  EXPECT_DOUBLE_EQ(c.noncaching_utilization, 0.8);
  // Misaligned by a whole sector: still 4 sectors (the lecture's "some patterns").
  EXPECT_EQ(global_cost(strided(4, 1, 32)).sectors, 4);
}

TEST(GlobalModel, AllLanesOneWord) {
  const GlobalCost c = global_cost(warp_of(4, [](int) { return std::uint64_t{256}; }));
  EXPECT_EQ(c.sectors, 1);
  EXPECT_EQ(c.lines, 1);
  EXPECT_EQ(c.bytes_needed, 4);
  EXPECT_EQ(c.ideal_sectors, 1);
  EXPECT_DOUBLE_EQ(c.noncaching_utilization, 0.125);
  EXPECT_DOUBLE_EQ(c.caching_utilization, 0.03125);
}

TEST(GlobalModel, ScatteredInNLines) {
  // Stride 32 words: every lane in its own line and sector: N = 32.
  const GlobalCost c = global_cost(strided(4, 32));
  EXPECT_EQ(c.sectors, 32);
  EXPECT_EQ(c.lines, 32);
  EXPECT_DOUBLE_EQ(c.caching_utilization, 128.0 / (32 * 128));
  EXPECT_DOUBLE_EQ(c.noncaching_utilization, 128.0 / (32 * 32));
  EXPECT_DOUBLE_EQ(c.sectors_per_request, 32.0);
}

TEST(GlobalModel, WideAccessesAndStrides) {
  EXPECT_EQ(global_cost(strided(16, 1)).sectors, 16);
  EXPECT_EQ(global_cost(strided(16, 1)).lines, 4);
  EXPECT_EQ(global_cost(strided(8, 1)).sectors, 8);
  EXPECT_EQ(global_cost(strided(4, 2)).sectors, 8);
  EXPECT_EQ(global_cost(strided(4, 8)).sectors, 32);
  WarpAccess none = strided(4, 1);
  none.active_mask = 0;
  EXPECT_EQ(global_cost(none).requests, 0);
  EXPECT_EQ(global_cost(none).sectors, 0);
}

TEST(GlobalModel, OffsetBytesShiftsTheBase) {
  WarpContext ctx;
  ctx.offset_bytes = 4;
  const Decl d = parse_decl("float a[]");
  const auto g = analyze_global(Access::parse("a[lane]", d), ctx);
  EXPECT_EQ(g.sectors, 5);
  EXPECT_EQ(g.lines, 2);
}

TEST(Analyze, LaneCoordinatesFollowTheBlockShape) {
  WarpContext ctx;
  ctx.block_x = 8;
  ctx.block_y = 4;
  ctx.block_z = 2;
  ctx.warp = 1;
  const Env e = lane_env(ctx, 5);  // thread 37
  EXPECT_EQ(e.tx, 5);
  EXPECT_EQ(e.ty, 0);
  EXPECT_EQ(e.tz, 1);
  EXPECT_EQ(e.lane, 5);
  EXPECT_EQ(e.warp, 1);
}

TEST(Analyze, LanesPastTheBlockAreInactive) {
  WarpContext ctx;
  ctx.block_x = 20;
  const Decl d = parse_decl("float a[]");
  const auto g = analyze_global(Access::parse("a[lane]", d), ctx);
  EXPECT_EQ(g.per_instruction[0].warp.active_mask, (1u << 20) - 1);
  EXPECT_EQ(g.bytes_needed, 80);
}
