// The sweep of shapes as the report shows it (bench/sweep_section.hpp) and judges it
// (claims/sweep_claims.hpp), from made-up records: each family's geometric mean and lowest
// shape, one chart with a series per family and the parity rule, the tables folded.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "memhier/bench/sweep_section.hpp"
#include "memhier/claims/sweep_claims.hpp"
#include "memhier/report/writers.hpp"
#include "memhier/results/claim_id.hpp"

namespace memhier::bench {
namespace {

results::BenchRecord row(const std::string& family, const std::string& variant,
                         const std::string& shape, double x, bool verified = true) {
  results::BenchRecord r;
  r.family = family;
  r.variant = variant;
  r.shape = shape;
  r.rung = variant == "best" ? 13 : 0;
  r.ms = 1.0;
  r.x_vendor = x;
  r.verified = verified;
  return r;
}

// Two families over three shapes each, the second with one shape of its own; gemm_bf16's
// 16x8192x8192 ran but did not verify.
std::vector<SweepPart> two_families() {
  SweepPart fp32{"gemm", "SGEMM", 3, {}, std::nullopt};
  fp32.records = {
      row("gemm", "cublasSgemm", "1024x1024x1024", 1.0), row("gemm", "best", "1024x1024x1024", 0.5),
      row("gemm", "best", "8192x2816x8192", 2.0), row("gemm", "best", "16x8192x8192", 1.0)};
  SweepPart bf16{"gemm_bf16", "bf16 GEMM", 3, {}, std::nullopt};
  bf16.records = {row("gemm_bf16", "cublasGemmEx", "1024x1024x1024", 1.0),
                  row("gemm_bf16", "best", "1024x1024x1024", 0.9),
                  row("gemm_bf16", "best", "16x8192x8192", 0.1, false),
                  row("gemm_bf16", "best", "3001x7001x2999", 1.2)};
  return {fp32, bf16};
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(Sweep, OneChartWithASeriesPerFamilyOverEveryShape) {
  const report::Section s = sweep_section(two_families());
  EXPECT_EQ(s.id, "sweep");
  ASSERT_EQ(s.charts.size(), 1u);
  const report::Chart& c = s.charts[0];
  EXPECT_EQ(c.kind, report::Chart::Kind::bar);
  EXPECT_EQ(c.y_rule, 1.0);
  EXPECT_EQ(c.categories, (std::vector<std::string>{"1024\xC2\xB3", "8192x2816x8192",
                                                    "16x8192x8192", "3001x7001x2999"}));
  ASSERT_EQ(c.series.size(), 2u);
  EXPECT_EQ(c.series[0].name, "gemm (x cublasSgemm)");
  EXPECT_EQ(c.series[1].name, "gemm_bf16 (x cublasGemmEx)");
  EXPECT_EQ(c.series[0].y[0], 0.5);
  EXPECT_EQ(c.series[0].y[1], 2.0);
  EXPECT_TRUE(std::isnan(c.series[0].y[3]));  // a shape gemm did not run
  EXPECT_EQ(c.series[1].y[0], 0.9);
  EXPECT_TRUE(std::isnan(c.series[1].y[1]));
  EXPECT_TRUE(std::isnan(c.series[1].y[2]));  // ran, but not verified: no bar
  EXPECT_EQ(c.series[1].y[3], 1.2);
}

TEST(Sweep, TheTextGivesEachFamilysGeometricMeanAndLowestShape) {
  const report::Section s = sweep_section(two_families());
  ASSERT_EQ(s.paragraphs.size(), 2u);
  EXPECT_TRUE(has(s.paragraphs[0],
                  "its family's vendor library (gemm: cublasSgemm, gemm_bf16: cublasGemmEx)"))
      << s.paragraphs[0];
  // gemm: exp((ln 0.5 + ln 2 + ln 1) / 3) = 1; gemm_bf16 over its two verified shapes.
  EXPECT_TRUE(has(s.paragraphs[1],
                  "gemm: over the 3 shapes measured here: geometric mean 1.000 x cublasSgemm; "
                  "the lowest 0.500 at 1024x1024x1024."))
      << s.paragraphs[1];
  EXPECT_TRUE(has(s.paragraphs[1], report::strf("gemm_bf16: over the 2 shapes measured here: "
                                                "geometric mean %.3f x cublasGemmEx; the lowest "
                                                "0.900 at 1024x1024x1024.",
                                                std::sqrt(0.9 * 1.2))))
      << s.paragraphs[1];
}

TEST(Sweep, EachFamilysTableIsFoldedUnderTheChart) {
  report::Document d;
  d.sections.push_back(sweep_section(two_families()));
  const report::Section& s = d.sections[0];
  ASSERT_EQ(s.tables.size(), 2u);
  EXPECT_EQ(s.tables[0].id, "sweep-gemm");
  EXPECT_EQ(s.tables[1].id, "sweep-gemm_bf16");
  EXPECT_EQ(s.tables[0].rows.size(), 3u);  // best's rows: the vendor's line is the ratio's
  const std::string md = report::to_markdown(d);
  EXPECT_TRUE(has(md, "<details><summary>Table: SGEMM: best over a sweep of shapes (3 rows)"))
      << md;
  EXPECT_TRUE(has(md, "<details><summary>Table: bf16 GEMM: best over a sweep of shapes (3 rows)"));
  const std::string html = report::to_html(d);
  EXPECT_TRUE(has(html, "<details class=\"table\"><summary>Table: SGEMM: best over a sweep"));
  EXPECT_TRUE(has(html, "class=\"rule\""));  // the parity line is drawn
  const std::string full = report::to_markdown(d, report::Edition{true});
  EXPECT_FALSE(has(full, "<details><summary>Table: SGEMM"));
}

TEST(Sweep, AFamilyThatFailedSaysWhyAndDrawsNoSeries) {
  std::vector<SweepPart> parts = two_families();
  report::Section failed;
  failed.paragraphs = {"Not measured: out of GPU memory."};
  parts[1].records.clear();
  parts[1].failed = failed;
  const report::Section s = sweep_section(parts);
  ASSERT_EQ(s.charts.size(), 1u);
  EXPECT_EQ(s.charts[0].series.size(), 1u);
  EXPECT_EQ(s.tables.size(), 1u);
  EXPECT_TRUE(has(s.paragraphs[1], "gemm_bf16: Not measured: out of GPU memory."))
      << s.paragraphs[1];
  // The goal is over every family's sweep: not judged on the one that ran.
  const std::vector<results::Check> checks = claims::sweep_checks(sweep_summaries(parts));
  EXPECT_EQ(checks.at(0).verdict, results::Verdict::not_measurable);
  EXPECT_TRUE(has(checks[0].detail, "gemm_bf16 ran 0 of its 3 shapes")) << checks[0].detail;
}

TEST(Sweep, OneFamilyKeepsTheBenchSweepsIds) {
  const report::Section s = sweep_section({two_families()[0]});
  EXPECT_EQ(s.id, "sweep-gemm");
  EXPECT_EQ(s.charts.at(0).id, "sweep-gemm-chart");
  EXPECT_EQ(s.charts[0].series.at(0).name, "x vendor");
  EXPECT_TRUE(has(s.paragraphs.back(), "Over the 3 shapes measured here: geometric mean 1.000"))
      << s.paragraphs.back();
}

// The parity rule is in reach of the axis even when every bar is below it, and reads back
// from the JSON a recorded report is rendered from.
TEST(Sweep, TheRuleAtOneShowsBelowItAndReadsBack) {
  report::Chart c;
  c.kind = report::Chart::Kind::bar;
  c.categories = {"a", "b"};
  c.series = {{"x", {}, {0.5, 0.6}}};
  EXPECT_FALSE(has(report::to_svg(c), "class=\"rule\""));
  c.y_rule = 1.0;
  const std::string svg = report::to_svg(c);
  EXPECT_TRUE(has(svg, "class=\"rule\"")) << svg;
  EXPECT_TRUE(has(svg, ">1<") || has(svg, ">1.0<")) << svg;  // the axis reaches 1
  report::Document d;
  report::Section s;
  s.charts.push_back(c);
  d.sections.push_back(s);
  const report::Document back = report::document_from_json(report::to_json(d));
  EXPECT_EQ(back.sections.at(0).charts.at(0).y_rule, 1.0);
  d.sections[0].charts[0].y_rule = NAN;
  EXPECT_TRUE(std::isnan(
      report::document_from_json(report::to_json(d)).sections.at(0).charts.at(0).y_rule));
}

using results::Verdict;

TEST(SweepGoal, JudgedFromEachFamilysGeometricMean) {
  std::vector<SweepPart> parts = two_families();
  parts[1].records[2].verified = true;  // every row verified
  parts[1].records[2].x_vendor = 1.0;
  std::vector<results::Check> checks = claims::sweep_checks(sweep_summaries(parts));
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].id, results::ClaimId::gemm_best_vs_vendor_sweep);
  EXPECT_EQ(checks[0].verdict, Verdict::reproduced) << checks[0].detail;
  EXPECT_TRUE(has(checks[0].measured,
                  "gemm 1.000x cublasSgemm over 3 shapes (lowest 0.500x at "
                  "1024x1024x1024)"))
      << checks[0].measured;

  // gemm's mean falls under 0.95: refuted, naming it.
  parts[0].records[2].x_vendor = 1.5;
  checks = claims::sweep_checks(sweep_summaries(parts));
  EXPECT_EQ(checks[0].verdict, Verdict::refuted);
  EXPECT_TRUE(has(checks[0].detail, "gemm ")) << checks[0].detail;
}

TEST(SweepGoal, AShapeThatDidNotVerifyCountsAgainstIt) {
  // gemm_bf16's means over its verified shapes clear 0.95, but 16x8192x8192 failed.
  const std::vector<results::Check> checks = claims::sweep_checks(sweep_summaries(two_families()));
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].verdict, Verdict::refuted) << checks[0].detail;
  EXPECT_TRUE(has(checks[0].detail, "gemm_bf16 shapes verified")) << checks[0].detail;
}

TEST(SweepGoal, NotMeasurableOverPartOfTheSweepOrNoShape) {
  std::vector<SweepPart> parts = two_families();
  parts[0].shapes = 14;  // a --quick run's three of fourteen
  std::vector<results::Check> checks = claims::sweep_checks(sweep_summaries(parts));
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].verdict, Verdict::not_measurable);
  EXPECT_TRUE(has(checks[0].detail, "gemm ran 3 of its 14 shapes")) << checks[0].detail;

  SweepPart none{"gemm", "SGEMM", 1, {row("gemm", "best", "64x64x64", NAN)}, std::nullopt};
  none.records[0].declined = "no kernel";
  checks = claims::sweep_checks(sweep_summaries({none}));
  EXPECT_EQ(checks.at(0).verdict, Verdict::not_measurable);
}

}  // namespace
}  // namespace memhier::bench
