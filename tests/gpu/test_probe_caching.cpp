// GPU test of the "caching" probe: every timing finite and positive, and the texture and
// global box filters agree. It asserts on the measurement; the presented section is
// checked for its tables and chart.
#include <cmath>
#include <string>

#include "gpu_test_util.hpp"
#include "memhier/probe/caching.hpp"

namespace memhier::testing {
namespace {

TEST(ProbeCaching, QuickRunIsPlausible) {
  MEMHIER_REQUIRE_GPU(dev);
  probe::Context ctx = quick_context(*dev);
  const probe::CachingResult m = probe::measure_caching(ctx);

  ASSERT_EQ(m.rows.size(), 14u) << "4 operators x 3 patterns, global and texture";
  for (const probe::CachingRow& r : m.rows) {
    const std::string name = r.experiment + " " + r.variant;
    EXPECT_TRUE(std::isfinite(r.ms) && r.ms > 0) << name;
    EXPECT_TRUE(std::isfinite(r.gbps) && r.gbps > 0) << name;
    EXPECT_TRUE(std::isfinite(r.relative) && r.relative > 0) << name;
    EXPECT_LT(r.gbps, l1_ceiling_gbps(ctx)) << name;
  }
  for (const char* exp : {"reuse", "stream", "scatter"})
    for (const char* op : {"ld.ca", "ld.cg", "ld.cs", "ld.nc"})
      EXPECT_GT(m.ms_of(exp, op), 0.0) << exp << " " << op;
  EXPECT_TRUE(std::isfinite(m.util_caching) && m.util_caching > 0);
  EXPECT_GE(m.util_noncaching, m.util_caching) << "32-byte sectors waste less than 128-byte lines";

  EXPECT_TRUE(std::isfinite(m.max_rel_diff)) << "texture output has unwritten or NaN pixels";
  EXPECT_GE(m.max_rel_diff, 0.0);
  EXPECT_LT(m.max_rel_diff, 1e-4) << "texture and global box filters disagree";
  EXPECT_GT(m.ms_of("stencil-5x5", "global"), 0.0);
  EXPECT_GT(m.ms_of("stencil-5x5", "texture"), 0.0);

  const probe::Result r = probe::present_caching(m);
  EXPECT_EQ(r.section.id, "caching");
  ASSERT_NE(find_table(r.section, "caching"), nullptr);
  EXPECT_EQ(find_table(r.section, "caching")->rows.size(), m.rows.size());
  EXPECT_NE(find_table(r.section, "caching-claims"), nullptr);
  EXPECT_FALSE(r.section.charts.empty());
}

}  // namespace
}  // namespace memhier::testing
