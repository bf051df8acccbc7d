// The memory-spaces table from every probe's tier figures: each tier's bandwidth is the
// fastest method that measured it, named; latency and size the first given. Needs no GPU.
#include <cmath>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"
#include "memhier/probe/bandwidth.hpp"

namespace memhier::testing {
namespace {

probe::TierFigure bw(const std::string& tier, double gbps, const std::string& method) {
  probe::TierFigure f;
  f.tier = tier;
  f.bandwidth_gbps = gbps;
  f.bandwidth_method = method;
  return f;
}

const probe::TierFigure* tier(const std::vector<probe::TierFigure>& v, const std::string& name) {
  for (const probe::TierFigure& f : v)
    if (f.tier == name) return &f;
  return nullptr;
}

TEST(ProbeTiers, EachTierQuotesItsFastestMethod) {
  probe::TierFigure hbm_latency;
  hbm_latency.tier = "HBM";
  hbm_latency.latency_cycles = 684;
  hbm_latency.size = "80 GiB";
  const std::vector<probe::TierFigure> merged = probe::merge_tiers(
      {hbm_latency, bw("HBM", 2809, "copy"), bw("HBM", 3149, "write"), bw("HBM", NAN, "none"),
       bw("HBM", 3010, "cudaMemcpy"), bw("L2", 7551, "bandwidth L2"), bw("L2", 7308, "plateau"),
       bw("HBM", 3149, "a tie")});
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_EQ(merged[0].tier, "L2");  // the hierarchy's order, not the figures'
  const probe::TierFigure* h = tier(merged, "HBM");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->bandwidth_gbps, 3149);
  EXPECT_EQ(h->bandwidth_method, "write");  // a tie keeps the first
  EXPECT_EQ(h->latency_cycles, 684);
  EXPECT_EQ(h->size, "80 GiB");
  EXPECT_EQ(tier(merged, "L2")->bandwidth_method, "bandwidth L2");
  EXPECT_TRUE(std::isnan(h->copy_gbps));  // no figure here was a copy
  // The fastest copy (bytes read + written) rides beside the tier's best figure.
  probe::TierFigure copy = bw("HBM", 2809, "copy"), d2d = bw("HBM", 3010, "cudaMemcpy");
  copy.copy_gbps = 2809;
  d2d.copy_gbps = 3010;
  const std::vector<probe::TierFigure> with_copy =
      probe::merge_tiers({copy, bw("HBM", 3149, "write"), d2d});
  EXPECT_EQ(with_copy[0].bandwidth_gbps, 3149);
  EXPECT_EQ(with_copy[0].copy_gbps, 3010);
  // A tier no method measured keeps no figure and no method.
  const std::vector<probe::TierFigure> none = probe::merge_tiers({bw("local", NAN, "x")});
  ASSERT_EQ(none.size(), 1u);
  EXPECT_TRUE(std::isnan(none[0].bandwidth_gbps));
  EXPECT_TRUE(none[0].bandwidth_method.empty());
}

TEST(ProbeTiers, TheTableNamesTheMethod) {
  probe::Context ctx;
  ctx.sm_clock_mhz = 1980;
  const report::Section s =
      probe::summary_section(probe::merge_tiers({bw("HBM", 3000, "probe x: y")}), ctx);
  const report::Table* t = find_table(s, "memory-spaces");
  ASSERT_NE(t, nullptr);
  const int col = t->column("bandwidth_method");
  ASSERT_GE(col, 0);
  ASSERT_EQ(t->rows.size(), 1u);
  EXPECT_EQ(t->rows[0][static_cast<std::size_t>(col)].text, "probe x: y");
}

// Every row of the bandwidth probe is a candidate for its tier: the fastest HBM stream (here
// the write) wins over the copy and cudaMemcpy.
TEST(ProbeTiers, TheBandwidthProbeOffersEveryRow) {
  probe::BandwidthResult m;
  m.device.sm_count = 132;
  m.device.l2_bytes = 50 << 20;
  m.sm_clock_mhz = 1980;
  m.tiers = {{"shared", "4-byte loads", 33000, true},
             {"shared", "16-byte loads", 33300, true},
             {"L2", "ld.cg", 7500, true},
             {"HBM read", "float4 loads", 3050, false},
             {"HBM write", "float4 stores", 3150, false},
             {"HBM copy", "tiles", 3000, false},
             {"cudaMemcpy D2D", "vendor", 3010, false},
             {"constant", "uniform", 16500, true}};
  const probe::Result r = probe::present_bandwidth(m);
  EXPECT_EQ(r.tiers.size(), m.tiers.size());
  const std::vector<probe::TierFigure> merged = probe::merge_tiers(r.tiers);
  EXPECT_EQ(tier(merged, "HBM")->bandwidth_gbps, 3150);
  EXPECT_NE(tier(merged, "HBM")->bandwidth_method.find("HBM write"), std::string::npos);
  EXPECT_EQ(tier(merged, "shared")->bandwidth_gbps, 33300);
  EXPECT_NE(tier(merged, "shared")->bandwidth_method.find("16-byte"), std::string::npos);
  EXPECT_EQ(tier(merged, "constant")->bandwidth_gbps, 16500);
}

}  // namespace
}  // namespace memhier::testing
