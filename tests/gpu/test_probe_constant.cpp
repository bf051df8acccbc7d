// GPU test of the "constant" probe: tables present, every figure finite and positive,
// uniform (broadcast) constant reads clearly faster than divergent ones.
#include <cmath>
#include <string>

#include "gpu_test_util.hpp"

namespace memhier::testing {
namespace {

double cell(const report::Table& t, const std::string& memory, const std::string& pattern,
            const std::string& value_key) {
  const int m = column(t, "memory"), p = column(t, "pattern"), k = column(t, value_key);
  if (m < 0 || p < 0 || k < 0) return NAN;
  for (const auto& row : t.rows)
    if (row[m].display() == memory && row[p].display() == pattern) return row[k].number;
  return NAN;
}

TEST(ProbeConstant, QuickRunIsPlausible) {
  MEMHIER_REQUIRE_GPU(dev);
  probe::Context ctx = quick_context(*dev);
  const probe::Result r = run_probe("constant", ctx);
  EXPECT_EQ(r.section.id, "constant");

  const report::Table* t = find_table(r.section, "constant");
  ASSERT_NE(t, nullptr);
  ASSERT_NE(find_table(r.section, "constant-claims"), nullptr);
  const report::Table* lat = find_table(r.section, "constant-latency");
  ASSERT_NE(lat, nullptr);
  for (const char* key : {"memory", "pattern", "ms", "gloads_per_s", "gbps", "relative"})
    EXPECT_GE(column(*t, key), 0) << key;
  expect_all_positive(*t);
  expect_all_positive(*lat);

  const double uniform = cell(*t, "constant", "uniform", "ms");
  const double divergent = cell(*t, "constant", "divergent", "ms");
  ASSERT_TRUE(std::isfinite(uniform) && std::isfinite(divergent));
  EXPECT_GT(divergent / uniform, 1.5) << "broadcast reads should beat serialized ones";

  // The summary tier: constant, with a finite positive broadcast bandwidth.
  bool found = false;
  for (const probe::TierFigure& f : r.tiers)
    if (f.tier == "constant") {
      found = true;
      EXPECT_TRUE(std::isfinite(f.bandwidth_gbps) && f.bandwidth_gbps > 0);
      EXPECT_TRUE(std::isfinite(f.latency_cycles) && f.latency_cycles > 0);
      EXPECT_FALSE(f.size.empty());
    }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace memhier::testing
