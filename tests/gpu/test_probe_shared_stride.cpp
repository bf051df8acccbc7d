// GPU test of the "shared-stride" probe: figures positive, stride 32 clearly slower than
// stride 33 for 4-byte words (a 32-way conflict against none). It asserts on the
// measurement; the presented section is checked for its tables and chart.
#include <cmath>

#include "gpu_test_util.hpp"
#include "memhier/probe/shared_stride.hpp"

namespace memhier::testing {
namespace {

TEST(ProbeSharedStride, Stride32ConflictsStride33DoesNot) {
  MEMHIER_REQUIRE_GPU(dev);
  probe::Context ctx = quick_context(*dev);
  const probe::SharedStrideResult m = probe::measure_shared_stride(ctx);

  for (const probe::StridePoint& p : m.points) {
    EXPECT_TRUE(std::isfinite(p.gbps) && p.gbps > 0) << p.width << " B stride " << p.stride;
    EXPECT_TRUE(std::isfinite(p.slowdown) && p.slowdown > 0) << p.width << " B stride " << p.stride;
    EXPECT_GT(p.predicted_wavefronts, 0) << p.width << " B stride " << p.stride;
  }
  for (int width : {4, 8, 16})
    for (std::uint32_t stride : {1u, 2u, 4u, 8u, 16u, 32u, 33u}) {
      const probe::StridePoint* p = m.find(width, stride);
      ASSERT_NE(p, nullptr) << width << " B stride " << stride;
      if (stride == 1) {
        EXPECT_EQ(p->slowdown, 1.0) << width << " B";
      }
    }

  const double s32 = m.find(4, 32)->slowdown;
  const double s33 = m.find(4, 33)->slowdown;
  EXPECT_GE(s32, 4.0 * s33) << "stride 32: " << s32 << "x, stride 33: " << s33 << "x";

  // The model beside it says the same.
  EXPECT_EQ(m.find(4, 32)->predicted_degree, 32);
  EXPECT_EQ(m.find(4, 33)->predicted_degree, 1);

  const probe::Result r = probe::present_shared_stride(m);
  ASSERT_NE(find_table(r.section, "shared-stride"), nullptr);
  EXPECT_EQ(find_table(r.section, "shared-stride")->rows.size(), m.points.size());
  EXPECT_NE(find_table(r.section, "shared-stride-claims"), nullptr);
  EXPECT_FALSE(r.section.charts.empty());
}

}  // namespace
}  // namespace memhier::testing
