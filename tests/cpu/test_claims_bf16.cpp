// The bf16 GEMM ladder's claim check from hand-built records: this card's balance (the faster
// of cuBLAS and best over cudaMemcpy D2D at the shape with the most bytes) against 590 FLOP
// per byte, and "not measurable here" when the records cannot give it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "memhier/claims/catalogue.hpp"
#include "memhier/claims/ladders.hpp"

namespace {

using memhier::claims::Check;
using memhier::claims::classify;
using memhier::claims::gemm_bf16_checks;
using memhier::claims::Verdict;
using memhier::registry::BenchRecord;

constexpr double kBytes4096 = 2.0 * 2 * 4096.0 * 4096 + 4.0 * 4096 * 4096;  // bf16 A, B; fp32 C
constexpr double kFlops4096 = 2.0 * 4096 * 4096 * 4096;

/// A timed, verified record at `shape` moving `bytes` and doing `flops` in `ms`.
BenchRecord rec(const std::string& variant, const std::string& shape, double ms, double bytes,
                double flops) {
  BenchRecord r;
  r.family = "gemm_bf16";
  r.variant = variant;
  r.shape = shape;
  r.verified = true;
  r.ms = ms;
  r.gbps = bytes / (ms * 1e6);
  r.gflops = flops > 0 ? flops / (ms * 1e6) : NAN;
  return r;
}

/// A run at 4096^3: copy at 3,000 GB/s, cuBLAS and best at the given TFLOP/s.
std::vector<BenchRecord> run(double cublas_tflops, double best_tflops) {
  BenchRecord copy = rec("cudaMemcpy D2D", "4096x4096x4096", kBytes4096 / 3e9, kBytes4096, 0);
  copy.ceiling = true;
  copy.gflops = NAN;
  std::vector<BenchRecord> v{copy};
  v.push_back(rec("cublasGemmEx bf16", "4096x4096x4096", kFlops4096 / (cublas_tflops * 1e9),
                  kBytes4096, kFlops4096));
  BenchRecord best =
      rec("best", "4096x4096x4096", kFlops4096 / (best_tflops * 1e9), kBytes4096, kFlops4096);
  best.rung = 6;
  v.push_back(best);
  return v;
}

Check only(const std::vector<BenchRecord>& records) {
  const std::vector<Check> c = gemm_bf16_checks(records);
  EXPECT_EQ(c.size(), 1u);
  EXPECT_STREQ(c.at(0).id.c_str(), "fp16-tensor-590-flop-per-byte");
  return c.at(0);
}

TEST(GemmBf16Claim, AnH100sDenseBalanceRefutesTheSparseFigure) {
  // 700 TFLOP/s over 3,000 GB/s: 233 FLOP per byte, outside 590 +- 25 %.
  const Check c = only(run(700, 400));
  EXPECT_EQ(classify(c.verdict), Verdict::refuted) << c.verdict;
  EXPECT_NE(c.measured.find("cublasGemmEx bf16 700 TFLOP/s"), std::string::npos) << c.measured;
  EXPECT_NE(c.measured.find("3000 GB/s"), std::string::npos) << c.measured;
  EXPECT_NE(c.measured.find("233 FLOP per byte"), std::string::npos) << c.measured;
}

TEST(GemmBf16Claim, TheFasterOfCublasAndBestSetsTheBalance) {
  // best at 1,800 TFLOP/s: 600 FLOP per byte, inside the band.
  const Check c = only(run(700, 1800));
  EXPECT_EQ(classify(c.verdict), Verdict::reproduced) << c.verdict;
  EXPECT_EQ(c.measured.rfind("best 1800 TFLOP/s", 0), 0u) << c.measured;
}

TEST(GemmBf16Claim, NotMeasurableWithoutTheRecordsItNeeds) {
  EXPECT_EQ(classify(only({}).verdict), Verdict::not_measurable);
  // Only a shape L2 can hold: 1024^3 moves 8 MB.
  const double bytes = 2.0 * 2 * 1024 * 1024 + 4.0 * 1024 * 1024;
  BenchRecord copy = rec("cudaMemcpy D2D", "1024x1024x1024", bytes / 3e9, bytes, 0);
  copy.ceiling = true;
  const Check small = only({copy, rec("best", "1024x1024x1024", 0.01, bytes, 2e9)});
  EXPECT_EQ(classify(small.verdict), Verdict::not_measurable);
  EXPECT_NE(small.verdict.find("L2"), std::string::npos) << small.verdict;
  // Neither GEMM verified.
  std::vector<BenchRecord> bad = run(700, 400);
  bad[1].verified = false;
  bad[2].verified = false;
  EXPECT_EQ(classify(only(bad).verdict), Verdict::not_measurable);
}

TEST(GemmBf16Claim, TheCatalogueNamesTheLadderAsItsChecker) {
  const memhier::claims::Claim* c = memhier::claims::find("fp16-tensor-590-flop-per-byte");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->checked_by, std::vector<std::string>{"bench-gemm_bf16"});
  EXPECT_TRUE(c->unmeasured.empty());
}

}  // namespace
