// The GEMM tuner's model: tiles and waves on a card's SM count (given here as data), which
// candidates a first call times, and what that costs.
#include <gtest/gtest.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "memhier/kernels/gemm_preselect.hpp"
#include "memhier/kernels/tuning_budget.hpp"

namespace tuning = memhier::gemm::tuning;
namespace budget = memhier::tuning;

namespace {

// Tiles shaped like gemm_bf16's Hopper candidates: 128x256, 128x128, 128x64, one block an SM.
constexpr tuning::SplitK kNever = tuning::SplitK::never;
constexpr tuning::SplitK kAlways = tuning::SplitK::always;
constexpr tuning::SplitK kWhereIdle = tuning::SplitK::where_idle;
constexpr tuning::SplitK kTail = tuning::SplitK::tail;

const std::vector<tuning::TileFacts> kTiles = {{128, 256, 1, 1}, {128, 128, 1, 1}, {128, 64, 1, 1}};

std::size_t first(const std::vector<std::size_t>& v) {
  return v.empty() ? 99 : v.front();
}

}  // namespace

TEST(GemmPreselect, WavesAndFillsOfEachTile) {
  const std::vector<tuning::Prediction> p = tuning::predict(4096, 4096, 132, kTiles);
  ASSERT_EQ(p.size(), 3u);
  for (const tuning::Prediction& x : p) {
    const long long expect_tiles = 4096LL / 128 * (4096 / kTiles[x.candidate].tile_n);
    EXPECT_EQ(x.tiles, expect_tiles);
    EXPECT_EQ(x.slots, 132);
    EXPECT_DOUBLE_EQ(x.edge_fill, 1.0);
    const long long waves = (x.tiles + 131) / 132;
    EXPECT_DOUBLE_EQ(x.wave_fill,
                     static_cast<double>(x.tiles) / (static_cast<double>(waves) * 132.0));
  }
  // 512, 1024 and 2048 tiles fill their last waves about as well: the larger tile ranks first.
  EXPECT_EQ(p.front().candidate, 0u);
  // Ragged edges: 5000 rows make 40 tiles of 128, the last one 8/128 full.
  const tuning::Prediction e = tuning::predict(5000, 4096, 132, {{128, 128, 1, 1}}).front();
  EXPECT_DOUBLE_EQ(e.edge_fill, 5000.0 / 5120.0);
}

TEST(GemmPreselect, ThePartialLastWaveDecides) {
  // 896 x 2432: 133 tiles of 128x128 on 132 SMs (a second wave of one tile, fill 0.50), 266
  // of 128x64 (fill 0.67), 70 of 128x256 (one wave, 0.53 full, a ragged edge besides).
  const std::vector<std::size_t> order = tuning::preselect(896, 2432, 132, kTiles);
  EXPECT_EQ(first(order), 2u);
  const std::vector<tuning::Prediction> p = tuning::predict(896, 2432, 132, kTiles);
  EXPECT_EQ(p.front().candidate, 2u);
  EXPECT_NEAR(p.front().wave_fill, 266.0 / 396.0, 1e-12);
  // The same shape on a card of 133 SMs: 128x128 fills exactly one wave and wins.
  EXPECT_EQ(first(tuning::preselect(896, 2432, 133, kTiles)), 1u);
}

TEST(GemmPreselect, UnderOneWaveIsDroppedWhereASmallerTileFillsTheCard) {
  // 1024^3 on 64 SMs: 128x64 (128 tiles) and 128x128 (64) fill the card, 128x256 (32) not.
  const std::vector<std::size_t> on64 = tuning::preselect(1024, 1024, 64, kTiles);
  EXPECT_EQ(on64.size(), 2u);
  for (std::size_t i : on64) EXPECT_NE(i, 0u);
  // On 132 SMs no tile fills the card: nothing is dropped for that, 128x64 (128 tiles) first.
  const std::vector<std::size_t> on132 =
      tuning::preselect(1024, 1024, 132, kTiles, {4, 0.0});  // keep all that the rule allows
  EXPECT_EQ(on132.size(), 3u);
  EXPECT_EQ(first(on132), 2u);
  // The SM count is read, never assumed: the same shape on 16 SMs keeps the large tile too.
  EXPECT_EQ(tuning::preselect(1024, 1024, 16, kTiles, {4, 0.0}).size(), 3u);
}

TEST(GemmPreselect, TopKCannotRunAndUnknownTiles) {
  std::vector<tuning::TileFacts> c = kTiles;
  c.push_back({128, 256, 0, 1});  // no code for this card
  c.push_back({0, 0, 1, 1});      // tile not given
  c.push_back({128, 256, 1, 2});  // clusters of 2 tile rows
  const std::vector<std::size_t> all = tuning::preselect(8192, 8192, 132, c, {10, 0.0});
  EXPECT_EQ(all.size(), 5u);  // the one that cannot run is gone
  for (std::size_t i : all) EXPECT_NE(i, 3u);
  EXPECT_EQ(all.back(), 4u);  // unknown tiles after every known one
  // On 132 SMs 8192^2 fills its last wave best with 128x64 (8192 tiles: 0.985), then 128x256
  // (2048: 0.970) and 128x128 (4096: 0.970), all within 5% of the best: the larger tile first,
  // and of the two 128x256 candidates the later; then round robin over the three tile shapes.
  EXPECT_EQ(all, (std::vector<std::size_t>{5, 1, 2, 0, 4}));
  EXPECT_EQ(tuning::preselect(8192, 8192, 132, c, {2, 0.0}).size(), 2u);
  // Nothing can run: nothing to time.
  EXPECT_TRUE(tuning::preselect(8192, 8192, 132, {{128, 128, 0, 1}}).empty());
  // Clusters round the tile rows up: 3 rows of 128 in clusters of 2 are 4.
  EXPECT_EQ(tuning::predict(384, 256, 132, {{128, 256, 1, 2}}).front().tiles, 4);
}

TEST(GemmPreselect, FarBelowTheBestIsNotTimed) {
  // 512 x 512 on 4 SMs: 128x64 (32 tiles) and 64x64 (64) fill whole waves; 128x128 at three
  // blocks an SM has 16 tiles for 12 slots, a second wave a third full (0.67).
  const std::vector<tuning::TileFacts> c = {{128, 128, 3, 1}, {128, 64, 1, 1}, {64, 64, 1, 1}};
  EXPECT_EQ(tuning::preselect(512, 512, 4, c, {4, 0.9}), (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(tuning::preselect(512, 512, 4, c, {4, 0.5}), (std::vector<std::size_t>{1, 2, 0}));
  // Never fewer than two while two can run.
  EXPECT_EQ(tuning::preselect(512, 512, 4, {c[1], c[0]}, {4, 0.99}).size(), 2u);
}

TEST(GemmPreselect, SplitCountFillsOneWave) {
  // 16 x 8192 in tiles of 128 x 256: 32 tiles on 132 SMs of one block each, 4 ways.
  EXPECT_EQ(tuning::split_count(32, 132, 1LL << 40, 1), 4);
  EXPECT_EQ(tuning::split_count(2, 132, 1LL << 40, 1), 16);  // at most 16
  // At most half the card's slots split two ways; one tile more does not split.
  EXPECT_EQ(tuning::split_count(66, 132, 1LL << 40, 1), 2);
  EXPECT_EQ(tuning::split_count(67, 132, 1LL << 40, 1), 1);
  // K limits the splits: each takes at least min_steps of the k-steps.
  EXPECT_EQ(tuning::split_count(8, 132, 12, 4), 3);
  EXPECT_EQ(tuning::split_count(8, 132, 7, 4), 1);
  EXPECT_EQ(tuning::split_count(8, 132, 7, 0), 7);  // min_steps below 1 counts as 1
  // Nothing to split, or no slot to split over.
  EXPECT_EQ(tuning::split_count(0, 132, 100, 1), 1);
  EXPECT_EQ(tuning::split_count(8, 0, 100, 1), 1);
}

TEST(GemmPreselect, TailSplitFillsTheLastWave) {
  // The H200's data: 4099x4097 in tiles of 128 x 256 on its 132 SMs of one block each: 561
  // tiles, four whole waves (528), then 33 tiles split 4 ways (132 splits, a quarter round):
  // 4.25 rounds, not 5.
  tuning::TailSplitPlan plan = tuning::tail_split_plan(561, 132, 512, 16);
  EXPECT_EQ(plan.whole_tiles, 528);
  EXPECT_EQ(plan.rest_tiles, 33);
  EXPECT_EQ(plan.splits, 4);
  EXPECT_DOUBLE_EQ(plan.rounds(132), 4.25);
  // 5000x3000: 84 tiles past 396; 3 splits take 2 waves of thirds (11 would save only 3% more).
  plan = tuning::tail_split_plan(480, 132, 500, 16);
  EXPECT_EQ(plan.splits, 3);
  EXPECT_DOUBLE_EQ(plan.rounds(132), 3.0 + 2.0 / 3.0);
  // At most one round of splits (max_rounds 1): 5000x3000's rest needs two, so it declines;
  // 4099x4097's quarter round is one.
  EXPECT_EQ(tuning::tail_split_plan(480, 132, 500, 16, 1).splits, 0);
  EXPECT_EQ(tuning::tail_split_plan(561, 132, 512, 16, 1).splits, 4);
  // K bounds the splits: each at least min_steps k-steps.
  EXPECT_EQ(tuning::tail_split_plan(561, 132, 48, 16).splits, 3);
  EXPECT_EQ(tuning::tail_split_plan(561, 132, 24, 16).splits, 0);
  // It declines under one wave (the split-K tiles' shapes), whole waves, and a last wave so
  // full that no split saves a sixth of it (4096^3: 116 of 132; 9 splits save 11%).
  EXPECT_EQ(tuning::tail_split_plan(32, 132, 1024, 16).splits, 0);
  EXPECT_EQ(tuning::tail_split_plan(264, 132, 512, 16).splits, 0);
  EXPECT_DOUBLE_EQ(tuning::tail_split_plan(264, 132, 512, 16).rounds(132), 2.0);
  EXPECT_EQ(tuning::tail_split_plan(512, 132, 512, 16).splits, 0);
  EXPECT_DOUBLE_EQ(tuning::tail_split_plan(512, 132, 512, 16).rounds(132), 4.0);
  EXPECT_EQ(tuning::tail_split_plan(0, 132, 32, 16).splits, 0);
  EXPECT_EQ(tuning::tail_split_plan(9, 0, 32, 16).splits, 0);
}

TEST(GemmPreselect, ATailSplitCandidateRanksOnItsRoundsAndDeclinesWholeWaves) {
  const tuning::TileFacts plain = {128, 256, 1, 1, kNever};
  const tuning::TileFacts tail = {128, 256, 1, 1, kTail};
  tuning::TileFacts one_round = tail;
  one_round.split_rounds = 1;
  // 4099x4097: the plain tile runs 5 rounds for 4.25 of work (0.85), the tail split 4.25.
  const auto ranked = tuning::predict(4099, 4097, 132, {plain, tail});
  EXPECT_EQ(ranked.front().candidate, 1u);
  EXPECT_TRUE(ranked.front().runs);
  EXPECT_EQ(ranked.front().splits, 4);
  EXPECT_NEAR(ranked.front().wave_fill, 1.0, 1e-12);
  EXPECT_NEAR(ranked.back().wave_fill, 4.25 / 5, 1e-12);
  EXPECT_EQ(ranked.front().tiles, 561);
  // 4096 x 4096 on 128 SMs: whole waves, nothing to split.
  EXPECT_FALSE(tuning::predict(4096, 4096, 128, {tail}).front().runs);
  // Limited to one round of splits, it runs 4099x4097 (one) and not 6144x6144 (96 tiles past
  // eight waves: 4 splits take three rounds), which the unlimited one splits.
  EXPECT_TRUE(tuning::predict(4099, 4097, 132, {one_round}).front().runs);
  EXPECT_FALSE(tuning::predict(6144, 6144, 132, {one_round}).front().runs);
  EXPECT_TRUE(tuning::predict(6144, 6144, 132, {tail}).front().runs);
}

TEST(GemmPreselect, AnEdgesCandidateCountsOnlyWholeTilesAndDeclinesCWithoutARaggedEdge) {
  const tuning::TileFacts plain = {128, 256, 1, 1, kNever};
  tuning::TileFacts edges = plain;
  edges.trims_edges = true;
  edges.split_rounds = 1;
  constexpr int kH200Sms = 132;  // a named card's data: the H200's SM count
  // 4099x4097: 32 x 16 whole tiles (3.88 waves on the H200's SMs, its last wave unsplit within
  // one round), no tile spent on the 3 rows and 1 column past them; the plain tile runs 33 x 17.
  const auto ranked = tuning::predict(4099, 4097, kH200Sms, {plain, edges});
  EXPECT_EQ(ranked.front().candidate, 1u);
  EXPECT_TRUE(ranked.front().runs);
  EXPECT_EQ(ranked.front().tiles, 512);
  EXPECT_DOUBLE_EQ(ranked.front().edge_fill, 1.0);
  EXPECT_NEAR(ranked.front().wave_fill, 512.0 / (4 * kH200Sms), 1e-12);
  EXPECT_EQ(ranked.back().tiles, 561);
  // Whole tiles only, or no whole tile: not its to run.
  EXPECT_FALSE(tuning::predict(4096, 4096, kH200Sms, {edges}).front().runs);
  EXPECT_FALSE(tuning::predict(127, 4097, kH200Sms, {edges}).front().runs);
  EXPECT_FALSE(tuning::predict(4099, 255, kH200Sms, {edges}).front().runs);
  EXPECT_TRUE(tuning::predict(4096, 4097, kH200Sms, {edges}).front().runs);
}

TEST(GemmPreselect, ASplitCandidateCountsItsSplitsAndDeclinesAFullCard) {
  // The shape: 32 tiles x 4 splits, one wave 128/132 full, 16 of 128 rows used.
  const tuning::TileFacts split = {128, 256, 1, 1, kAlways};
  const tuning::Prediction p = tuning::predict(16, 8192, 132, {split}).front();
  EXPECT_TRUE(p.runs);
  EXPECT_EQ(p.tiles, 128);
  EXPECT_EQ(p.slots, 132);
  EXPECT_DOUBLE_EQ(p.wave_fill, 128.0 / 132.0);
  EXPECT_DOUBLE_EQ(p.edge_fill, 16.0 / 128.0);
  // 8192^2 fills the card (2048 tiles): it would not split, so it is neither ranked to run
  // nor timed, and the non-split candidate of the same tile is.
  const tuning::TileFacts plain = {128, 256, 1, 1, kNever};
  const std::vector<tuning::Prediction> full = tuning::predict(8192, 8192, 132, {split, plain});
  EXPECT_EQ(full.front().candidate, 1u);
  EXPECT_FALSE(full.back().runs);
  EXPECT_EQ(tuning::preselect(8192, 8192, 132, {split, plain}), (std::vector<std::size_t>{1}));
  EXPECT_TRUE(tuning::preselect(8192, 8192, 132, {split}).empty());
}

TEST(GemmPreselect, SkinnyShapesTimeTheSplitCandidatesFirst) {
  // SGEMM-like tiles at 16 x 8192 on 132 SMs: no unsplit tile fills a quarter of the card,
  // and their 64- and 128-row tiles use 16 rows; 16 x 128 split 8 ways fills 512 of 528 slots.
  const std::vector<tuning::TileFacts> c = {{128, 128, 1, 1, kNever},
                                            {128, 64, 2, 1, kNever},
                                            {64, 64, 3, 1, kNever},
                                            {16, 128, 4, 1, kAlways},
                                            {64, 128, 3, 1, kAlways}};
  const tuning::Prediction top = tuning::predict(16, 8192, 132, c).front();
  EXPECT_EQ(top.candidate, 3u);
  EXPECT_EQ(top.tiles, 64 * 8);
  EXPECT_EQ(tuning::preselect(16, 8192, 132, c), (std::vector<std::size_t>{3, 4}));
  // A split tile that fills the card (66 tiles of 64 x 128 two ways on 132 slots) fills it
  // only by splitting: the larger unsplit tile under one wave is not dropped for it.
  const std::vector<tuning::TileFacts> exact = {{128, 128, 1, 1, kNever}, {64, 128, 1, 1, kAlways}};
  EXPECT_EQ(tuning::predict(64, 8448, 132, exact).front().tiles, 132);
  EXPECT_EQ(tuning::preselect(64, 8448, 132, exact, {4, 0.0}), (std::vector<std::size_t>{1, 0}));
}

TEST(GemmPreselect, ACandidateThatSplitsWhereIdleRunsUnsplitOnAFullCard) {
  // A 64 x 64 tile that splits only where its tiles leave the card idle (the 64-column
  // swapab_*): 64 rows against 8192 columns is 128 tiles, over half of 132 slots, so it runs
  // unsplit; against 4096 columns, 64 tiles split two ways.
  const tuning::TileFacts idle = {64, 64, 1, 1, kWhereIdle};
  for (const auto& [n, splits] : std::vector<std::pair<int, int>>{{8192, 1}, {4096, 2}}) {
    const tuning::Prediction p = tuning::predict(64, n, 132, {idle}).front();
    EXPECT_TRUE(p.runs && p.splits == splits && p.tiles == 128) << n << ": " << p.splits;
    EXPECT_DOUBLE_EQ(p.wave_fill, 128.0 / 132.0);
  }
  // At 8192^2 it runs (4096 tiles unsplit) where an always-splitting tile declines.
  const tuning::TileFacts always = {64, 64, 1, 1, kAlways};
  EXPECT_EQ(tuning::preselect(8192, 8192, 132, {always, idle}), (std::vector<std::size_t>{1}));
  // Split, it fills the card only by splitting: as the always-splitting tile, it does not
  // cut a larger unsplit tile under one wave.
  const std::vector<tuning::TileFacts> c = {{128, 128, 1, 1, kNever}, idle};
  EXPECT_EQ(tuning::preselect(64, 4096, 132, c, {4, 0.0}), (std::vector<std::size_t>{1, 0}));
}

TEST(GemmPreselect, RoundRobinKeepsASplitCandidateInItsOwnGroup) {
  // 128 x 8192 on 132 SMs: 64 tiles of 128 x 128. Split two ways (0.97 of one wave) ranks
  // first, the unsplit 128 x 128 (0.48) second, 64 x 64 at eight blocks an SM (0.24) third.
  // Were the split grouped with the unsplit tile of its shape, 64 x 64 would come second.
  const std::vector<tuning::TileFacts> c = {
      {128, 128, 1, 1, kNever}, {128, 128, 1, 1, kAlways}, {64, 64, 8, 1, kNever}};
  EXPECT_EQ(tuning::preselect(128, 8192, 132, c, {4, 0.0}), (std::vector<std::size_t>{1, 0, 2}));
}

TEST(GemmPreselect, RepetitionsFitTheBudget) {
  EXPECT_EQ(budget::repetitions(1.5, 2, 15.0), 5);
  EXPECT_EQ(budget::repetitions(0.01, 1, 15.0), 20);  // at most 20
  EXPECT_EQ(budget::repetitions(100.0, 3, 15.0), 1);  // at least one second look
  EXPECT_EQ(budget::repetitions(0.0, 3, 15.0), 20);
}

// The bar: a first call at a large bf16 shape costs at most 50 ms of tuning. At
// 8192^3 one run takes about 1.5 ms on an H100-class card (1.1e12 flops at ~750 TFLOP/s): the
// tuner's budgets (15 ms of first runs, 12 ms of second looks; gemm/tuner.hpp) time all ten
// bf16 candidates once and the close ones again, and stay under it.
TEST(GemmPreselect, AFirstLargeCallFitsFiftyMilliseconds) {
  EXPECT_EQ(budget::first_look_count(1.5, 10, 15.0), 10u);
  EXPECT_EQ(budget::first_look_count(25.0, 8, 15.0), 2u);  // never fewer than two
  EXPECT_EQ(budget::first_look_count(0.05, 8, 15.0), 8u);
  // A run of microseconds is sampled up to 16 times (0.2 ms), a long one once.
  EXPECT_EQ(budget::first_look_samples(0.012), 16);
  EXPECT_EQ(budget::first_look_samples(0.05), 5);
  EXPECT_EQ(budget::first_look_samples(1.5), 1);
  EXPECT_LE(budget::first_call_gpu_ms(0.012, 10, 2, 15.0, 12.0), 5.0);
  for (std::size_t contenders = 1; contenders <= 10; ++contenders)
    EXPECT_LE(budget::first_call_gpu_ms(1.5, 10, contenders, 15.0, 12.0), 30.0) << contenders;
  // A slower run (4 ms: a slower card, or a kernel half as fast) stays under 50 too.
  EXPECT_LE(budget::first_call_gpu_ms(4.0, 10, 4, 15.0, 12.0), 50.0);
  // SGEMM at 8192^3 on an H200 (23 ms a run, 20 candidates): a run on the smallest slice
  // (K = 1024, an eighth), then candidates on slices of K within the budgets, no whole run.
  const double sgemm = budget::first_call_gpu_ms(23.0, 20, 3, 15.0, 12.0, 1024.0 / 8192);
  EXPECT_LE(sgemm, 23.0 / 8 + 15.0 + 12.0 + 23.0 / 8);  // a look's last run may pass the budget
  EXPECT_LE(sgemm, 50.0);
  // A shape whose runs all fit the first look takes the smallest slice's run on top.
  EXPECT_DOUBLE_EQ(budget::first_call_gpu_ms(1.5, 10, 2, 15.0, 12.0, 0.125),
                   budget::first_call_gpu_ms(1.5, 10, 2, 15.0, 12.0) + 1.5 * 0.125);
}

// Where a whole run would not let every candidate run once in the first look, the looks time
// a slice of K: the share that fits, K x share raised to K's remainder mod 64, at least 1024.
TEST(GemmPreselect, LongShapesAreRankedOnASliceOfK) {
  EXPECT_DOUBLE_EQ(budget::look_share(1.5, 10, 15.0), 1.0);
  EXPECT_DOUBLE_EQ(budget::look_share(3.0, 10, 15.0), 0.5);
  EXPECT_DOUBLE_EQ(budget::look_share(0.0, 10, 15.0), 1.0);
  EXPECT_EQ(budget::slice_k(8192, 1.0), 8192);
  EXPECT_EQ(budget::slice_k(8192, 0.25), 2048);
  EXPECT_EQ(budget::slice_k(8192, 0.01), 1024);  // the floor
  EXPECT_EQ(budget::slice_k(8192, 0.0), 1024);   // the smallest slice, the tuner's first run
  EXPECT_EQ(budget::slice_k(4093, 0.25), 1085);  // 4093 = 63 x 64 + 61: 1024 + 61
  EXPECT_EQ(budget::slice_k(4093, 0.25) % 64, 4093 % 64);
  EXPECT_EQ(budget::slice_k(1500, 0.1), 1052);  // 1024 + 28
  EXPECT_EQ(budget::slice_k(1000, 0.0), 1000);  // the floor is past K: the whole of it
}
