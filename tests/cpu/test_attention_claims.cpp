// The attention ladder's claim against its vendor line from hand-built bench records: best's
// lowest paired ratio to cuDNN per head_dim, each against the goal's floor.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "memhier/claims/ladders.hpp"
#include "memhier/results/claim_id.hpp"

namespace memhier::claims {
namespace {

using results::BenchRecord;

// best's verified row at `shape`, paired with cuDNN at `x_vendor`.
BenchRecord best_at(const std::string& shape, double x_vendor) {
  BenchRecord r;
  r.family = "attention";
  r.variant = "best";
  r.shape = shape;
  r.rung = 5;
  r.verified = true;
  r.ms = 1.0;
  r.x_vendor = x_vendor;
  return r;
}

Check vs_cudnn(const std::vector<BenchRecord>& records) {
  for (const Check& c : attention_checks(records))
    if (c.id == ClaimId::attention_best_vs_cudnn) return c;
  ADD_FAILURE() << "attention_checks has no attention-best-vs-cudnn check";
  return {};
}

TEST(ClaimsLadder, AttentionBestIsJudgedAgainstCudnnPerHeadDim) {
  std::vector<BenchRecord> r{best_at("2x16x16x2048x2048x128", 0.95),
                             best_at("1x16x4x4096x4096x128:causal", 0.91),
                             best_at("2x16x16x2048x2048x64:causal", 0.86)};
  const Check held = vs_cudnn(r);
  EXPECT_EQ(held.verdict, Verdict::reproduced) << held.detail;
  // The lowest ratio of each head_dim is the one quoted and judged.
  EXPECT_NE(held.measured.find("0.910x at 1x16x4x4096x4096x128:causal"), std::string::npos)
      << held.measured;
  EXPECT_NE(held.measured.find("0.860x at 2x16x16x2048x2048x64:causal"), std::string::npos)
      << held.measured;
  r[2].x_vendor = 0.84;  // head_dim 64 under its 0.85 floor, though above 0.80
  EXPECT_EQ(vs_cudnn(r).verdict, Verdict::refuted);
  r[2].x_vendor = 0.88;
  r[1].x_vendor = 0.89;  // head_dim 128 under 0.90
  EXPECT_EQ(vs_cudnn(r).verdict, Verdict::refuted);
}

TEST(ClaimsLadder, AttentionWithoutACudnnRatioIsNotMeasurable) {
  // cuDNN not in the build: no row has a vendor ratio.
  EXPECT_EQ(vs_cudnn({best_at("2x16x16x2048x2048x128", NAN)}).verdict, Verdict::not_measurable);
  EXPECT_EQ(vs_cudnn({}).verdict, Verdict::not_measurable);
  // A best that failed verification does not count, nor does another variant's ratio.
  BenchRecord wrong = best_at("2x16x16x2048x2048x128", 0.95);
  wrong.verified = false;
  BenchRecord rung = best_at("2x16x16x2048x2048x128", 0.95);
  rung.variant = "cp_async_pipeline";
  EXPECT_EQ(vs_cudnn({wrong, rung}).verdict, Verdict::not_measurable);
}

}  // namespace
}  // namespace memhier::claims
