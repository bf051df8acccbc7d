// The roofline from plain records: ceilings, points, the ridge and its claim.
#include <gtest/gtest.h>

#include "memhier/claims/ladders.hpp"
#include "memhier/report/roofline.hpp"

namespace {

using memhier::model::NumberType;
using memhier::results::BenchRecord;
using memhier::results::Bound;
using memhier::report::SummaryInput;

BenchRecord rec(const std::string& family, const std::string& variant, int rung,
                const std::string& shape, double flops, double bytes, double ms) {
  BenchRecord r;
  r.family = family;
  r.variant = variant;
  r.rung = rung;
  r.shape = shape;
  r.verified = true;
  r.ms = ms;
  r.gflops = flops / (ms * 1e6);
  r.gbps = bytes / (ms * 1e6);
  return r;
}

// A GEMM's record: compute-bound, its flops quoted in `type`, a peak setter (its family's facts).
BenchRecord gemm(BenchRecord r, NumberType type = NumberType::fp32) {
  r.bound = Bound::compute;
  r.number_type = type;
  r.sets_peak = true;
  return r;
}

SummaryInput input() {
  SummaryInput in;
  in.tiers = {{"HBM", NAN, NAN, 3000.0, ""}, {"L2", NAN, NAN, 10000.0, ""}};
  const double f4096 = 2.0 * 4096 * 4096 * 4096, b4096 = 3.0 * 4096 * 4096 * 4;
  in.records = {
      gemm(rec("gemm", "naive", 1, "1024x1024x1024", 2.0 * 1024 * 1024 * 1024, 12.0 * 1024 * 1024,
               5)),
      gemm(rec("gemm", "naive", 1, "4096x4096x4096", f4096, b4096, 300)),
      gemm(rec("gemm", "best", 20, "4096x4096x4096", f4096, b4096, 2.75)),  // 50 TFLOP/s
      gemm(rec("gemm", "cublasSgemm", 0, "4096x4096x4096", f4096, b4096, 2.5)),
      gemm(rec("gemm", "cublas_tf32_reference", 99, "4096x4096x4096", f4096, b4096, 0.5)),
      gemm(rec("gemm_bf16", "best", 8, "4096x4096x4096", f4096, b4096 / 2, 0.1832),
           NumberType::bf16),  // 750 TFLOP/s
      rec("elementwise", "best", 9, "axpy:268435456", 2.0 * 268435456, 12.0 * 268435456, 1.1),
  };
  return in;
}

TEST(Roofline, PeaksArePerTypeFastestVerifiedAndTf32NeverSetsOne) {
  const auto r = memhier::report::roofline(input());
  EXPECT_DOUBLE_EQ(r.hbm_gbps, 3000.0);
  EXPECT_DOUBLE_EQ(r.l2_gbps, 10000.0);
  EXPECT_NEAR(r.fp32_peak_gflops, 2.0 * 4096 * 4096 * 4096 / 2.5e6, 1e-6);  // cuBLAS, not TF32
  EXPECT_EQ(r.fp32_peak_from, "gemm cublasSgemm at 4096x4096x4096");
  EXPECT_NEAR(r.bf16_peak_gflops / 1000.0, 750.2, 0.1);
  EXPECT_NEAR(r.ridge_bf16(), r.bf16_peak_gflops / 3000.0, 1e-9);
}

TEST(Roofline, EachGemmAtItsLargestShapeAndEachOtherLadderItsBest) {
  const auto r = memhier::report::roofline(input());
  ASSERT_EQ(r.points.size(), 5u);  // naive, best, cuBLAS, bf16 best, axpy best; no TF32
  EXPECT_EQ(r.points[0].variant, "naive");
  EXPECT_EQ(r.points[0].shape, "4096x4096x4096");
  EXPECT_EQ(r.points[2].group, "vendor library");
  EXPECT_EQ(r.points[3].group, "bf16 GEMM");
  const auto& axpy = r.points[4];
  EXPECT_EQ(axpy.group, "other ladder's best");
  EXPECT_NEAR(axpy.intensity, 2.0 / 12.0, 1e-12);
  EXPECT_NEAR(axpy.roof_gflops, 3000.0 * 2.0 / 12.0, 1e-9);        // HBM-bound
  EXPECT_NEAR(r.points[1].roof_gflops, r.fp32_peak_gflops, 1e-9);  // compute-bound
}

TEST(Roofline, TheSectionHasTheChartTheRoofsAndEveryPoint) {
  const auto s = memhier::report::roofline_section(memhier::report::roofline(input()));
  ASSERT_EQ(s.charts.size(), 1u);
  EXPECT_TRUE(s.charts[0].log_x && s.charts[0].log_y);
  ASSERT_EQ(s.tables.size(), 2u);
  EXPECT_EQ(s.tables[1].rows.size(), 5u);
}

TEST(Roofline, WithoutHbmOrFlopsNothingIsDrawnAndTheRidgeIsNotMeasurable) {
  SummaryInput in = input();
  in.tiers.clear();
  const auto r = memhier::report::roofline(in);
  EXPECT_TRUE(memhier::report::roofline_section(r).charts.empty());
  const auto checks = memhier::claims::roofline_checks(r);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].verdict, memhier::claims::Verdict::not_measurable) << checks[0].detail;
}

TEST(Roofline, TheRidgeClaimIsJudgedFromTheMeasuredRidge) {
  const auto checks = memhier::claims::roofline_checks(memhier::report::roofline(input()));
  ASSERT_EQ(checks.size(), 1u);
  // 750 TFLOP/s over 3000 GB/s = 250 FLOP/byte: far from 590 (+-25 %).
  EXPECT_EQ(checks[0].verdict, memhier::claims::Verdict::refuted) << checks[0].detail;
  SummaryInput in = input();
  in.tiers[0].bandwidth_gbps = 1300.0;  // 577 FLOP/byte: within the band
  const auto again = memhier::claims::roofline_checks(memhier::report::roofline(in));
  EXPECT_EQ(again[0].verdict, memhier::claims::Verdict::reproduced) << again[0].detail;
}

}  // namespace

// A compute-bound ladder that is not a matrix product (attention) is drawn, in its own group,
// but never sets the measured peak, however fast it runs.
TEST(Roofline, OnlyMatrixProductsSetThePeak) {
  SummaryInput in = input();
  const double f = 4.0 * 2 * 16 * 2048 * 2048 * 128;
  BenchRecord att =
      rec("attention", "best", 5, "2x16x16x2048x2048x128", f, 4.0 * 2 * 16 * 2048 * 128 * 2, 0.05);
  att.bound = Bound::compute;
  att.number_type = NumberType::bf16;
  in.records.push_back(att);
  const auto r = memhier::report::roofline(in);
  EXPECT_NEAR(r.bf16_peak_gflops / 1000.0, 750.2, 0.1);
  EXPECT_EQ(r.bf16_peak_from, "gemm_bf16 best at 4096x4096x4096");
  bool drawn = false;
  for (const auto& p : r.points)
    if (p.family == "attention") {
      drawn = true;
      EXPECT_EQ(p.group, "other compute-bound");
    }
  EXPECT_TRUE(drawn);
}
