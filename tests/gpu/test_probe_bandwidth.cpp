// GPU test of the "bandwidth" probe: every figure finite and positive, and the copy
// kernel's byte count consistent with cudaMemcpy's in the same run.
#include <cmath>
#include <string>

#include "gpu_test_util.hpp"

namespace memhier::testing {
namespace {

TEST(ProbeBandwidth, EveryTierMeasuredAndCopyNearMemcpy) {
  MEMHIER_REQUIRE_GPU(dev);
  probe::Context ctx = quick_context(*dev);
  const probe::Result r = run_probe("bandwidth", ctx);

  const report::Table* tiers = find_table(r.section, "bandwidth-tiers");
  ASSERT_NE(tiers, nullptr);
  expect_all_positive(*tiers);
  for (const char* tier : {"shared", "L1", "L2", "HBM read", "HBM write", "HBM copy", "HBM triad",
                           "cudaMemcpy D2D", "constant"}) {
    const double g = lookup(*tiers, "tier", tier, "gbps");
    EXPECT_TRUE(std::isfinite(g) && g > 0) << tier << " = " << g;
    EXPECT_LT(g, l1_ceiling_gbps(ctx)) << tier << " exceeds what L1 could deliver";
  }

  // Copy and cudaMemcpy both count read + write: a wrong byte count shows as a 2x gap.
  const double copy = lookup(*tiers, "tier", "HBM copy", "gbps");
  const double d2d = lookup(*tiers, "tier", "cudaMemcpy D2D", "gbps");
  EXPECT_GE(copy, 0.5 * d2d) << "copy " << copy << " GB/s, cudaMemcpy " << d2d << " GB/s";

  const report::Table* ratio = find_table(r.section, "bandwidth-copy-ratio");
  ASSERT_NE(ratio, nullptr);
  const double q = lookup(*ratio, "quantity", "HBM copy / cudaMemcpy", "value");
  EXPECT_TRUE(std::isfinite(q) && q > 0) << q;

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
