// GPU test of the "global-stride" probe: figures positive, coalesced (stride 1) faster
// than one element per 128-byte line (stride 32).
#include <cmath>

#include "gpu_test_util.hpp"

namespace memhier::testing {
namespace {

TEST(ProbeGlobalStride, CoalescedBeatsStride32) {
  MEMHIER_REQUIRE_GPU(dev);
  probe::Context ctx = quick_context(*dev);
  const probe::Result r = run_probe("global-stride", ctx);

  const report::Table* t = find_table(r.section, "global-stride");
  ASSERT_NE(t, nullptr);
  expect_all_positive(*t);
  for (const char* p :
       {"stride 1", "stride 2", "stride 4", "stride 8", "stride 16", "stride 32", "random"}) {
    const double g = lookup(*t, "pattern", p, "gbps");
    EXPECT_TRUE(std::isfinite(g) && g > 0) << p << " = " << g;
  }
  const double s1 = lookup(*t, "pattern", "stride 1", "gbps");
  const double s32 = lookup(*t, "pattern", "stride 32", "gbps");
  EXPECT_GT(s1, s32) << "stride 1: " << s1 << " GB/s, stride 32: " << s32 << " GB/s";

  // The model: 4 sectors per request when coalesced, one per lane at stride 32.
  EXPECT_NEAR(lookup(*t, "pattern", "stride 1", "predicted_sectors_per_request"), 4.0, 1e-9);
  EXPECT_NEAR(lookup(*t, "pattern", "stride 32", "predicted_sectors_per_request"), 32.0, 1e-9);

  EXPECT_NE(find_table(r.section, "global-stride-claims"), nullptr);
}

}  // namespace
}  // namespace memhier::testing
