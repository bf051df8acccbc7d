// The "local-memory" probe: on a GPU, the array really is in local memory and its stream runs
// at DRAM speed (not L1's), near its global twin, with wide margins; without one, the
// section's claim, notes and tier figure from made-up figures.
#include <cmath>
#include <string>

#include "gpu_test_util.hpp"
#include "memhier/claims/catalogue.hpp"
#include "memhier/probe/local.hpp"

namespace memhier::testing {
namespace {

TEST(ProbeLocal, TheSpilledArrayStreamsAtDramSpeed) {
  MEMHIER_REQUIRE_GPU(dev);
  probe::Context ctx = quick_context(*dev);
  const probe::LocalResult m = probe::measure_local(ctx);

  EXPECT_GE(m.local_bytes, m.array_bytes) << "the array was not placed in local memory";
  if (!m.unmeasured.empty()) GTEST_SKIP() << m.unmeasured;
  // Far beyond L2 in all, so the figure is DRAM's: not above 1.5x the datasheet, and well
  // under what L1 hits would give.
  EXPECT_GE(m.footprint_bytes(), 4.0 * static_cast<double>(m.l2_bytes));
  EXPECT_TRUE(std::isfinite(m.local_gbps) && m.local_gbps > 0) << m.local_gbps;
  EXPECT_TRUE(std::isfinite(m.global_gbps) && m.global_gbps > 0) << m.global_gbps;
  EXPECT_LT(m.local_gbps, 0.5 * l1_ceiling_gbps(ctx));
  if (dev->peak_dram_gbps() > 0) {
    EXPECT_LT(m.local_gbps, 1.5 * dev->peak_dram_gbps());
  }
  // The same bytes in the same layout: within 4x of each other either way.
  report_figure("local_over_global", m.local_over_global, "between 0.25 and 4",
                m.local_over_global > 0.25 && m.local_over_global < 4.0);

  const probe::Result r = probe::present_local(m);
  ASSERT_NE(find_table(r.section, "local-memory"), nullptr);
  EXPECT_NE(find_table(r.section, "local-memory-claims"), nullptr);
  ASSERT_EQ(r.tiers.size(), 1u);
  EXPECT_EQ(r.tiers[0].tier, "local");
  EXPECT_EQ(r.tiers[0].bandwidth_gbps, m.local_gbps);
}

probe::LocalResult made_up(double local_gbps) {
  probe::LocalResult m;
  m.array_bytes = 4096;
  m.local_bytes = 4096;
  m.threads = 132 * 2048;
  m.sm_count = 132;
  m.l2_bytes = 50u << 20;
  m.bytes_per_launch = 2 * m.footprint_bytes();
  m.local_gbps = local_gbps;
  m.global_gbps = 3000;
  m.local_ms = m.bytes_per_launch / (local_gbps * 1e6);
  m.global_ms = m.bytes_per_launch / 3e9;
  m.local_over_global = m.p10 = m.p90 = local_gbps / 3000;
  return m;
}

claims::Verdict verdict_of(const probe::Result& r) {
  EXPECT_NE(find_table(r.section, "local-memory-claims"), nullptr);
  EXPECT_EQ(r.section.checks.size(), 1u);
  if (r.section.checks.empty()) return claims::Verdict::not_measurable;
  EXPECT_EQ(r.section.checks[0].id, claims::ClaimId::local_bandwidth_3350);
  return r.section.checks[0].verdict;
}

TEST(ProbeLocal, TheClaimAndTheTierFigureFollowTheMeasurement) {
  const probe::Result ok = probe::present_local(made_up(2900));
  EXPECT_EQ(verdict_of(ok), claims::Verdict::reproduced);
  ASSERT_EQ(ok.tiers.size(), 1u);
  EXPECT_EQ(ok.tiers[0].bandwidth_gbps, 2900);
  EXPECT_NE(ok.tiers[0].bandwidth_method.find("local-memory"), std::string::npos);

  EXPECT_EQ(verdict_of(probe::present_local(made_up(900))), claims::Verdict::refuted);

  probe::LocalResult none = made_up(NAN);
  none.unmeasured = "the compiler kept the array out of local memory";
  const probe::Result r = probe::present_local(none);
  EXPECT_EQ(verdict_of(r), claims::Verdict::not_measurable);
  EXPECT_TRUE(r.tiers.empty());
}

}  // namespace
}  // namespace memhier::testing
