// GPU tests of the L2 probes: plausibility with wide margins only, never tight timings.
#include <cmath>

#include "gpu_test_util.hpp"

namespace {

using memhier::testing::column;
using memhier::testing::expect_all_positive;
using memhier::testing::find_table;
using memhier::testing::lookup;
using memhier::testing::quick_context;
using memhier::testing::run_probe;

TEST(ProbeL2, WorkingSetCurveAndCapacity) {
  MEMHIER_REQUIRE_GPU(dev);
  memhier::probe::Context ctx = quick_context(*dev);
  const memhier::probe::Result r = run_probe("l2-working-set", ctx);

  const memhier::report::Table* t = find_table(r.section, "l2-working-set");
  ASSERT_NE(t, nullptr);
  const int bw = column(*t, "gbps");
  ASSERT_GE(bw, 0);
  ASSERT_GE(column(*t, "working_set_bytes"), 0);
  ASSERT_GE(t->rows.size(), 4u);
  expect_all_positive(*t);
  // A set that fits in L2 reads faster than the largest one.
  EXPECT_GT(t->rows.front()[bw].number, t->rows.back()[bw].number);

  const memhier::report::Table* cap = find_table(r.section, "l2-capacity");
  ASSERT_NE(cap, nullptr);
  const double props = lookup(*cap, "quantity", "L2 size (properties)", "value");
  const double measured = lookup(*cap, "quantity", "effective capacity (measured)", "value");
  ASSERT_TRUE(std::isfinite(props) && props > 0);
  ASSERT_TRUE(std::isfinite(measured)) << "no effective capacity found";
  EXPECT_GE(measured, 0.25 * props);
  EXPECT_LE(measured, 4.0 * props);
  for (const char* q : {"in-L2 bandwidth", "HBM bandwidth"}) {
    const double v = lookup(*cap, "quantity", q, "value");
    EXPECT_TRUE(std::isfinite(v) && v > 0) << q << " = " << v;
  }

  bool chart = false;
  for (const auto& c : r.section.charts) chart = chart || c.id == "l2-working-set-chart";
  EXPECT_TRUE(chart);
}

TEST(ProbeL2, PersistingWindowSpeedupIsFinite) {
  MEMHIER_REQUIRE_GPU(dev);
  memhier::probe::Context ctx = quick_context(*dev);
  const memhier::probe::Result r = run_probe("l2-persisting", ctx);

  const memhier::report::Table* t = find_table(r.section, "l2-persisting");
  ASSERT_NE(t, nullptr);
  const double speedup = lookup(*t, "case", "evicted, persisting window", "speedup");
  if (dev->persisting_l2_max_bytes == 0) {
    EXPECT_TRUE(std::isnan(speedup)) << "no persisting L2, yet a speedup of " << speedup;
    return;
  }
  // No claim that the window must help: only that the figure exists.
  EXPECT_TRUE(std::isfinite(speedup) && speedup > 0) << "speedup = " << speedup;
  for (const char* c :
       {"in L2, no eviction (reference)", "evicted, no window", "evicted, persisting window"}) {
    const double us = lookup(*t, "case", c, "median_us");
    EXPECT_TRUE(std::isfinite(us) && us > 0) << c << " = " << us;
  }
}

}  // namespace
