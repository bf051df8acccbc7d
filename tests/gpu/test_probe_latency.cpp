// GPU tests of the latency probes: plausibility with wide margins only, never tight timings.
// They assert on the measurements; the presented sections are checked for their tables.
#include <cmath>
#include <string>

#include "gpu_test_util.hpp"
#include "memhier/probe/latency.hpp"

namespace {

using memhier::testing::find_table;
using memhier::testing::quick_context;
using memhier::testing::report_figure;

TEST(ProbeLatency, TiersArePositiveAndOrdered) {
  MEMHIER_REQUIRE_GPU(dev);
  memhier::probe::Context ctx = quick_context(*dev);
  const memhier::probe::LatencyResult m = memhier::probe::measure_latency(ctx);

  EXPECT_GT(m.steps, 0);
  EXPECT_GT(m.sm_clock_mhz, 0);
  const char* tiers[6] = {"shared", "L1", "L2", "HBM", "constant", "local"};
  double cycles[6] = {};
  for (int i = 0; i < 6; ++i) {
    cycles[i] = m.cycles_of(tiers[i]);
    EXPECT_TRUE(std::isfinite(cycles[i]) && cycles[i] > 0) << tiers[i] << " = " << cycles[i];
  }
  // No hop, TLB-missing DRAM included, takes anywhere near 20000 cycles.
  for (const auto& t : m.tiers)
    if (std::isfinite(t.cycles)) {
      EXPECT_LT(t.cycles, 20000) << t.tier;
    }
  // The order the hierarchy promises: shared < L1 < L2 < HBM.
  for (int i = 0; i < 3; ++i)
    report_figure(std::string(tiers[i + 1]) + "_over_" + tiers[i] + "_cycles",
                  cycles[i + 1] / cycles[i], "above 1", cycles[i] < cycles[i + 1]);

  const memhier::probe::Result r = memhier::probe::present_latency(m);
  for (const char* tier : tiers) {
    bool found = false;
    for (const auto& f : r.tiers)
      if (f.tier == tier) {
        found = true;
        EXPECT_EQ(f.latency_cycles, m.cycles_of(tier)) << tier;
      }
    EXPECT_TRUE(found) << "no tier figure for " << tier;
  }
  ASSERT_NE(find_table(r.section, "latency-tiers"), nullptr);
  EXPECT_EQ(find_table(r.section, "latency-tiers")->rows.size(), m.tiers.size());
  const memhier::report::Table* claims = find_table(r.section, "latency-claims");
  ASSERT_NE(claims, nullptr);
  EXPECT_FALSE(claims->rows.empty());
}

TEST(ProbeLatency, WorkingSetSweepHasCurveAndKnees) {
  MEMHIER_REQUIRE_GPU(dev);
  memhier::probe::Context ctx = quick_context(*dev);
  const memhier::probe::WorkingSetResult m = memhier::probe::measure_latency_working_set(ctx);

  ASSERT_GE(m.points.size(), 8u);
  for (std::size_t i = 0; i < m.points.size(); ++i) {
    const auto& p = m.points[i];
    EXPECT_TRUE(std::isfinite(p.ca_cycles) && p.ca_cycles > 0) << p.bytes;
    EXPECT_TRUE(std::isfinite(p.cg_cycles) && p.cg_cycles > 0) << p.bytes;
    if (i > 0) {
      EXPECT_GT(p.bytes, m.points[i - 1].bytes);
    }
  }
  // A ring far beyond the caches is slower than one that fits in L1.
  report_figure("largest_over_smallest_ring_ca",
                m.points.back().ca_cycles / m.points.front().ca_cycles, "above 1",
                m.points.front().ca_cycles < m.points.back().ca_cycles);
  report_figure("largest_over_smallest_ring_cg",
                m.points.back().cg_cycles / m.points.front().cg_cycles, "above 1",
                m.points.front().cg_cycles < m.points.back().cg_cycles);

  ASSERT_FALSE(m.knees.empty());
  for (const auto& k : m.knees) {
    EXPECT_LT(k.prev_bytes, k.bytes) << k.label;
    report_figure("knee_after_over_before", k.after_cycles / k.before_cycles,
                  "above 1 at " + k.label, k.after_cycles > k.before_cycles);
    EXPECT_GT(k.before_cycles, 0) << k.label;
  }

  const memhier::probe::Result r = memhier::probe::present_latency_working_set(m);
  ASSERT_NE(find_table(r.section, "latency-working-set"), nullptr);
  ASSERT_NE(find_table(r.section, "latency-knees"), nullptr);
  EXPECT_EQ(find_table(r.section, "latency-knees")->rows.size(), m.knees.size());
  bool chart = false;
  for (const auto& c : r.section.charts) chart = chart || c.id == "latency-working-set-chart";
  EXPECT_TRUE(chart);
}

// The knee finder on a made-up staircase: L1 (30) to L2 (280) past 128 KiB, to HBM (600)
// past 4x the L2.
TEST(ProbeLatency, KneesFoundOnAStaircase) {
  using memhier::probe::WorkingSetPoint;
  const std::uint64_t KiB = 1024, MiB = KiB * KiB;
  std::vector<WorkingSetPoint> pts;
  for (std::uint64_t b = 16 * KiB; b <= 1024 * MiB; b *= 2) {
    const double y = b <= 128 * KiB ? 30 : b <= 50 * MiB ? 280 : 600;
    pts.push_back({b, y, y});
  }
  const auto knees = memhier::probe::find_latency_knees(pts, 50 * MiB);
  ASSERT_EQ(knees.size(), 4u);  // two per series
  EXPECT_EQ(knees[0].label, "L1 (ld.ca)");
  EXPECT_EQ(knees[0].bytes, 256 * KiB);
  EXPECT_EQ(knees[0].prev_bytes, 128 * KiB);
  EXPECT_DOUBLE_EQ(knees[0].before_cycles, 30);
  EXPECT_DOUBLE_EQ(knees[0].after_cycles, 280);
  EXPECT_EQ(knees[1].label, "L2 (ld.ca)");
  EXPECT_EQ(knees[1].bytes, 64 * MiB);
  EXPECT_EQ(knees[3].label, "L2 (ld.cg)");
}

}  // namespace
