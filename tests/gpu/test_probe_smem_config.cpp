// GPU tests of the "smem-dynamic" and "smem-carveout" probes: verified outputs, a tile above
// 48 KiB where the card allows it, and positive figures (no timing assertions). They assert
// on the measurements; the presented sections are checked for their tables.
#include <algorithm>
#include <cmath>
#include <string>

#include "gpu_test_util.hpp"
#include "memhier/probe/smem_config.hpp"

namespace memhier::testing {
namespace {

TEST(ProbeSmemConfig, DynamicTilesVerifiedAndAbove48KWhenAllowed) {
  MEMHIER_REQUIRE_GPU(dev);
  probe::Context ctx = quick_context(*dev);
  const probe::SmemDynamicResult m = probe::measure_smem_dynamic(ctx);
  ASSERT_FALSE(m.tiles.empty());
  EXPECT_GT(m.samples, 0u);
  EXPECT_GT(m.outputs, 0);

  int largest = 0;
  for (const probe::DynamicTile& v : m.tiles) {
    EXPECT_LT(v.max_rel_err, 1e-5) << v.name;
    EXPECT_LT(v.rel_l2_err, 1e-5) << v.name;
    EXPECT_GT(v.tile_outputs, 0) << v.name;
    EXPECT_GT(v.smem_bytes, v.tile_outputs * 4) << v.name << ": the halo needs room too";
    EXPECT_LE(v.smem_bytes, dev->smem_per_block_optin) << v.name;
    EXPECT_GE(v.blocks_per_sm, 1) << v.name;
    EXPECT_TRUE(std::isfinite(v.ms) && v.ms > 0) << v.name;
    EXPECT_TRUE(std::isfinite(v.gbps) && v.gbps > 0) << v.name;
    largest = std::max(largest, v.smem_bytes);
  }
  if (dev->smem_per_block_optin > 48 * 1024) {
    EXPECT_GT(largest, 48 * 1024) << "no tile used the opt-in above 48 KiB";
    EXPECT_TRUE(m.optin_tested);
    EXPECT_TRUE(m.optin_ran);
    EXPECT_LT(m.no_optin_limit_bytes, largest) << "the limit allowed the tile without the opt-in";
  }

  const probe::Result r = probe::present_smem_dynamic(m);
  const report::Table* t = find_table(r.section, "smem-dynamic");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->rows.size(), m.tiles.size());
  EXPECT_NE(find_table(r.section, "smem-dynamic-claims"), nullptr);
}

TEST(ProbeSmemConfig, CarveoutFiguresPositive) {
  MEMHIER_REQUIRE_GPU(dev);
  probe::Context ctx = quick_context(*dev);
  const probe::SmemCarveoutResult m = probe::measure_smem_carveout(ctx);
  ASSERT_EQ(m.settings.size(), 6u) << "0, 25, 50, 75, 100 % and the default";
  EXPECT_GT(m.window_kb, 0);
  EXPECT_GT(m.passes, 0);
  for (const probe::CarveoutSetting& s : m.settings) {
    const std::string name = s.pct < 0 ? "default" : std::to_string(s.pct) + "%";
    EXPECT_TRUE(std::isfinite(s.ms) && s.ms > 0) << name;
    EXPECT_TRUE(std::isfinite(s.gbps) && s.gbps > 0) << name;
    EXPECT_GE(s.blocks_per_sm, 1) << name;
  }
  EXPECT_EQ(m.settings.back().pct, -1);

  const probe::Result r = probe::present_smem_carveout(m);
  const report::Table* t = find_table(r.section, "smem-carveout");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->rows.size(), 6u);
  EXPECT_NE(find_table(r.section, "smem-carveout-claims"), nullptr);
}

}  // namespace
}  // namespace memhier::testing
