// GPU tests of the "smem-dynamic" and "smem-carveout" probes: verified outputs, a tile above
// 48 KiB where the card allows it, and positive figures (no timing assertions).
#include <algorithm>
#include <cmath>
#include <string>

#include "gpu_test_util.hpp"

namespace memhier::testing {
namespace {

TEST(ProbeSmemConfig, DynamicTilesVerifiedAndAbove48KWhenAllowed) {
  MEMHIER_REQUIRE_GPU(dev);
  probe::Context ctx = quick_context(*dev);
  const probe::Result r = run_probe("smem-dynamic", ctx);
  const report::Table* t = find_table(r.section, "smem-dynamic");
  ASSERT_NE(t, nullptr) << "table 'smem-dynamic' missing";
  ASSERT_FALSE(t->rows.empty());

  const int variant = column(*t, "variant"), tile = column(*t, "tile_bytes"),
            smem = column(*t, "smem_bytes"), blocks = column(*t, "blocks_per_sm"),
            ms = column(*t, "ms"), gbps = column(*t, "gbps"), err = column(*t, "max_rel_err"),
            l2 = column(*t, "rel_l2_err");
  for (int c : {variant, tile, smem, blocks, ms, gbps, err, l2}) ASSERT_GE(c, 0);

  double largest = 0;
  for (const auto& row : t->rows) {
    const std::string name = row[variant].display();
    EXPECT_LT(row[err].number, 1e-5) << name;
    EXPECT_LT(row[l2].number, 1e-5) << name;
    EXPECT_GT(row[tile].number, 0) << name;
    EXPECT_GT(row[smem].number, row[tile].number) << name << ": the halo needs room too";
    EXPECT_LE(row[smem].number, dev->smem_per_block_optin) << name;
    EXPECT_GE(row[blocks].number, 1) << name;
    EXPECT_TRUE(std::isfinite(row[ms].number) && row[ms].number > 0) << name;
    EXPECT_TRUE(std::isfinite(row[gbps].number) && row[gbps].number > 0) << name;
    largest = std::max(largest, row[smem].number);
  }
  if (dev->smem_per_block_optin > 48 * 1024) {
    EXPECT_GT(largest, 48 * 1024) << "no tile used the opt-in above 48 KiB";
  }
  EXPECT_NE(find_table(r.section, "smem-dynamic-claims"), nullptr);
}

TEST(ProbeSmemConfig, CarveoutFiguresPositive) {
  MEMHIER_REQUIRE_GPU(dev);
  probe::Context ctx = quick_context(*dev);
  const probe::Result r = run_probe("smem-carveout", ctx);
  const report::Table* t = find_table(r.section, "smem-carveout");
  ASSERT_NE(t, nullptr) << "table 'smem-carveout' missing";
  EXPECT_EQ(t->rows.size(), 6u) << "0, 25, 50, 75, 100 % and the default";

  const int pct = column(*t, "carveout_pct"), ms = column(*t, "ms"), gbps = column(*t, "gbps"),
            rel = column(*t, "relative"), blocks = column(*t, "blocks_per_sm");
  for (int c : {pct, ms, gbps, rel, blocks}) ASSERT_GE(c, 0);
  for (const auto& row : t->rows) {
    const std::string name = row[pct].display();
    EXPECT_TRUE(std::isfinite(row[ms].number) && row[ms].number > 0) << name;
    EXPECT_TRUE(std::isfinite(row[gbps].number) && row[gbps].number > 0) << name;
    EXPECT_TRUE(std::isfinite(row[rel].number) && row[rel].number > 0) << name;
    EXPECT_GE(row[blocks].number, 1) << name;
  }
  EXPECT_NE(find_table(r.section, "smem-carveout-claims"), nullptr);
}

}  // namespace
}  // namespace memhier::testing
