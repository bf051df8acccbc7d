// Paired timing and the ceilings the ladders are quoted against: a paired ratio is the ratio
// of the callables' times round by round, the last callable's outputs are what remain, the
// read-only kernel reads every word and the write-only kernel writes every word, and
// run_family pairs every rung with its references and says why a rung declines a shape.
// Timed assertions keep wide plausibility margins.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"
#include "memhier/bench/kernel_bench.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/ceilings.hpp"
#include "memhier/core/timing.hpp"
#include "memhier/kernels/register.hpp"

namespace memhier::testing {
namespace {

using registry::BenchRecord;

core::TimingOptions quick_paired() {
  core::TimingOptions o;
  o.warmup = 1;
  o.min_reps = 9;
  o.max_reps = 40;
  o.min_total_ms = 5.0;
  o.flush_l2 = true;
  return o;
}

TEST(PairedTiming, TheRatioIsTakenRoundByRound) {
  MEMHIER_REQUIRE_GPU(dev);
  // Reading 4x the bytes takes about 4x the time once both are far beyond L2 (at 64 MB
  // against 256 MB an H100 read 2.97x: the smaller one still gains from the 50 MB L2).
  const std::size_t small = std::size_t{256} << 20, large = 4 * small;
  core::DeviceBuffer<char> buf(large);
  core::DeviceBuffer<unsigned> sum(1);
  MEMHIER_CUDA(cudaMemset(buf.data(), 1, large));
  const int blocks = core::ceiling_blocks();
  const core::PairedTiming p = core::time_paired(
      {[&](cudaStream_t s) { core::launch_read_only(buf.data(), small, sum.data(), blocks, s); },
       [&](cudaStream_t s) { core::launch_read_only(buf.data(), large, sum.data(), blocks, s); }},
      quick_paired());
  ASSERT_EQ(p.each.size(), 2u);
  ASSERT_EQ(p.rounds.size(), 2u);
  EXPECT_EQ(p.rounds[0].size(), p.rounds[1].size());  // one repetition of each per round
  EXPECT_GE(p.each[0].reps, 9);
  EXPECT_LE(p.each[0].reps, 40);
  const core::RatioStats r = p.ratio(1, 0);
  report_figure("large_over_small_read", r.median, "between 3 and 5 (4x the bytes)",
                r.median > 3.0 && r.median < 5.0);
  EXPECT_LE(r.p10, r.median);
  EXPECT_LE(r.median, r.p90);
  // The ratio is per round: its median is that of rounds[1][j] / rounds[0][j].
  std::vector<double> by_hand;
  for (std::size_t j = 0; j < p.rounds[0].size(); ++j)
    by_hand.push_back(p.rounds[1][j] / p.rounds[0][j]);
  std::sort(by_hand.begin(), by_hand.end());
  if (by_hand.size() % 2 == 1) {
    EXPECT_DOUBLE_EQ(r.median, by_hand[by_hand.size() / 2]);
  }
  const core::RatioStats self = p.ratio(0, 0);
  EXPECT_DOUBLE_EQ(self.median, 1.0);
  EXPECT_DOUBLE_EQ(self.p10, 1.0);
}

TEST(PairedTiming, TheLastCallableRunsLastInEveryRound) {
  MEMHIER_REQUIRE_GPU(dev);
  core::DeviceBuffer<unsigned char> out(4096);
  core::time_paired(
      {[&](cudaStream_t s) { MEMHIER_CUDA(cudaMemsetAsync(out.data(), 7, 4096, s)); },
       [&](cudaStream_t s) { MEMHIER_CUDA(cudaMemsetAsync(out.data(), 9, 4096, s)); }},
      quick_paired());
  for (unsigned char b : out.download()) ASSERT_EQ(b, 9);
  EXPECT_THROW(core::time_paired({}, quick_paired()), std::invalid_argument);
}

TEST(PairedTiming, TimeItIsOneCallablePaired) {
  MEMHIER_REQUIRE_GPU(dev);
  core::DeviceBuffer<char> buf(1 << 20);
  core::TimingOptions o = quick_paired();
  o.min_total_ms = 0;
  const core::Timing t = core::time_it(
      [&](cudaStream_t s) { MEMHIER_CUDA(cudaMemsetAsync(buf.data(), 0, buf.bytes(), s)); }, o);
  EXPECT_EQ(t.reps, 9);  // min_reps, nothing more asked for
  EXPECT_LE(t.p10_ms, t.median_ms);
  EXPECT_LE(t.median_ms, t.p90_ms);
}

TEST(Ceilings, ReadOnlySumsEveryWordAndWriteOnlyWritesEveryWord) {
  MEMHIER_REQUIRE_GPU(dev);
  const std::size_t words = 4 * 1000003;  // an odd count of 16-byte words
  std::vector<std::uint32_t> host(words);
  std::uint32_t want = 0;
  for (std::size_t i = 0; i < words; ++i) {
    host[i] = static_cast<std::uint32_t>(i * 2654435761u);
    want += host[i];
  }
  core::DeviceBuffer<std::uint32_t> buf(words);
  buf.upload(host);
  core::DeviceBuffer<unsigned> sum(1);
  MEMHIER_CUDA(cudaMemset(sum.data(), 0, sizeof(unsigned)));
  const int blocks = core::ceiling_blocks();
  EXPECT_GT(blocks, 0);
  core::launch_read_only(buf.data(), buf.bytes(), sum.data(), blocks, nullptr);
  EXPECT_EQ(sum.download()[0], want);

  buf.poison();
  core::launch_write_only(buf.data(), buf.bytes(), 0x01020304u, blocks, nullptr);
  const std::vector<std::uint32_t> written = buf.download();
  for (std::size_t i = 0; i < words; ++i) ASSERT_EQ(written[i], 0x01020304u) << "word " << i;

  EXPECT_THROW(core::launch_read_only(buf.data(), 20, sum.data(), blocks, nullptr),
               std::invalid_argument);
  EXPECT_THROW(core::launch_write_only(buf.data(), 20, 0, blocks, nullptr), std::invalid_argument);
}

// The records of one family at one shape, quick.
std::vector<BenchRecord> bench(const std::string& family, const std::string& shape) {
  kernels::register_families();
  const registry::Family* f = registry::find_family(family);
  if (!f) throw std::runtime_error("no family " + family);
  bench::BenchOptions o;
  o.shapes = {shape};
  o.quick = true;
  return bench::run_family(*f, o);
}

void expect_paired(double median, const registry::Spread& s, const std::string& what) {
  EXPECT_TRUE(std::isfinite(median) && median > 0) << what << ": " << median;
  EXPECT_LE(s.p10, median) << what;
  EXPECT_LE(median, s.p90) << what;
}

// The launch-bound shape whose memcpy reference drifted by 3% between separate medians.
TEST(BenchPaired, SoftmaxRungsArePairedWithMemcpyAndDeclinedRungsSayWhy) {
  MEMHIER_REQUIRE_GPU(dev);
  const std::vector<BenchRecord> rs = bench("softmax", "8x65536");
  ASSERT_GE(rs.size(), 4u);
  EXPECT_EQ(rs[0].variant, "cudaMemcpy D2D");
  EXPECT_EQ(rs[1].variant, "read-only ceiling");
  EXPECT_EQ(rs[2].variant, "write-only ceiling");
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(rs[i].ceiling) << rs[i].variant;
    EXPECT_GT(rs[i].gbps, 0) << rs[i].variant;
    if (i > 0) {
      EXPECT_FALSE(rs[i].note.empty()) << "how the ceiling was measured";
    }
  }
  EXPECT_DOUBLE_EQ(rs[0].frac_memcpy, 1.0);
  expect_paired(rs[1].frac_memcpy, rs[1].frac_memcpy_spread, "read-only x memcpy");
  int declined = 0, timed = 0;
  const registry::Family* f = registry::find_family("softmax");
  const report::Section s = bench::family_section(*f, rs);
  const report::Table& t = s.tables.at(0);
  const int verified = t.column("verified");
  ASSERT_GE(verified, 0);
  for (std::size_t i = 0; i < rs.size(); ++i) {
    const BenchRecord& r = rs[i];
    if (r.rung == 0) continue;
    SCOPED_TRACE(r.variant);
    const std::string cell = t.rows[i][static_cast<std::size_t>(verified)].text;
    if (!r.declined.empty()) {
      ++declined;
      EXPECT_FALSE(std::isfinite(r.ms));
      EXPECT_EQ(cell, "declined: " + r.declined);
      continue;
    }
    ASSERT_TRUE(r.verified) << r.note;
    EXPECT_EQ(cell, "yes");
    ++timed;
    expect_paired(r.frac_memcpy, r.frac_memcpy_spread, "x memcpy");
    EXPECT_TRUE(std::isnan(r.x_vendor));     // softmax has no vendor baseline
    EXPECT_TRUE(std::isnan(r.x_read_only));  // nor is it read-dominated
  }
  EXPECT_GE(declined, 1);  // warp_per_row holds at most 1024 columns
  EXPECT_GE(timed, 5);
}

TEST(BenchPaired, ReductionIsQuotedAgainstTheReadOnlyCeilingAndItsVendor) {
  MEMHIER_REQUIRE_GPU(dev);
  const std::vector<BenchRecord> rs = bench("reduction", "4194305");
  ASSERT_GE(rs.size(), 5u);
  EXPECT_EQ(rs[3].variant, "cub::DeviceReduce::Sum");
  EXPECT_FALSE(rs[3].ceiling);
  EXPECT_TRUE(rs[3].verified);
  EXPECT_DOUBLE_EQ(rs[3].x_vendor, 1.0);
  expect_paired(rs[3].frac_memcpy, rs[3].frac_memcpy_spread, "vendor x memcpy");
  expect_paired(rs[3].x_read_only, rs[3].x_read_only_spread, "vendor x read-only");
  EXPECT_DOUBLE_EQ(rs[1].x_read_only, 1.0);  // the read-only ceiling against itself
  for (std::size_t i = 4; i < rs.size(); ++i) {
    const BenchRecord& r = rs[i];
    SCOPED_TRACE(r.variant);
    if (!r.declined.empty()) continue;
    ASSERT_TRUE(r.verified) << r.note;
    expect_paired(r.frac_memcpy, r.frac_memcpy_spread, "x memcpy");
    expect_paired(r.x_vendor, r.x_vendor_spread, "x vendor");
    expect_paired(r.x_read_only, r.x_read_only_spread, "x read-only");
  }
  const report::Section s = bench::family_section(*registry::find_family("reduction"), rs);
  EXPECT_GE(s.tables.at(0).column("x_read_only"), 0);
}

}  // namespace
}  // namespace memhier::testing
