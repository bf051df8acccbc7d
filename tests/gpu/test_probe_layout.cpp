// GPU test of the "layout" probe: tables present, every figure finite and positive,
// and the orderings with wide margins only (timings vary from card to card).
#include <cmath>
#include <string>

#include "gpu_test_util.hpp"

namespace memhier::testing {
namespace {

/// The number in `value_key` of the row whose experiment and variant match.
double cell(const report::Table& t, const std::string& experiment, const std::string& variant,
            const std::string& value_key) {
  const int e = column(t, "experiment"), v = column(t, "variant"), k = column(t, value_key);
  if (e < 0 || v < 0 || k < 0) return NAN;
  for (const auto& row : t.rows)
    if (row[e].display() == experiment && row[v].display() == variant) return row[k].number;
  return NAN;
}

TEST(ProbeLayout, QuickRunIsPlausible) {
  MEMHIER_REQUIRE_GPU(dev);
  probe::Context ctx = quick_context(*dev);
  const probe::Result r = run_probe("layout", ctx);
  EXPECT_EQ(r.section.id, "layout");

  const report::Table* t = find_table(r.section, "layout");
  ASSERT_NE(t, nullptr);
  ASSERT_NE(find_table(r.section, "layout-claims"), nullptr);
  for (const char* key : {"experiment", "variant", "ms", "gbps", "relative"})
    EXPECT_GE(column(*t, key), 0) << key;
  EXPECT_FALSE(t->rows.empty());
  expect_all_positive(*t);
  EXPECT_FALSE(r.section.charts.empty());

  // SoA is never much slower than AoS (it moves no more bytes).
  for (const char* exp : {"aos-soa-xyz", "aos-soa-x"}) {
    const double aos = cell(*t, exp, "aos", "ms"), soa = cell(*t, exp, "soa", "ms");
    ASSERT_TRUE(std::isfinite(aos) && std::isfinite(soa)) << exp;
    EXPECT_LE(soa, aos / 0.5) << exp << ": SoA slower than 0.5x AoS";
  }
  EXPECT_GT(cell(*t, "copy-width", "float4", "gbps"), 0.0);
  EXPECT_GT(cell(*t, "alignment", "misaligned", "gbps"), 0.0);

  const report::Table* claims = find_table(r.section, "layout-claims");
  EXPECT_FALSE(claims->rows.empty());
}

}  // namespace
}  // namespace memhier::testing
