// GPU tests of the dsmem probe: plausibility with wide margins only, never tight timings.
// They skip without a GPU; on a card below compute capability 9.0 they check that the probe
// declines in one sentence instead of launching clusters.
#include <algorithm>
#include <cmath>

#include "gpu_test_util.hpp"
#include "memhier/probe/dsmem.hpp"

namespace {

using memhier::testing::find_table;
using memhier::testing::l1_ceiling_gbps;
using memhier::testing::quick_context;
using memhier::testing::report_figure;

TEST(ProbeDsmem, LatencyAndBandwidthArePlausible) {
  MEMHIER_REQUIRE_GPU(dev);
  if (dev->cc_major < 9) GTEST_SKIP() << "thread-block clusters need compute capability 9.0";
  memhier::probe::Context ctx = quick_context(*dev);
  const memhier::probe::DsmemResult m = memhier::probe::measure_dsmem(ctx);
  ASSERT_TRUE(m.declined.empty()) << m.declined;

  EXPECT_TRUE(m.local_cycles > 5 && m.local_cycles < 200) << m.local_cycles;
  ASSERT_EQ(m.sizes.size(), 4u);
  ASSERT_TRUE(m.sizes[0].skipped.empty()) << "a cluster of 2 must run: " << m.sizes[0].skipped;
  const double ceiling = l1_ceiling_gbps(ctx);
  for (const auto& z : m.sizes) {
    if (!z.skipped.empty()) continue;
    ASSERT_EQ(z.cycles.size(), static_cast<std::size_t>(z.size));
    ASSERT_EQ(z.reads_correct.size(), static_cast<std::size_t>(z.size));
    for (int r = 0; r < z.size; ++r) {
      EXPECT_TRUE(z.reads_correct[r]) << "cluster " << z.size << " rank " << r;
      EXPECT_TRUE(std::isfinite(z.cycles[r]) && z.cycles[r] > 5 && z.cycles[r] < 3000)
          << "cluster " << z.size << " rank " << r << ": " << z.cycles[r];
    }
    // Another SM's shared memory is farther than the block's own through plain ld.shared.
    for (int r = 1; r < z.size; ++r)
      report_figure(
          "cluster" + std::to_string(z.size) + "_rank" + std::to_string(r) + "_over_local_cycles",
          z.cycles[r] / m.local_cycles, "above 1", z.cycles[r] > m.local_cycles);
    for (double g : {z.one_to_one_gbps, z.all_to_all_gbps}) {
      EXPECT_TRUE(std::isfinite(g) && g > 0) << z.size;
      EXPECT_LT(g, ceiling) << z.size;  // above it, loads were dropped or bytes miscounted
    }
    EXPECT_GT(z.blocks, 0);
    EXPECT_EQ(z.blocks % z.size, 0);
  }
  EXPECT_TRUE(std::isfinite(m.local_gbps) && m.local_gbps > 0 && m.local_gbps < ceiling)
      << m.local_gbps;

  const memhier::probe::Result r = memhier::probe::present_dsmem(m);
  for (const char* id : {"dsmem-by-size", "dsmem-latency", "dsmem-bandwidth", "dsmem-claims"})
    EXPECT_NE(find_table(r.section, id), nullptr) << id;
  EXPECT_EQ(r.section.charts.size(), 2u);
}

TEST(ProbeDsmem, AnOlderCardDeclines) {
  MEMHIER_REQUIRE_GPU(dev);
  if (dev->cc_major >= 9) GTEST_SKIP() << "this card has clusters: nothing to decline";
  memhier::probe::Context ctx = quick_context(*dev);
  const memhier::probe::DsmemResult m = memhier::probe::measure_dsmem(ctx);
  EXPECT_FALSE(m.declined.empty());
  EXPECT_TRUE(m.sizes.empty());
  EXPECT_NE(find_table(memhier::probe::present_dsmem(m).section, "dsmem-claims"), nullptr);
}

}  // namespace
