// GPU test of the "layout" probe: every figure finite and positive, and the orderings with
// wide margins only (timings vary from card to card). It asserts on the measurement; the
// presented section is checked for its tables and chart.
#include <cmath>
#include <string>

#include "gpu_test_util.hpp"
#include "memhier/probe/layout.hpp"

namespace memhier::testing {
namespace {

TEST(ProbeLayout, QuickRunIsPlausible) {
  MEMHIER_REQUIRE_GPU(dev);
  probe::Context ctx = quick_context(*dev);
  const probe::LayoutResult m = probe::measure_layout(ctx);

  ASSERT_EQ(m.rows.size(), 14u)
      << "aos-soa x2 (2 each), struct12 (3), copy-width (3), alignment (4)";
  for (const probe::LayoutRow& v : m.rows) {
    const std::string name = v.experiment + " " + v.variant;
    for (double x : {v.ms, v.gbps, v.relative, v.sectors_per_request, v.predicted})
      EXPECT_TRUE(std::isfinite(x) && x > 0) << name << ": " << x;
  }
  // SoA is never much slower than AoS (it moves no more bytes).
  for (const char* exp : {"aos-soa-xyz", "aos-soa-x"}) {
    const probe::LayoutRow* aos = m.find(exp, "aos");
    const probe::LayoutRow* soa = m.find(exp, "soa");
    ASSERT_TRUE(aos && soa) << exp;
    report_figure(std::string(exp) + "_soa_over_aos_time", soa->ms / aos->ms, "at most 2",
                  soa->ms <= aos->ms / 0.5);
    // The model: a 32-byte struct moves more sectors per useful byte than separate arrays.
    EXPECT_GT(soa->predicted, 1.0) << exp;
  }
  ASSERT_NE(m.find("copy-width", "float4"), nullptr);
  ASSERT_NE(m.find("alignment", "misaligned"), nullptr);
  EXPECT_GT(m.find("alignment", "misaligned")->sectors_per_request,
            m.find("alignment", "aligned")->sectors_per_request)
      << "a misaligned warp touches one more sector";

  const probe::Result r = probe::present_layout(m);
  EXPECT_EQ(r.section.id, "layout");
  ASSERT_NE(find_table(r.section, "layout"), nullptr);
  EXPECT_EQ(find_table(r.section, "layout")->rows.size(), m.rows.size());
  const report::Table* claims = find_table(r.section, "layout-claims");
  ASSERT_NE(claims, nullptr);
  EXPECT_FALSE(claims->rows.empty());
  EXPECT_FALSE(r.section.charts.empty());
}

}  // namespace
}  // namespace memhier::testing
