// The "gather" probe: on a GPU, both orders timed and sorting faster with wide margins; without
// one, the shuffled indices are a permutation that scatters neighbours, and the section's
// claim is judged from the speedup it is given.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "gpu_test_util.hpp"
#include "memhier/claims/catalogue.hpp"
#include "memhier/probe/gather.hpp"

namespace memhier::testing {
namespace {

TEST(ProbeGather, SortedIndicesGatherFasterThanShuffled) {
  MEMHIER_REQUIRE_GPU(dev);
  probe::Context ctx = quick_context(*dev);
  const probe::GatherResult m = probe::measure_gather(ctx);

  ASSERT_EQ(m.orders.size(), 2u);
  EXPECT_EQ(m.orders[0].order, "sorted");
  EXPECT_EQ(m.orders[1].order, "shuffled");
  for (const probe::GatherOrder& g : m.orders) {
    EXPECT_TRUE(std::isfinite(g.useful_gbps) && g.useful_gbps > 0) << g.order;
    EXPECT_NEAR(g.requested_gbps, 3 * g.useful_gbps, 1e-6 * g.requested_gbps) << g.order;
  }
  // A shuffled gather fetches a 32-byte sector for every 4 useful bytes: sorting must win
  // by far more than noise, and the sorted gather cannot beat DRAM by much (the buffer is
  // far beyond L2 and L2 is flushed).
  report_figure("sorted_over_shuffled", m.speedup, "above 1.5", m.speedup > 1.5);
  EXPECT_LE(m.speedup_p10, m.speedup);
  EXPECT_GE(m.speedup_p90, m.speedup);
  if (dev->peak_dram_gbps() > 0) {
    EXPECT_LT(m.orders[0].requested_gbps, 1.3 * dev->peak_dram_gbps());
  }

  const probe::Result r = probe::present_gather(m);
  ASSERT_NE(find_table(r.section, "gather-orders"), nullptr);
  EXPECT_EQ(find_table(r.section, "gather-orders")->rows.size(), 2u);
  EXPECT_NE(find_table(r.section, "gather-claims"), nullptr);
  ASSERT_EQ(r.section.charts.size(), 1u);
}

TEST(ProbeGather, ShuffledIndicesArePermutationsThatScatterNeighbours) {
  for (int bits : {1, 2, 5, 10, 16, 20}) {
    const std::uint32_t n = 1u << bits;
    std::vector<char> seen(n, 0);
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint32_t j = probe::gather_shuffled_index(i, bits);
      ASSERT_LT(j, n) << "bits " << bits;
      EXPECT_FALSE(seen[j]) << "bits " << bits << ": " << j << " drawn twice";
      seen[j] = 1;
    }
  }
  // Neighbours land far apart: on 2^20 positions, the mean jump is near n/3 (random pairs),
  // and few jumps stay inside one 32-byte sector (8 floats).
  const int bits = 20;
  const double n = 1 << bits;
  double total = 0;
  int close = 0;
  for (std::uint32_t i = 0; i + 1 < (1u << bits); ++i) {
    const double d = std::fabs(static_cast<double>(probe::gather_shuffled_index(i + 1, bits)) -
                               static_cast<double>(probe::gather_shuffled_index(i, bits)));
    total += d;
    close += d < 8;
  }
  EXPECT_GT(total / (n - 1), n / 4);
  EXPECT_LT(close, 64);
}

probe::GatherResult made_up(double sorted_ms, double shuffled_ms) {
  probe::GatherResult m;
  m.elements = std::uint64_t(1) << 28;
  m.l2_bytes = 50u << 20;
  const double n = static_cast<double>(m.elements);
  for (double ms : {sorted_ms, shuffled_ms}) {
    probe::GatherOrder g;
    g.order = m.orders.empty() ? "sorted" : "shuffled";
    g.median_ms = ms;
    g.useful_gbps = 4 * n / (ms * 1e6);
    g.requested_gbps = 12 * n / (ms * 1e6);
    m.orders.push_back(g);
  }
  m.speedup = m.speedup_p10 = m.speedup_p90 = shuffled_ms / sorted_ms;
  return m;
}

claims::Verdict verdict_of(const probe::Result& r) {
  const report::Table* t = find_table(r.section, "gather-claims");
  EXPECT_NE(t, nullptr);
  if (!t || t->rows.empty()) return claims::Verdict::not_measurable;
  EXPECT_EQ(t->rows[0][0].text, "gather-sort-8x");
  EXPECT_EQ(r.section.checks.size(), 1u);
  return r.section.checks.empty() ? claims::Verdict::not_measurable : r.section.checks[0].verdict;
}

TEST(ProbeGather, TheClaimIsJudgedOnTheSpeedup) {
  EXPECT_EQ(verdict_of(probe::present_gather(made_up(1.0, 8.5))), claims::Verdict::reproduced);
  EXPECT_EQ(verdict_of(probe::present_gather(made_up(1.0, 3.0))), claims::Verdict::refuted);
  const probe::Result r = probe::present_gather(made_up(1.0, 3.0));
  const report::Table* t = find_table(r.section, "gather-orders");
  ASSERT_NE(t, nullptr);
  EXPECT_NEAR(t->rows[0][t->column("useful_gbps")].number, 4.0 * (1 << 28) / 1e6, 1);
  EXPECT_NEAR(t->rows[1][t->column("useful_gbps")].number, 4.0 * (1 << 28) / 3e6, 1);
  EXPECT_TRUE(r.tiers.empty());
}

}  // namespace
}  // namespace memhier::testing
