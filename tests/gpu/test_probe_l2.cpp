// GPU tests of the L2 probes: plausibility with wide margins only, never tight timings.
// They assert on the measurements; the presented sections are checked for their tables.
#include <cmath>
#include <string>

#include "gpu_test_util.hpp"
#include "memhier/claims/catalogue.hpp"
#include "memhier/probe/l2.hpp"

namespace {

using memhier::testing::find_table;
using memhier::testing::l1_ceiling_gbps;
using memhier::testing::quick_context;
using memhier::testing::report_figure;

TEST(ProbeL2, WorkingSetCurveAndCapacity) {
  MEMHIER_REQUIRE_GPU(dev);
  memhier::probe::Context ctx = quick_context(*dev);
  const memhier::probe::L2WorkingSetResult m = memhier::probe::measure_l2_working_set(ctx);

  ASSERT_GE(m.points.size(), 4u);
  for (const auto& p : m.points) EXPECT_TRUE(std::isfinite(p.gbps) && p.gbps > 0) << p.bytes;
  // A set that fits in L2 reads faster than the largest one.
  report_figure("smallest_over_largest_set", m.points.front().gbps / m.points.back().gbps,
                "above 1", m.points.front().gbps > m.points.back().gbps);

  const double props = static_cast<double>(m.l2_bytes);
  ASSERT_TRUE(props > 0);
  ASSERT_TRUE(std::isfinite(m.plateaus.capacity_bytes)) << "no effective capacity found";
  EXPECT_GE(m.plateaus.capacity_bytes, 0.25 * props);
  EXPECT_LE(m.plateaus.capacity_bytes, 4.0 * props);
  EXPECT_TRUE(std::isfinite(m.plateaus.in_l2_gbps) && m.plateaus.in_l2_gbps > 0);
  EXPECT_TRUE(std::isfinite(m.plateaus.hbm_gbps) && m.plateaus.hbm_gbps > 0);
  report_figure("in_l2_over_hbm", m.plateaus.in_l2_gbps / m.plateaus.hbm_gbps, "above 1",
                m.plateaus.in_l2_gbps > m.plateaus.hbm_gbps);

  const memhier::probe::Result r = memhier::probe::present_l2_working_set(m);
  ASSERT_NE(find_table(r.section, "l2-working-set"), nullptr);
  EXPECT_EQ(find_table(r.section, "l2-working-set")->rows.size(), m.points.size());
  EXPECT_NE(find_table(r.section, "l2-capacity"), nullptr);
  bool chart = false;
  for (const auto& c : r.section.charts) chart = chart || c.id == "l2-working-set-chart";
  EXPECT_TRUE(chart);
}

TEST(ProbeL2, PersistingWindowSpeedupIsFinite) {
  MEMHIER_REQUIRE_GPU(dev);
  memhier::probe::Context ctx = quick_context(*dev);
  const memhier::probe::L2PersistingResult m = memhier::probe::measure_l2_persisting(ctx);

  const double speedup = m.evicted_ms / m.window_ms;
  if (dev->persisting_l2_max_bytes == 0) {
    EXPECT_TRUE(std::isnan(speedup)) << "no persisting L2, yet a speedup of " << speedup;
    EXPECT_FALSE(m.unmeasured.empty());
    return;
  }
  // No claim that the window must help: only that the figures exist.
  EXPECT_TRUE(std::isfinite(speedup) && speedup > 0) << "speedup = " << speedup;
  for (double ms : {m.reference_ms, m.evicted_ms, m.window_ms})
    EXPECT_TRUE(std::isfinite(ms) && ms > 0) << ms;
  EXPECT_GE(m.bytes_per_read, static_cast<double>(m.hot_bytes));
  EXPECT_NE(find_table(memhier::probe::present_l2_persisting(m).section, "l2-persisting"), nullptr);
}

TEST(ProbeL2, RandomReadsHitL2AndFallBelowTheSequentialRead) {
  MEMHIER_REQUIRE_GPU(dev);
  memhier::probe::Context ctx = quick_context(*dev);
  const memhier::probe::L2RandomResult m = memhier::probe::measure_l2_random(ctx);

  ASSERT_GE(m.points.size(), 3u);
  for (const auto& p : m.points) EXPECT_TRUE(std::isfinite(p.gbps) && p.gbps > 0) << p.bytes;
  // Random sectors of a set that fits in L2 come back far faster than from a set far beyond
  // it, and random reads from DRAM are slower than the sequential read of 5x the L2.
  report_figure("random_in_l2_over_beyond", m.points.front().gbps / m.points.back().gbps,
                "above 1.5", m.points.front().gbps > 1.5 * m.points.back().gbps);
  ASSERT_GT(m.sequential_bytes, 0u);
  EXPECT_TRUE(std::isfinite(m.sequential_gbps) && m.sequential_gbps > 0);
  if (m.points.back().bytes >= 4 * m.l2_bytes)
    report_figure("random_beyond_l2_over_sequential", m.points.back().gbps / m.sequential_gbps,
                  "below 1", m.points.back().gbps < m.sequential_gbps);
  EXPECT_LT(m.points.front().gbps, l1_ceiling_gbps(ctx));

  const memhier::probe::Result r = memhier::probe::present_l2_random(m);
  ASSERT_NE(find_table(r.section, "l2-random"), nullptr);
  EXPECT_EQ(find_table(r.section, "l2-random")->rows.size(), m.points.size());
  EXPECT_NE(find_table(r.section, "l2-random-plateaus"), nullptr);
  EXPECT_NE(find_table(r.section, "l2-random-claims"), nullptr);
  EXPECT_TRUE(r.tiers.empty());
}

memhier::claims::Verdict random_verdict(const memhier::probe::L2RandomResult& m) {
  const memhier::probe::Result r = memhier::probe::present_l2_random(m);
  EXPECT_NE(find_table(r.section, "l2-random-claims"), nullptr);
  EXPECT_EQ(r.section.checks.size(), 1u);
  if (r.section.checks.empty()) return memhier::claims::Verdict::not_measurable;
  EXPECT_EQ(r.section.checks[0].id, memhier::claims::ClaimId::l2_working_set_random_2gb);
  return r.section.checks[0].verdict;
}

// The claim's ratio is the 2 GiB random point over the sequential read of 5x the L2.
TEST(ProbeL2, RandomClaimIsTheTwoGibPointOverTheSequentialRead) {
  using memhier::claims::Verdict;
  const std::uint64_t MiB = 1 << 20;
  memhier::probe::L2RandomResult m;
  m.l2_bytes = 50 * MiB;
  m.sequential_bytes = 250 * MiB;
  m.sequential_gbps = 3000;
  m.sweep_top_bytes = 4096 * MiB;
  for (std::uint64_t b = MiB; b <= 4096 * MiB; b *= 2)
    m.points.push_back({b, b <= 32 * MiB ? 4000.0 : b == 2048 * MiB ? 510.0 : 600.0});
  m.plateaus = memhier::probe::find_l2_plateaus(m.points, m.l2_bytes);
  EXPECT_EQ(random_verdict(m), Verdict::reproduced);            // 0.17x
  m.points[11].gbps = 1500;                                     // 2 GiB: 0.5x
  EXPECT_EQ(random_verdict(m), Verdict::refuted);
  m.sequential_gbps = NAN;
  EXPECT_EQ(random_verdict(m), Verdict::not_measurable);
  m.sequential_gbps = 3000;
  m.points.resize(10);  // up to 512 MiB: no 2 GiB set
  EXPECT_EQ(random_verdict(m), Verdict::not_measurable);
}

// The plateaus and the knee on a made-up curve: 7000 GB/s up to the L2 size, 3000 beyond.
TEST(ProbeL2, PlateausOnAStep) {
  const std::uint64_t MiB = 1 << 20, l2 = 50 * MiB;
  std::vector<memhier::probe::L2Point> pts;
  for (std::uint64_t b = MiB; b <= 1024 * MiB; b *= 2)
    pts.push_back({b, b <= l2 ? 7000.0 : 3000.0});
  const memhier::probe::L2Plateaus pl = memhier::probe::find_l2_plateaus(pts, l2);
  EXPECT_DOUBLE_EQ(pl.in_l2_gbps, 7000);
  EXPECT_DOUBLE_EQ(pl.hbm_gbps, 3000);
  // The curve falls below 5000 between 32 and 64 MiB, halfway on log size.
  EXPECT_NEAR(pl.capacity_bytes, std::exp2(std::log2(32.0 * MiB) + 0.5), 1.0);
  EXPECT_TRUE(pl.notes.empty());
}

}  // namespace
