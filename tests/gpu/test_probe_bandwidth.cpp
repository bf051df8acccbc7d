// GPU test of the "bandwidth" probe: every figure finite and positive, and the copy
// kernel's byte count consistent with cudaMemcpy's in the same run. It asserts on the
// measurement; the presented section is checked for its tables and summary figures.
#include <algorithm>
#include <cmath>
#include <string>

#include "gpu_test_util.hpp"
#include "memhier/probe/bandwidth.hpp"

namespace memhier::testing {
namespace {

TEST(ProbeBandwidth, EveryTierMeasuredAndCopyNearMemcpy) {
  MEMHIER_REQUIRE_GPU(dev);
  probe::Context ctx = quick_context(*dev);
  const probe::BandwidthResult m = probe::measure_bandwidth(ctx);

  ASSERT_EQ(m.tiers.size(), 17u)
      << "3 shared widths, L1, 4 L2 working sets, 3 HBM reads, 2 HBM writes, copy, triad, "
         "cudaMemcpy, constant";
  for (const probe::TierBandwidth& t : m.tiers) {
    EXPECT_TRUE(std::isfinite(t.gbps) && t.gbps > 0)
        << t.tier << " " << t.access << " = " << t.gbps;
    EXPECT_LT(t.gbps, l1_ceiling_gbps(ctx)) << t.tier << " exceeds what L1 could deliver";
  }
  for (double g : {m.best_shared_gbps, m.l1_gbps, m.l2_gbps, m.read_gbps, m.write_gbps, m.copy_gbps,
                   m.triad_gbps, m.memcpy_gbps, m.constant_gbps})
    EXPECT_TRUE(std::isfinite(g) && g > 0) << g;
  EXPECT_GT(m.array_bytes, 0);
  // The best shared width is one of the three measured.
  double best = 0;
  for (const probe::TierBandwidth& t : m.tiers)
    if (t.tier == "shared") best = std::max(best, t.gbps);
  EXPECT_EQ(m.best_shared_gbps, best);

  // Copy and cudaMemcpy both count read + write: a wrong byte count shows as a 2x gap.
  report_figure("copy_over_memcpy", m.copy_gbps / m.memcpy_gbps, "at least 0.5",
                m.copy_gbps >= 0.5 * m.memcpy_gbps);

  const probe::Result r = probe::present_bandwidth(m);
  ASSERT_NE(find_table(r.section, "bandwidth-tiers"), nullptr);
  EXPECT_EQ(find_table(r.section, "bandwidth-tiers")->rows.size(), m.tiers.size());
  ASSERT_NE(find_table(r.section, "bandwidth-copy-ratio"), nullptr);
  EXPECT_NE(find_table(r.section, "bandwidth-claims"), nullptr);
  for (const char* tier : {"shared", "L1", "L2", "HBM", "constant"}) {
    bool found = false;
    for (const probe::TierFigure& f : r.tiers) {
      if (f.tier != tier) continue;
      found = true;
      EXPECT_TRUE(std::isfinite(f.bandwidth_gbps) && f.bandwidth_gbps > 0) << tier;
    }
    EXPECT_TRUE(found) << "no tier figure for " << tier;
  }
}

}  // namespace
}  // namespace memhier::testing
