// GPU test of the "global-stride" probe: figures positive, coalesced (stride 1) faster than
// one element per 128-byte line (stride 32). It asserts on the measurement; the presented
// section is checked for its tables.
#include <cmath>

#include "gpu_test_util.hpp"
#include "memhier/probe/global_stride.hpp"

namespace memhier::testing {
namespace {

TEST(ProbeGlobalStride, CoalescedBeatsStride32) {
  MEMHIER_REQUIRE_GPU(dev);
  probe::Context ctx = quick_context(*dev);
  const probe::GlobalStrideResult m = probe::measure_global_stride(ctx);

  ASSERT_EQ(m.patterns.size(), 7u) << "strides 1..32 and the random gather";
  for (const probe::StrideBandwidth& p : m.patterns) {
    EXPECT_TRUE(std::isfinite(p.gbps) && p.gbps > 0) << p.pattern << " = " << p.gbps;
    EXPECT_TRUE(std::isfinite(p.relative) && p.relative > 0) << p.pattern;
    EXPECT_TRUE(std::isfinite(p.predicted_relative) && p.predicted_relative > 0) << p.pattern;
  }
  ASSERT_NE(m.find(1), nullptr);
  ASSERT_NE(m.find(32), nullptr);
  ASSERT_NE(m.find(0), nullptr) << "random gather";
  EXPECT_EQ(m.find(0)->pattern, "random");
  EXPECT_EQ(m.find(1)->relative, 1.0);
  report_figure("stride1_over_stride32", m.find(1)->gbps / m.find(32)->gbps, "above 1",
                m.find(1)->gbps > m.find(32)->gbps);

  // The model: 4 sectors per request when coalesced, one per lane at stride 32.
  EXPECT_NEAR(m.find(1)->predicted_sectors_per_request, 4.0, 1e-9);
  EXPECT_NEAR(m.find(32)->predicted_sectors_per_request, 32.0, 1e-9);

  const probe::Result r = probe::present_global_stride(m);
  ASSERT_NE(find_table(r.section, "global-stride"), nullptr);
  EXPECT_EQ(find_table(r.section, "global-stride")->rows.size(), m.patterns.size());
  EXPECT_NE(find_table(r.section, "global-stride-claims"), nullptr);
}

}  // namespace
}  // namespace memhier::testing
