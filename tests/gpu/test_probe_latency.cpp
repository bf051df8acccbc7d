// GPU tests of the latency probes: plausibility with wide margins only, never tight timings.
#include <cmath>
#include <string>

#include "gpu_test_util.hpp"

namespace {

using memhier::testing::column;
using memhier::testing::expect_all_positive;
using memhier::testing::find_table;
using memhier::testing::lookup;
using memhier::testing::quick_context;
using memhier::testing::run_probe;

TEST(ProbeLatency, TiersArePositiveAndOrdered) {
  MEMHIER_REQUIRE_GPU(dev);
  memhier::probe::Context ctx = quick_context(*dev);
  const memhier::probe::Result r = run_probe("latency", ctx);

  const memhier::report::Table* t = find_table(r.section, "latency-tiers");
  ASSERT_NE(t, nullptr);
  for (const char* key : {"tier", "method", "cycles", "ns"}) EXPECT_GE(column(*t, key), 0) << key;
  expect_all_positive(*t);

  double cycles[6] = {};
  const char* tiers[6] = {"shared", "L1", "L2", "HBM", "constant", "local"};
  for (int i = 0; i < 6; ++i) {
    cycles[i] = lookup(*t, "tier", tiers[i], "cycles");
    EXPECT_TRUE(std::isfinite(cycles[i]) && cycles[i] > 0) << tiers[i] << " = " << cycles[i];
    const double ns = lookup(*t, "tier", tiers[i], "ns");
    EXPECT_TRUE(std::isfinite(ns) && ns > 0) << tiers[i] << " ns = " << ns;
  }
  // The order the hierarchy promises: shared < L1 < L2 < HBM.
  EXPECT_LT(cycles[0], cycles[1]);
  EXPECT_LT(cycles[1], cycles[2]);
  EXPECT_LT(cycles[2], cycles[3]);

  for (const char* tier : tiers) {
    bool found = false;
    for (const auto& f : r.tiers)
      if (f.tier == tier) {
        found = true;
        EXPECT_TRUE(std::isfinite(f.latency_cycles) && f.latency_cycles > 0) << tier;
      }
    EXPECT_TRUE(found) << "no tier figure for " << tier;
  }

  const memhier::report::Table* claims = find_table(r.section, "latency-claims");
  ASSERT_NE(claims, nullptr);
  EXPECT_FALSE(claims->rows.empty());
}

TEST(ProbeLatency, WorkingSetSweepHasCurveAndKnees) {
  MEMHIER_REQUIRE_GPU(dev);
  memhier::probe::Context ctx = quick_context(*dev);
  const memhier::probe::Result r = run_probe("latency-working-set", ctx);

  const memhier::report::Table* t = find_table(r.section, "latency-working-set");
  ASSERT_NE(t, nullptr);
  for (const char* key : {"working_set_bytes", "ca_cycles", "cg_cycles", "ca_ns", "cg_ns"})
    EXPECT_GE(column(*t, key), 0) << key;
  ASSERT_GE(t->rows.size(), 8u);
  expect_all_positive(*t);
  // A ring far beyond the caches is slower than one that fits in L1.
  const int ca = column(*t, "ca_cycles"), cg = column(*t, "cg_cycles");
  EXPECT_LT(t->rows.front()[ca].number, t->rows.back()[ca].number);
  EXPECT_LT(t->rows.front()[cg].number, t->rows.back()[cg].number);

  const memhier::report::Table* knees = find_table(r.section, "latency-knees");
  ASSERT_NE(knees, nullptr);
  for (const char* key : {"knee", "working_set_bytes", "before_cycles", "after_cycles"})
    EXPECT_GE(column(*knees, key), 0) << key;
  EXPECT_FALSE(knees->rows.empty());
  expect_all_positive(*knees);

  bool chart = false;
  for (const auto& c : r.section.charts) chart = chart || c.id == "latency-working-set-chart";
  EXPECT_TRUE(chart);
}

}  // namespace
