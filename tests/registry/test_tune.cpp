// What `memhier tune` and the ladder table show of a tuned `best`, from records made by hand:
// the families that tune, bad input refused before any GPU, the tune table, the bench table's
// column of the rung best ran, and the bf16 candidates' tiles the tuner's model reads. Links
// the kernel library; needs no GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../src/kernels/gemm/tuner.hpp"
#include "../../src/kernels/gemm_bf16/variants.hpp"
#include "memhier/bench/kernel_bench.hpp"
#include "memhier/bench/sweep_section.hpp"
#include "memhier/bench/tune.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/registry/registry.hpp"

namespace {

using namespace memhier;

const registry::Family& family(const std::string& name) {
  kernels::register_families();
  const registry::Family* f = registry::find_family(name);
  if (!f) throw std::runtime_error(name + " is not registered");
  return *f;
}

TEST(Tune, TheTunedLaddersTuneAndBadInputIsRefused) {
  for (const char* tuned : {"gemm", "gemm_bf16", "stencil", "transpose"})
    EXPECT_TRUE(bench::tunable(family(tuned))) << tuned;
  EXPECT_FALSE(bench::tunable(family("softmax")));
  EXPECT_THROW(bench::check_tune(family("transpose"), {"4096x0"}), std::invalid_argument);
  EXPECT_THROW(bench::check_tune(family("softmax"), {"8x65536"}), std::invalid_argument);
  EXPECT_THROW(bench::check_tune(family("gemm"), {}), std::invalid_argument);
  EXPECT_THROW(bench::check_tune(family("gemm_bf16"), {"4096x4096x4096", "4096x0x4096"}),
               std::invalid_argument);
  EXPECT_NO_THROW(bench::check_tune(family("gemm_bf16"), {"4096x4096x4096", "5000x3000x4000"}));
}

TEST(Tune, TheTableSaysWhereEachChoiceCameFromAndWhatItCost) {
  registry::TuneRecord tuned;
  tuned.family = "gemm_bf16";
  tuned.shape = "8192x8192x8192";
  tuned.config = "ws_c1_s4_128x256";
  tuned.tuned = true;
  tuned.candidates = 10;
  tuned.timed = 9;
  tuned.launches = 26;
  tuned.ms = 31.4;
  tuned.gpu_ms = 22.5;
  registry::TuneRecord cached = tuned;
  cached.shape = "4096x4096x4096";
  cached.tuned = false;
  cached.cached = true;
  cached.timed = cached.launches = 0;
  cached.ms = cached.gpu_ms = 0;
  const report::Section s = bench::tune_section(family("gemm_bf16"), {tuned, cached});
  ASSERT_EQ(s.tables.size(), 1u);
  const report::Table& t = s.tables[0];
  ASSERT_EQ(t.rows.size(), 2u);
  const auto cell = [&](std::size_t row, const std::string& key) {
    const int c = t.column(key);
    EXPECT_GE(c, 0) << key;
    return c < 0 ? report::Value() : t.rows[row][static_cast<std::size_t>(c)];
  };
  EXPECT_EQ(cell(0, "config").text, "ws_c1_s4_128x256");
  EXPECT_EQ(cell(0, "source").text, "tuned now");
  EXPECT_EQ(cell(0, "timed").number, 9);
  EXPECT_EQ(cell(0, "candidates").number, 10);
  EXPECT_DOUBLE_EQ(cell(0, "tuning_ms").number, 31.4);
  EXPECT_DOUBLE_EQ(cell(0, "gpu_ms").number, 22.5);
  EXPECT_EQ(cell(1, "source").text, "cache");
  EXPECT_EQ(cell(1, "tuning_ms").number, 0);
  EXPECT_EQ(cell(1, "gpu_ms").number, 0);
}

// The ladder's table shows the rung `best` ran beside it, and has no such column where no
// record names one.
TEST(Tune, TheLadderTableShowsTheRungBestRan) {
  registry::BenchRecord rung;
  rung.family = "gemm_bf16";
  rung.variant = "mma_swizzled";
  rung.rung = 4;
  rung.shape = "4096x4096x4096";
  registry::BenchRecord best = rung;
  best.variant = "best";
  best.rung = 13;
  best.config = "ws_c4_s4_128x256";
  const registry::Family& f = family("gemm_bf16");
  const report::Table with = bench::family_section(f, {rung, best}).tables.at(0);
  const int c = with.column("config");
  ASSERT_GE(c, 0);
  EXPECT_EQ(with.rows[1][static_cast<std::size_t>(c)].text, "ws_c4_s4_128x256");
  EXPECT_EQ(with.rows[0][static_cast<std::size_t>(c)].kind, report::Value::Kind::empty);
  const report::Table without = bench::family_section(f, {rung}).tables.at(0);
  EXPECT_LT(without.column("config"), 0);
  EXPECT_EQ(without.columns.size() + 1, with.columns.size());
}

// The sweep's rows are best's; its summary counts only verified ratios and names the vendor
// the records name.
TEST(Tune, TheSweepSummarizesBestAgainstTheVendor) {
  const registry::Family& f = family("gemm_bf16");
  ASSERT_FALSE(f.sweep_shapes.empty());
  std::vector<registry::BenchRecord> records;
  const auto add = [&](const std::string& variant, const std::string& shape, double x,
                       bool verified) {
    registry::BenchRecord r;
    r.family = f.name;
    r.variant = variant;
    r.shape = shape;
    r.rung = variant == "best" ? 13 : 0;
    r.x_vendor = x;
    r.verified = verified;
    records.push_back(r);
  };
  add("cublasGemmEx", "1024x1024x1024", 1.0, true);
  add("best", "1024x1024x1024", 0.5, true);
  add("best", "4096x4096x4096", 2.0, true);
  add("best", "16x8192x8192", 0.1, false);  // failed verification: not counted
  const report::Section s =
      bench::sweep_section({{f.name, f.title, f.sweep_shapes.size(), records, std::nullopt}});
  ASSERT_EQ(s.tables.size(), 1u);
  EXPECT_EQ(s.tables[0].rows.size(), 3u);
  ASSERT_EQ(s.charts.size(), 1u);
  EXPECT_EQ(s.charts[0].categories,
            (std::vector<std::string>{"1024\xC2\xB3", "4096\xC2\xB3", "16x8192x8192"}));
  EXPECT_TRUE(std::isnan(s.charts[0].series[0].y[2]));
  EXPECT_NE(s.paragraphs.back().find("Over the 2 shapes measured here: geometric mean 1.000 x "
                                     "cublasGemmEx; the lowest 0.500 at 1024x1024x1024."),
            std::string::npos)
      << s.paragraphs.back();
}

// The tuner's model reads each bf16 candidate's tile from its launcher: every candidate has
// one, the one its name ends with (128 rows for the others: the Hopper kernels' two warpgroups
// of 64, the mma tile's 128), and the split-K ones say so.
TEST(Tune, EveryBf16CandidateNamesItsTile) {
  const std::regex tile_suffix(".*_([0-9]+)x([0-9]+)$");
  for (gemm_bf16::Variant v : gemm_bf16::detail::best_candidates()) {
    const gemm_bf16::detail::Launcher l = gemm_bf16::detail::launcher_for(v);
    const std::string name = gemm_bf16::to_string(v);
    SCOPED_TRACE(name);
    std::smatch t;
    if (std::regex_match(name, t, tile_suffix)) {
      EXPECT_EQ(l.tile_m, std::stoi(t[1]));
      EXPECT_EQ(l.tile_n, std::stoi(t[2]));
    } else {
      EXPECT_EQ(l.tile_m, 128);
      EXPECT_TRUE(l.tile_n == 64 || l.tile_n == 128 || l.tile_n == 256) << l.tile_n;
    }
    // The 128-column swapab_* and ws_sk_* split or decline; the 64-column swapab_* split where
    // their tiles leave the card idle and run unsplit elsewhere; the tail splits split the last
    // wave.
    const bool swap = name.rfind("swapab_", 0) == 0;
    using gemm::tuning::SplitK;
    const SplitK want = name.find("tailsplit") != std::string::npos ? SplitK::tail
                        : name.rfind("ws_sk_", 0) == 0 || (swap && l.tile_n == 128)
                            ? SplitK::always
                        : swap ? SplitK::where_idle
                               : SplitK::never;
    EXPECT_EQ(l.split_k, want);
    EXPECT_GE(l.cluster_m, 1);
  }
  EXPECT_EQ(gemm_bf16::detail::launcher_for(gemm_bf16::Variant::ws_c4_s4_128x256).cluster_m, 4);
  EXPECT_EQ(gemm_bf16::detail::launcher_for(gemm_bf16::Variant::ws_c1_s8_128x64).tile_n, 64);
}

// A GEMM family of four candidates for the tuner's order: what runs untuned (`pick`, listed
// first) and two more of its 128x128 tile, and a 64x64 one.
enum class Fake { pick, tile_a, tile_b, small };
struct FakeParams {
  int m = 0, n = 0, k = 0;
};

template <bool UntunedIsAPick>
struct FakeGemm {
  static constexpr const char* kFamily = "fake";
  static constexpr bool kUntunedIsAPick = UntunedIsAPick;
  using Params = FakeParams;
  using Variant = Fake;
  static const std::vector<Fake>& candidates() {
    static const std::vector<Fake> all{Fake::pick, Fake::tile_a, Fake::tile_b, Fake::small};
    return all;
  }
  static Fake untuned(const FakeParams&) { return Fake::pick; }
};

template <bool Pick>
std::vector<std::size_t> fake_order(int m, int n) {
  typename gemm::detail::GemmTuning<FakeGemm<Pick>>::Facts f;
  f.sms = 132;
  for (int i = 0; i < 3; ++i) f.tiles.push_back({128, 128, 1, 1, gemm::tuning::SplitK::never});
  f.tiles.push_back({64, 64, 4, 1, gemm::tuning::SplitK::never});
  return gemm::detail::GemmTuning<FakeGemm<Pick>>::order(FakeParams{m, n, 8192}, f);
}

// Where what runs untuned is the family's pick for speed (SGEMM's double_buffered at large
// shapes), it is timed first, the others keeping the model's order: a first look that times a
// few candidates of a long shape still weighs it. A fallback (bf16's) keeps its place.
TEST(Tune, AnUntunedPickIsTimedFirstAndAFallbackKeepsItsPlace) {
  for (const auto& [m, n] : std::vector<std::pair<int, int>>{{8192, 8192}, {4099, 4097}}) {
    const std::vector<std::size_t> model = fake_order<false>(m, n);
    const std::vector<std::size_t> picked = fake_order<true>(m, n);
    ASSERT_EQ(model.size(), 4u);
    EXPECT_NE(model.front(), 0u) << "the model alone puts the later 128x128 candidates first";
    std::vector<std::size_t> expected = model;
    const auto at = std::find(expected.begin(), expected.end(), 0u);
    ASSERT_NE(at, expected.end());
    std::rotate(expected.begin(), at, at + 1);
    EXPECT_EQ(picked, expected);
  }
}

}  // namespace
