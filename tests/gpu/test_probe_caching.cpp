// GPU test of the "caching" probe: tables present, every timing finite and positive,
// and the texture and global box filters agree.
#include <cmath>
#include <string>

#include "gpu_test_util.hpp"

namespace memhier::testing {
namespace {

double cell(const report::Table& t, const std::string& experiment, const std::string& variant,
            const std::string& value_key) {
  const int e = column(t, "experiment"), v = column(t, "variant"), k = column(t, value_key);
  if (e < 0 || v < 0 || k < 0) return NAN;
  for (const auto& row : t.rows)
    if (row[e].display() == experiment && row[v].display() == variant) return row[k].number;
  return NAN;
}

TEST(ProbeCaching, QuickRunIsPlausible) {
  MEMHIER_REQUIRE_GPU(dev);
  probe::Context ctx = quick_context(*dev);
  const probe::Result r = run_probe("caching", ctx);
  EXPECT_EQ(r.section.id, "caching");

  const report::Table* t = find_table(r.section, "caching");
  ASSERT_NE(t, nullptr);
  ASSERT_NE(find_table(r.section, "caching-claims"), nullptr);
  for (const char* key : {"experiment", "variant", "ms", "gbps", "relative", "max_rel_diff"})
    EXPECT_GE(column(*t, key), 0) << key;
  EXPECT_FALSE(r.section.charts.empty());

  // Every figure finite and positive, except max_rel_diff, which may be exactly 0.
  const int diff_col = column(*t, "max_rel_diff");
  for (const auto& row : t->rows)
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (row[i].kind != report::Value::Kind::number || static_cast<int>(i) == diff_col) continue;
      EXPECT_TRUE(std::isfinite(row[i].number) && row[i].number > 0)
          << t->id << " column " << t->columns[i].name << " = " << row[i].number;
    }

  for (const char* exp : {"reuse", "stream", "scatter"})
    for (const char* op : {"ld.ca", "ld.cg", "ld.cs", "ld.nc"}) {
      EXPECT_GT(cell(*t, exp, op, "gbps"), 0.0) << exp << " " << op;
      EXPECT_LT(cell(*t, exp, op, "gbps"), l1_ceiling_gbps(ctx)) << exp << " " << op;
    }

  const double diff = cell(*t, "stencil-5x5", "texture", "max_rel_diff");
  EXPECT_TRUE(std::isfinite(diff)) << "texture output has unwritten or NaN pixels";
  EXPECT_GE(diff, 0.0);
  EXPECT_LT(diff, 1e-4) << "texture and global box filters disagree";
  EXPECT_GT(cell(*t, "stencil-5x5", "global", "gbps"), 0.0);
  EXPECT_GT(cell(*t, "stencil-5x5", "texture", "gbps"), 0.0);
}

}  // namespace
}  // namespace memhier::testing
