// The stencil tuner's model: the best rung's configurations on a card given as data (SMs,
// shared memory per block, bytes in flight needed, resident blocks), which a first call times.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "memhier/kernels/stencil_tuning.hpp"

namespace tuning = memhier::stencil::tuning;

namespace {

// The table's kinds of configuration: 128x64 and 128x32 single-buffered (today's defaults),
// then double-buffered persistent ones.
const std::vector<tuning::Config> kConfigs = {
    {8, 8, 4, 1},  // 0: 128x64, 256 threads
    {4, 8, 8, 1},  // 1: 128x32, 128 threads
    {8, 8, 2, 2},  // 2: 128x64, two buffers
    {4, 8, 8, 2},  // 3: 128x32, two buffers
};

// A card with room for everything: 132 SMs, 227 KiB a block, the in-flight term left out.
const tuning::Card kRoomy{132, 227 * 1024, 0};
const std::vector<int> kBlocks = {4, 8, 2, 5};

bool contains(const std::vector<std::size_t>& v, std::size_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

TEST(StencilPreselect, SharedMemoryOfEachConfiguration) {
  // (64 + 6) rows of 34 float4 chunks, once per stage.
  EXPECT_EQ(kConfigs[0].smem_bytes(7), 70 * 34 * 16);
  EXPECT_EQ(kConfigs[2].smem_bytes(7), 2 * 70 * 34 * 16);
  EXPECT_EQ(kConfigs[1].smem_bytes(3), 34 * 34 * 16);
  EXPECT_EQ(kConfigs[1].tile_h(), 32);
  EXPECT_EQ(kConfigs[0].threads(), 256);
  // A TMA box lands on a 128-byte boundary, so each of its buffers rounds up to 128 bytes:
  // (32 + 6) rows of 544 bytes are 20672, twice 20736 for two stages.
  const tuning::Config box{4, 8, 6, 2, tuning::Fill::tensor_box};
  EXPECT_TRUE(box.needs_tma());
  EXPECT_FALSE(kConfigs[0].needs_tma());
  EXPECT_EQ(box.stage_bytes(7), 20736);
  EXPECT_EQ(box.smem_bytes(7), 2 * 20736);
  EXPECT_EQ(box.fill_bytes(7), 38.0 * 544);
}

TEST(StencilPreselect, TilesRoundsAndHalo) {
  const std::vector<tuning::Prediction> p =
      tuning::predict(8192, 8192, 5, kRoomy, kConfigs, kBlocks);
  ASSERT_EQ(p.size(), kConfigs.size());
  for (const tuning::Prediction& x : p) {
    const tuning::Config& c = kConfigs[x.candidate];
    EXPECT_EQ(x.tiles, (8192LL / c.tile_h()) * (8192 / 128));
    EXPECT_DOUBLE_EQ(x.halo, c.tile_h() / (c.tile_h() + 4.0));
    const double slots = 132.0 * std::min(kBlocks[x.candidate], c.min_blocks);
    const double rounds = std::ceil(static_cast<double>(x.tiles) / slots);
    EXPECT_DOUBLE_EQ(x.wave_fill, static_cast<double>(x.tiles) / (rounds * slots));
    EXPECT_DOUBLE_EQ(x.edge_fill, 1.0);  // 8192 is a whole number of every tile
    EXPECT_DOUBLE_EQ(x.inflight, 1.0);   // the card did not say what it needs
  }
  // The occupancy calculator's 5 blocks are capped at the configuration's 8: 5 stay.
  EXPECT_EQ(std::find_if(p.begin(), p.end(), [](const auto& x) { return x.candidate == 3; })
                ->blocks_per_sm,
            5);
}

TEST(StencilPreselect, DeclinesWhatTheCardCannotHold) {
  // 48 KiB a block: the double-buffered 128x64 tile (76 KiB at K = 7) cannot run although
  // the occupancy figure says 2; the 128x32 one cannot run by its occupancy of 0.
  const tuning::Card small{46, 48 * 1024, 0};
  const std::vector<std::size_t> kept =
      tuning::preselect(8192, 8192, 7, small, kConfigs, {4, 8, 2, 0});
  EXPECT_FALSE(contains(kept, 2));
  EXPECT_FALSE(contains(kept, 3));
  EXPECT_TRUE(contains(kept, 0));
  EXPECT_TRUE(contains(kept, 1));
  // Nothing can run: nothing is timed (best then runs its untuned default).
  EXPECT_TRUE(tuning::preselect(8192, 8192, 7, small, kConfigs, {0, 0, 0, 0}).empty());
}

TEST(StencilPreselect, DoubleBufferingWinsWhenBytesInFlightAreShort) {
  // A card that needs more bytes in flight per SM than single-buffered blocks keep: at K = 7
  // a single-buffered block has its fill in flight 3/10 of the time, a double-buffered one
  // always. Same tile, same blocks: the double-buffered configuration ranks first.
  const tuning::Card hungry{132, 227 * 1024, 400.0 * 1024};
  const std::vector<tuning::Config> same_tile = {{4, 8, 4, 1}, {4, 8, 4, 2}};
  const std::vector<tuning::Prediction> p =
      tuning::predict(8192, 8192, 7, hungry, same_tile, {4, 4});
  EXPECT_EQ(p.front().candidate, 1u);
  EXPECT_LT(p.back().inflight, p.front().inflight);
  const double need = 400.0 * 1024;
  EXPECT_DOUBLE_EQ(p.front().inflight, std::min(1.0, 4 * same_tile[1].fill_bytes(7) / need));
}

TEST(StencilPreselect, TiesKeepTheTableOrderAndTopKCuts) {
  // Equal predictions keep the table's order: today's default first.
  const std::vector<tuning::Config> twins = {{8, 8, 4, 1}, {8, 8, 4, 1}, {8, 8, 4, 1}};
  const std::vector<std::size_t> order =
      tuning::preselect(8192, 8192, 3, kRoomy, twins, {4, 4, 4}, /*top_k=*/2);
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1}));
  // top_k below two still times two: the second look needs a rival.
  EXPECT_EQ(tuning::preselect(8192, 8192, 3, kRoomy, twins, {4, 4, 4}, 1).size(), 2u);
}

TEST(StencilPreselect, FarWorsePredictionsAreNotTimed) {
  // An image of 64 rows: a 128x64 tile wastes nothing, a (hypothetical) 128x256 one three
  // quarters of its rows: it falls below keep_within of the best.
  const std::vector<tuning::Config> tall = {{8, 8, 4, 1}, {4, 8, 8, 1}, {8, 32, 1, 1}};
  const std::vector<std::size_t> kept =
      tuning::preselect(64, 1 << 16, 3, kRoomy, tall, {4, 8, 1}, 5, 0.7);
  EXPECT_FALSE(contains(kept, 2));
  EXPECT_EQ(kept.size(), 2u);
  const std::vector<tuning::Prediction> p =
      tuning::predict(64, 1 << 16, 3, kRoomy, tall, {4, 8, 1});
  EXPECT_DOUBLE_EQ(p.back().edge_fill, 0.25);
}

TEST(StencilPreselect, KeyNamesShapeAndSixteenByteAlignment) {
  EXPECT_EQ(tuning::shape_text(8192, 8192, 7, 256, 256), "8192x8192:7 a16,16");
  EXPECT_EQ(tuning::shape_text(8192, 8192, 7, 4, 16), "8192x8192:7 a4,16");
  EXPECT_NE(tuning::shape_text(8192, 8190, 7, 16, 16), tuning::shape_text(8192, 8192, 7, 16, 16));
}
