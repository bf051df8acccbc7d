// The reduction ladder's claim from hand-built bench records: cp.async staging against the
// single pass it builds on, at the largest size the run measured.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "memhier/claims/ladders.hpp"
#include "memhier/results/claim_id.hpp"

namespace memhier::claims {
namespace {

using results::BenchRecord;

// A verified, timed record as run_family makes it.
BenchRecord timed(const std::string& variant, const std::string& shape, double ms) {
  BenchRecord r;
  r.family = "reduction";
  r.variant = variant;
  r.shape = shape;
  r.rung = 1;
  r.verified = true;
  r.ms = ms;
  return r;
}

Check the_check(const std::vector<BenchRecord>& records) {
  const std::vector<Check> checks = reduction_checks(records);
  EXPECT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks.at(0).id, ClaimId::cp_async_reduction_1_09x);
  return checks.at(0);
}

TEST(ClaimsLadder, CpAsyncReductionIsJudgedAgainstItsSinglePassAtTheLargestSize) {
  std::vector<BenchRecord> r{timed("best_b512_v4x4", "1048576", 0.010),
                             timed("cp_async_pipeline", "1048576", 0.020),
                             timed("best_b512_v4x4", "268435456", 0.3546),
                             timed("cp_async_pipeline", "268435456", 0.3250)};
  const Check won = the_check(r);  // 1.09x at 2^28; the small size (0.5x) does not count
  EXPECT_NE(won.measured.find("268435456"), std::string::npos);
  EXPECT_EQ(won.verdict, Verdict::reproduced);
  r[3].ms = 0.3600;  // cp.async loses: 0.985x
  EXPECT_EQ(the_check(r).verdict, Verdict::refuted);
  r[3].verified = false;
  EXPECT_EQ(the_check(r).verdict, Verdict::not_measurable);
  EXPECT_EQ(the_check({}).verdict, Verdict::not_measurable);
}

}  // namespace
}  // namespace memhier::claims
