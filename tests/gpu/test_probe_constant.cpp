// GPU test of the "constant" probe: every figure finite and positive, uniform (broadcast)
// constant reads clearly faster than divergent ones. It asserts on the measurement; the
// presented section is checked for its tables and summary figure.
#include <cmath>
#include <string>

#include "gpu_test_util.hpp"
#include "memhier/probe/constant.hpp"

namespace memhier::testing {
namespace {

TEST(ProbeConstant, QuickRunIsPlausible) {
  MEMHIER_REQUIRE_GPU(dev);
  probe::Context ctx = quick_context(*dev);
  const probe::ConstantResult m = probe::measure_constant(ctx);

  ASSERT_EQ(m.reads.size(), 5u);
  for (const probe::ConstantRead& r : m.reads) {
    const std::string name = r.memory + " " + r.pattern;
    for (double x : {r.ms, r.gloads_per_s, r.gbps, r.relative})
      EXPECT_TRUE(std::isfinite(x) && x > 0) << name << ": " << x;
  }
  EXPECT_EQ(m.reads[0].memory, "constant");
  EXPECT_EQ(m.reads[0].pattern, "uniform");
  EXPECT_EQ(m.reads[1].pattern, "divergent");
  EXPECT_EQ(m.reads[0].distinct_per_warp, 1);
  EXPECT_EQ(m.reads[1].distinct_per_warp, 32);
  // Broadcast reads should beat serialized ones.
  const double serialized = m.reads[1].ms / m.reads[0].ms;
  report_figure("divergent_over_uniform_time", serialized, "above 1.5", serialized > 1.5);
  EXPECT_TRUE(std::isfinite(m.latency_cycles) && m.latency_cycles > 0) << m.latency_cycles;
  EXPECT_GT(m.constant_bytes, 0);

  const probe::Result r = probe::present_constant(m);
  EXPECT_EQ(r.section.id, "constant");
  ASSERT_NE(find_table(r.section, "constant"), nullptr);
  ASSERT_NE(find_table(r.section, "constant-latency"), nullptr);
  ASSERT_NE(find_table(r.section, "constant-claims"), nullptr);
  // The summary tier: constant, with the broadcast bandwidth and the chain's latency.
  bool found = false;
  for (const probe::TierFigure& f : r.tiers)
    if (f.tier == "constant") {
      found = true;
      EXPECT_EQ(f.bandwidth_gbps, m.reads[0].gbps);
      EXPECT_EQ(f.latency_cycles, m.latency_cycles);
      EXPECT_FALSE(f.size.empty());
    }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace memhier::testing
