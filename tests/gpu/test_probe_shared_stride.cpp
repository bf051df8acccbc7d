// GPU test of the "shared-stride" probe: figures positive, stride 32 clearly slower
// than stride 33 for 4-byte words (a 32-way conflict against none).
#include <cmath>

#include "gpu_test_util.hpp"

namespace memhier::testing {
namespace {

/// The `value_key` number of the row with this stride and width, NaN when absent.
double at(const report::Table& t, int stride, int width, const std::string& value_key) {
  const int s = column(t, "stride"), w = column(t, "width_bytes"), v = column(t, value_key);
  if (s < 0 || w < 0 || v < 0) return NAN;
  for (const auto& row : t.rows)
    if (row[s].number == stride && row[w].number == width) return row[v].number;
  return NAN;
}

TEST(ProbeSharedStride, Stride32ConflictsStride33DoesNot) {
  MEMHIER_REQUIRE_GPU(dev);
  probe::Context ctx = quick_context(*dev);
  const probe::Result r = run_probe("shared-stride", ctx);

  const report::Table* t = find_table(r.section, "shared-stride");
  ASSERT_NE(t, nullptr);
  expect_all_positive(*t);
  for (int width : {4, 8, 16})
    for (int stride : {1, 2, 4, 8, 16, 32, 33})
      EXPECT_TRUE(std::isfinite(at(*t, stride, width, "gbps"))) << width << " B stride " << stride;

  const double s32 = at(*t, 32, 4, "slowdown");
  const double s33 = at(*t, 33, 4, "slowdown");
  ASSERT_TRUE(std::isfinite(s32) && std::isfinite(s33));
  EXPECT_GE(s32, 4.0 * s33) << "stride 32: " << s32 << "x, stride 33: " << s33 << "x";

  // The model beside it says the same.
  EXPECT_EQ(at(*t, 32, 4, "predicted_degree"), 32);
  EXPECT_EQ(at(*t, 33, 4, "predicted_degree"), 1);

  EXPECT_NE(find_table(r.section, "shared-stride-claims"), nullptr);
  EXPECT_FALSE(r.section.charts.empty());
}

}  // namespace
}  // namespace memhier::testing
