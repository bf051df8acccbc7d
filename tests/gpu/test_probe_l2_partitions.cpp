// GPU tests of the l2-partitions probe: plausibility with wide margins only, never tight
// timings. They skip without a GPU; below compute capability 9.0 the probe must decline.
#include <algorithm>
#include <cmath>
#include <vector>

#include "gpu_test_util.hpp"
#include "memhier/probe/l2_partitions.hpp"

namespace {

using memhier::testing::find_table;
using memhier::testing::l1_ceiling_gbps;
using memhier::testing::quick_context;
using memhier::testing::report_figure;

TEST(ProbeL2Partitions, MapAndBandwidthArePlausible) {
  MEMHIER_REQUIRE_GPU(dev);
  if (dev->cc_major < 9) GTEST_SKIP() << "the L2 partition map is made for compute capability 9.0";
  memhier::probe::Context ctx = quick_context(*dev);
  const memhier::probe::L2PartitionsResult m = memhier::probe::measure_l2_partitions(ctx);
  ASSERT_TRUE(m.declined.empty()) << m.declined;

  // Every SM got a row (one block per SM), every row every page.
  EXPECT_EQ(m.smids.size(), static_cast<std::size_t>(dev->sm_count));
  ASSERT_EQ(m.cycles.size(), m.smids.size() * static_cast<std::size_t>(m.pages));
  std::vector<double> finite;
  for (double c : m.cycles)
    if (std::isfinite(c)) finite.push_back(c);
  EXPECT_GE(finite.size(), m.cycles.size() * 95 / 100);
  // An L2 hit: slower than an L1 hit, faster than anything near a DRAM page miss (all but
  // the odd cell an interruption lands on).
  const auto hits =
      std::count_if(finite.begin(), finite.end(), [](double c) { return c > 50 && c < 3000; });
  EXPECT_GE(static_cast<std::size_t>(hits), finite.size() * 99 / 100);
  std::sort(finite.begin(), finite.end());
  const double mid = finite[finite.size() / 2];
  EXPECT_TRUE(mid > 100 && mid < 1500) << mid;

  const memhier::probe::L2Split& s = m.split;
  if (s.split) {
    report_figure("far_over_near_cycles", s.far_cycles / s.near_cycles, "at least 1.15",
                  s.far_cycles >= 1.15 * s.near_cycles);
    EXPECT_TRUE(s.far_fraction > 0.05 && s.far_fraction < 0.95) << s.far_fraction;
    EXPECT_EQ(s.side_a_sms + s.side_b_sms, static_cast<int>(m.smids.size()));
    EXPECT_TRUE(std::isfinite(m.near_gbps) && m.near_gbps > 0) << m.near_unmeasured;
  } else {
    EXPECT_FALSE(s.why_not.empty());
  }
  const double ceiling = l1_ceiling_gbps(ctx);
  EXPECT_TRUE(std::isfinite(m.spread_gbps) && m.spread_gbps > 0 && m.spread_gbps < ceiling)
      << m.spread_gbps;
  if (std::isfinite(m.near_gbps)) {
    EXPECT_LT(m.near_gbps, ceiling);
  }

  const memhier::probe::Result r = memhier::probe::present_l2_partitions(m);
  for (const char* id :
       {"l2-partitions-summary", "l2-partitions-bandwidth", "l2-partitions-claims"})
    EXPECT_NE(find_table(r.section, id), nullptr) << id;
  bool map = false;
  for (const auto& c : r.section.charts)
    map = map || (c.id == "l2-partitions-map" && c.series.size() == m.smids.size());
  EXPECT_TRUE(map);
}

TEST(ProbeL2Partitions, AnOlderCardDeclines) {
  MEMHIER_REQUIRE_GPU(dev);
  if (dev->cc_major >= 9) GTEST_SKIP() << "a Hopper card: nothing to decline";
  memhier::probe::Context ctx = quick_context(*dev);
  const memhier::probe::L2PartitionsResult m = memhier::probe::measure_l2_partitions(ctx);
  EXPECT_FALSE(m.declined.empty());
  EXPECT_TRUE(m.cycles.empty());
}

}  // namespace
