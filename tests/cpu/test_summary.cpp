// The report's opening summary: which record counts as each ladder's best and against
// which ceilings, the tally, what a run without a GPU says, the hierarchy picture, the
// columns the writers leave out, and golden files of the whole summary in every format.
//   MEMHIER_UPDATE_GOLDEN=1 ./memhier_cpu_tests --gtest_filter='ReportSummary*'
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "memhier/report/summary.hpp"
#include "memhier/report/writers.hpp"

namespace memhier::report {
namespace {

using results::BenchRecord;

const std::string kEnDash = "\xE2\x80\x93";  // between a paired ratio's percentiles

BenchRecord record(const std::string& family, const std::string& variant, int rung,
                   const std::string& shape, double ms, double frac_memcpy, double x_vendor,
                   double gflops = NAN, double peak_pct = NAN) {
  BenchRecord r;
  r.family = family;
  r.variant = variant;
  r.rung = rung;
  r.shape = shape;
  r.verified = true;
  r.ms = ms;
  r.frac_memcpy = frac_memcpy;
  r.x_vendor = x_vendor;
  r.gflops = gflops;
  r.peak_pct = peak_pct;
  // The family's fact, as its registry::Family states it: GEMMs are bound by arithmetic.
  r.bound = family.rfind("gemm", 0) == 0 ? results::Bound::compute : results::Bound::memory;
  r.sets_peak = r.bound == results::Bound::compute;
  return r;
}

// A ceiling row (cudaMemcpy, read-only, write-only), as run_family makes it.
BenchRecord ceiling(const std::string& family, const std::string& variant, const std::string& shape,
                    double frac_memcpy) {
  BenchRecord r = record(family, variant, 0, shape, 1.0, frac_memcpy, NAN);
  r.ceiling = true;
  return r;
}

// Paired ratios carry the 10th and 90th percentiles of their per-pair ratios.
BenchRecord& spread(BenchRecord& r, double memcpy_p10, double memcpy_p90) {
  r.frac_memcpy_spread = {memcpy_p10, memcpy_p90};
  r.x_vendor_spread = {r.x_vendor - 0.01, r.x_vendor + 0.02};
  return r;
}

// Three ladders as run_family makes them: the ceilings and the vendor first at each shape.
std::vector<BenchRecord> sample_records() {
  std::vector<BenchRecord> v;
  for (const auto& [shape, best_memcpy, best_vendor] :
       {std::tuple{"8192x8192", 0.99, 1.04}, std::tuple{"4096x4096", 0.98, 1.03}}) {
    v.push_back(ceiling("transpose", "cudaMemcpy D2D", shape, 1.0));
    v.push_back(ceiling("transpose", "read-only ceiling", shape, 1.1));
    v.push_back(ceiling("transpose", "write-only ceiling", shape, 1.05));
    v.push_back(record("transpose", "cublasSgeam", 0, shape, 1.05, 0.95, 1.0));
    v.push_back(record("transpose", "naive", 1, shape, 4.0, 0.25, 0.26));
    BenchRecord best = record("transpose", "best", 2, shape, 1.0, best_memcpy, best_vendor);
    best.gbps = std::string(shape) == "8192x8192" ? 3000 : 750;  // 4x the bytes, same time
    v.push_back(spread(best, best_memcpy - 0.02, best_memcpy + 0.01));
  }
  BenchRecord wrong = record("transpose", "best", 2, "1x1", 1.0, 0.01, 0.01);
  wrong.verified = false;  // a failed rung never counts as the best's figure
  v.push_back(wrong);
  BenchRecord declined = record("transpose", "best", 2, "3x3", NAN, NAN, NAN);
  declined.verified = false;
  declined.declined = "not at this shape";  // nor does one that declined the shape
  v.push_back(declined);
  v.push_back(ceiling("gemm", "cudaMemcpy D2D", "4096x4096x4096", 1.0));
  v.push_back(record("gemm", "cublasSgemm", 0, "4096x4096x4096", 37, 0.027, 1.0, 18500, 27.7));
  v.push_back(record("gemm", "naive", 1, "4096x4096x4096", 900, 0.001, 0.04, 760, 1.1));
  BenchRecord gemm = record("gemm", "best", 9, "4096x4096x4096", 40, 0.024, 0.91, 17000, 25.4);
  v.push_back(spread(gemm, 0.023, 0.025));
  // A stencil counts flops too, but its family is bound by memory: the copy is its ceiling.
  v.push_back(ceiling("stencil", "cudaMemcpy D2D", "8192x8192:5", 1.0));
  v.push_back(record("stencil", "smem_tile", 2, "8192x8192:5", 1.13, 0.885, NAN, 16358, 24.4));
  v.push_back(record("stencil", "naive", 1, "8192x8192:5", 2.0, 0.5, NAN, 3400, 5.1));
  // A read-dominated problem is quoted against the read-only ceiling as well.
  v.push_back(ceiling("reduction", "cudaMemcpy D2D", "268435456", 1.0));
  v.push_back(record("reduction", "cub::DeviceReduce::Sum", 0, "268435456", 0.4, 1.2, 1.0));
  BenchRecord red = record("reduction", "best", 9, "268435456", 0.39, 1.21, 1.02);
  red.x_read_only = 0.96;
  red.x_read_only_spread = {0.95, 0.97};
  v.push_back(spread(red, 1.19, 1.23));
  return v;
}

SummaryInput sample_input() {
  SummaryInput in;
  // Each capacity as the probes hand it over: the text for reading, the bytes for drawing.
  in.tiers = {{"HBM", 650, 371.4, 3010, "80 GiB", 80.0 * (1u << 30)},
              {"L2", 262, 149.7, 10800, "50 MiB", 50.0 * (1u << 20)},
              {"local", 640, 365.7, NAN, ""},
              {"shared", 30, 17.1, 29500, "228 KiB/SM", 228.0 * 1024},
              {"L1", 33, 18.9, 19800, "256 KiB/SM", 256.0 * 1024},
              {"constant", 38, 21.7, NAN, "64 KiB", 64.0 * 1024}};
  in.records = sample_records();
  in.claims = {58, 21, 36};
  return in;
}

const Table& table(const Section& s, const char* id) {  // char*: no temporary to dangle
  for (const Table& t : s.tables)
    if (t.id == id) return t;
  throw std::runtime_error(std::string("no table ") + id);
}

TEST(ReportSummary, EachLaddersBestAgainstTheCeilingsThatMeanSomething) {
  const std::vector<LadderBest> b = ladder_bests(sample_records());
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[0].family, "transpose");
  EXPECT_EQ(b[0].variant, "best");
  EXPECT_EQ(b[0].vendor, "cublasSgeam");  // the ceilings' rows are no vendor
  EXPECT_DOUBLE_EQ(b[0].x_vendor, 1.03);  // the lowest over the shapes
  EXPECT_EQ(b[0].vendor_shape, "4096x4096");
  EXPECT_DOUBLE_EQ(b[0].x_memcpy, 0.98);
  // The spread of the shape where the lowest median was measured.
  EXPECT_DOUBLE_EQ(b[0].x_memcpy_spread.p10, 0.96);
  EXPECT_DOUBLE_EQ(b[0].x_memcpy_spread.p90, 0.99);
  EXPECT_DOUBLE_EQ(b[0].x_vendor_spread.p10, 1.02);
  EXPECT_EQ(b[0].shapes, 2);  // the unverified 1x1 and the declined 3x3 are not among them
  EXPECT_TRUE(std::isnan(b[0].x_read_only));
  EXPECT_EQ(b[1].family, "gemm");
  EXPECT_DOUBLE_EQ(b[1].x_vendor, 0.91);
  EXPECT_TRUE(std::isnan(b[1].x_memcpy));  // bound by arithmetic: no copy ceiling
  EXPECT_TRUE(std::isnan(b[1].x_memcpy_spread.p10));
  EXPECT_EQ(b[2].variant, "smem_tile");  // no "best": the highest rung that verified
  EXPECT_EQ(b[2].vendor, "");
  EXPECT_TRUE(std::isnan(b[2].x_vendor));
  EXPECT_DOUBLE_EQ(b[2].x_memcpy, 0.885);
  EXPECT_TRUE(std::isnan(b[2].x_memcpy_spread.p10));  // no spread recorded: none shown
  EXPECT_EQ(b[3].family, "reduction");
  EXPECT_EQ(b[3].vendor, "cub::DeviceReduce::Sum");
  EXPECT_DOUBLE_EQ(b[3].x_read_only, 0.96);
  EXPECT_DOUBLE_EQ(b[3].x_read_only_spread.p90, 0.97);
  EXPECT_EQ(b[3].read_only_shape, "268435456");
}

TEST(ReportSummary, ADeclinedRungIsNeverTheBest) {
  std::vector<BenchRecord> v{ceiling("softmax", "cudaMemcpy D2D", "8x65536", 1.0),
                             record("softmax", "online", 6, "8x65536", 0.0244, 0.24, NAN)};
  BenchRecord declined = record("softmax", "warp_per_row", 7, "8x65536", NAN, NAN, NAN);
  declined.declined = "at most 1024 columns, not 65536";
  v.push_back(declined);
  const std::vector<LadderBest> b = ladder_bests(v);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].variant, "online");
  EXPECT_DOUBLE_EQ(b[0].x_memcpy, 0.24);
}

TEST(ReportSummary, LaunchBoundShapesAreListedApartWithTheCopysOwnTime) {
  // softmax at 8x65536 moves 4 MiB (in and out): the copy of those bytes takes 6 us, where at
  // 4096x32768 (1 GiB) it runs at 4 TB/s. Its 0.82 is no memory-bound figure; 0.97 is.
  BenchRecord small = record("softmax", "best", 9, "8x65536", 0.0073, 0.82, NAN);
  small.gbps = 4.0 * (1 << 20) / 0.0073 / 1e6;
  small.frac_memcpy_spread = {0.77, 0.86};
  BenchRecord large = record("softmax", "best", 9, "4096x32768", 0.2768, 0.97, NAN);
  large.gbps = 1024.0 * (1 << 20) / 0.2768 / 1e6;
  BenchRecord gemm = record("gemm", "best", 9, "64x64x64", 0.004, 0.5, 0.9, 130, 0.2);
  gemm.gbps = 1.0;  // a compute-bound ladder is never launch-bound here: no copy ceiling
  const std::vector<LadderBest> b = ladder_bests({small, large, gemm});
  ASSERT_EQ(b.size(), 2u);
  EXPECT_DOUBLE_EQ(b[0].x_memcpy, 0.97);
  EXPECT_EQ(b[0].memcpy_shape, "4096x32768");
  ASSERT_EQ(b[0].launch_bound.size(), 1u);
  const LaunchBoundShape& l = b[0].launch_bound[0];
  EXPECT_EQ(l.shape, "8x65536");
  EXPECT_NEAR(l.bytes, 4.0 * (1 << 20), 1e-3);
  EXPECT_DOUBLE_EQ(l.x_memcpy, 0.82);
  EXPECT_DOUBLE_EQ(l.x_memcpy_spread.p90, 0.86);
  EXPECT_NEAR(l.copy_ms, 0.0073 * 0.82, 1e-12);
  // The copy's rate at 4 MiB over its rate at 1 GiB: (4 MiB / 5.99 us) / (1 GiB / 268.5 us).
  EXPECT_NEAR(l.copy_share, (4.0 / (0.0073 * 0.82)) / (1024.0 / (0.2768 * 0.97)), 1e-12);
  EXPECT_TRUE(b[1].launch_bound.empty());
  const Table t = [&] {
    SummaryInput in;
    in.records = {small, large};
    return table(summary_section(in), "summary-ladders");
  }();
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows[0].back().text, "8x65536: 0.82 (6.0 us, 18 %)");
}

TEST(ReportSummary, TheCopyCeilingAppliesToFamiliesBoundByMemory) {
  const std::vector<BenchRecord> all = sample_records();
  const auto of = [&all](const std::string& family) {
    std::vector<BenchRecord> out;
    for (const BenchRecord& r : all)
      if (r.family == family) out.push_back(r);
    return out;
  };
  EXPECT_TRUE(copy_ceiling_applies(of("transpose")));  // no flops at all
  EXPECT_TRUE(copy_ceiling_applies(of("stencil")));    // flops, but bound by memory
  EXPECT_FALSE(copy_ceiling_applies(of("gemm")));
  EXPECT_FALSE(copy_ceiling_applies({}));
  // A naive tensor-core rung at a small shape sits nearer the copy's time than the peak's: the
  // family's fact still decides, and GEMM shows no x memcpy.
  const std::vector<BenchRecord> bf16{
      record("gemm_bf16", "wmma_global", 1, "1024x1024x1024", 9.0, 0.9, 0.02, 15000.0, 0.5),
      record("gemm_bf16", "best", 2, "1024x1024x1024", 0.1, 0.08, 0.87, 700000.0, 66)};
  EXPECT_FALSE(copy_ceiling_applies(bf16));
  EXPECT_TRUE(std::isnan(ladder_bests(bf16).at(0).x_memcpy));
  EXPECT_TRUE(std::isnan(ladder_bests(bf16).at(0).headline_x_memcpy));
}

TEST(ReportSummary, EachLadderNamesItsLargestAndItsLowestShape) {
  const std::vector<LadderBest> bests = ladder_bests(sample_records());
  ASSERT_GE(bests.size(), 1u);
  const LadderBest& t = bests[0];
  EXPECT_EQ(t.headline_shape, "8192x8192");  // the most bytes moved
  EXPECT_DOUBLE_EQ(t.headline_x_vendor, 1.04);
  EXPECT_DOUBLE_EQ(t.x_vendor, 1.03);
  EXPECT_EQ(t.vendor_shape, "4096x4096");
  EXPECT_DOUBLE_EQ(t.headline_x_memcpy, 0.99);
  const Section s = summary_section(sample_input());
  const Chart& ladders = s.charts.at(1);
  ASSERT_EQ(ladders.category_notes.size(), ladders.categories.size());
  EXPECT_EQ(ladders.category_notes[0], "largest 8192\xC2\xB2\nlowest 4096\xC2\xB2");
  EXPECT_EQ(ladders.category_notes[1], "largest 4096\xC2\xB3");  // one shape: one line
}

TEST(ReportSummary, TablesCarryTheFiguresAndTheTally) {
  const Section s = summary_section(sample_input());
  EXPECT_EQ(s.id, "summary");
  EXPECT_TRUE(s.charts_first);
  ASSERT_EQ(s.tables.size(), 1u);  // the tiers are the memory-spaces section's, the tally a line
  const Table& ladders = table(s, "summary-ladders");
  ASSERT_EQ(ladders.rows.size(), 4u);
  const auto col = [&ladders](const char* key) {
    return static_cast<std::size_t>(ladders.column(key));
  };
  EXPECT_EQ(ladders.rows[0][col("headline_shape")].text, "8192\xC2\xB2");
  EXPECT_DOUBLE_EQ(ladders.rows[0][col("headline_x_vendor")].number, 1.04);
  EXPECT_EQ(ladders.rows[0][col("vendor_shape")].text, "4096\xC2\xB2");
  EXPECT_EQ(ladders.rows[1][0].text, "gemm");
  EXPECT_EQ(ladders.rows[1][col("x_memcpy")].kind, Value::Kind::empty);  // never for GEMM
  EXPECT_EQ(ladders.rows[1][col("memcpy_shape")].kind, Value::Kind::empty);
  EXPECT_DOUBLE_EQ(ladders.rows[1][col("x_vendor")].number, 0.91);
  EXPECT_DOUBLE_EQ(ladders.rows[1][col("x_vendor")].p10, 0.90);
  EXPECT_EQ(ladders.rows[0][col("x_memcpy")].display(),
            "0.98 (0.96" + kEnDash + "0.99)");  // paired, with its spread
  EXPECT_EQ(ladders.rows[3][col("x_read_only")].display(), "0.96 (0.95" + kEnDash + "0.97)");
  EXPECT_EQ(ladders.rows[2][col("x_memcpy")].display(), "0.89");  // no spread: the median alone
  EXPECT_NE(s.paragraphs[0].find("58 reproduced, 21 refuted, 36 not measurable here, of 115"),
            std::string::npos);
  ASSERT_EQ(s.charts.size(), 2u);
  EXPECT_EQ(s.charts[0].kind, Chart::Kind::stack);
  EXPECT_EQ(s.charts[0].categories,
            (std::vector<std::string>{"shared", "L1", "L2", "HBM", "constant", "local"}));
  EXPECT_EQ(s.charts[0].stack_path, 4u);  // the path data travels; constant and local beside it
  EXPECT_EQ(s.charts[0].category_notes[2],
            "262 cycles (149.7 ns)  \xC2\xB7  10.8 TB/s  \xC2\xB7  50 MiB");
  EXPECT_EQ(s.charts[1].categories,
            (std::vector<std::string>{"transpose", "gemm", "stencil", "reduction"}));
  ASSERT_EQ(s.charts[1].series.size(), 4u);             // a read-only series: the reduction has one
  EXPECT_TRUE(std::isnan(s.charts[1].series[2].y[1]));  // no GEMM bar against memcpy
  EXPECT_DOUBLE_EQ(s.charts[1].series[3].y[3], 0.96);
}

TEST(ReportSummary, AStageThatDidNotRunIsOneLine) {
  SummaryInput in = sample_input();
  in.not_run = {"PyTorch's line did not run: python3 cannot import the Python package 'memhier'."};
  const Section s = summary_section(in);
  EXPECT_EQ(std::count(s.paragraphs.begin(), s.paragraphs.end(), in.not_run[0]), 1);
}

// On a card the run knows, the tally says how many claims speak of it and how many of another.
TEST(ReportSummary, TheTallySaysHowManyClaimsSpeakOfThisCard) {
  SummaryInput in = sample_input();
  in.claims = {60, 40, 6, 10, 1, 124, 98, 26};
  const Section s = summary_section(in);
  EXPECT_NE(s.paragraphs[0].find("10 about another card, 1 from device properties, of 117 "
                                 "checks; 98 of the 124 claims speak of this card"),
            std::string::npos)
      << s.paragraphs[0];
  // Without a card to judge on, nothing is said of the claims' cards.
  in.claims = {60, 40, 6};
  EXPECT_EQ(summary_section(in).paragraphs[0].find("speak of"), std::string::npos);
}

TEST(ReportSummary, WithoutMeasurementsItSaysWhatIsMissingAndWhy) {
  SummaryInput in;
  in.claims = {0, 0, 115};
  in.not_measured = "no GPU: no CUDA driver";
  const Section s = summary_section(in);
  ASSERT_EQ(s.paragraphs.size(), 2u);
  EXPECT_EQ(s.paragraphs[1],
            "Not measured in this run: the tiers' latency and bandwidth, and the ladders. Why: "
            "no GPU: no CUDA driver.");
  ASSERT_EQ(s.charts.size(), 1u);  // the hierarchy's shape, every band "not measured"
  EXPECT_EQ(s.charts[0].categories, (std::vector<std::string>{"registers", "shared", "L1", "L2",
                                                              "HBM", "constant", "local"}));
  EXPECT_EQ(s.charts[0].stack_path, 5u);
  for (const std::string& note : s.charts[0].category_notes) EXPECT_EQ(note, "not measured");
  EXPECT_TRUE(s.tables.empty());
}

TEST(ReportSummary, WritersLeaveOutColumnsEmptyInEveryRow) {
  Table t;
  t.id = "t";
  t.columns = {{"variant", "", ""}, {"x vendor", "", ""}, {"x memcpy", "", ""}};
  t.rows = {{Value::str("naive"), Value::none(), Value::num(0.5, 2)},
            {Value::str("best"), Value::none(), Value::num(NAN, 2)}};
  EXPECT_EQ(to_terminal(t).find("x vendor"), std::string::npos);
  EXPECT_NE(to_terminal(t).find("x memcpy"), std::string::npos);
  EXPECT_NE(to_terminal(t).find("n/a"), std::string::npos);  // a failed number still shows
  Document d;
  d.sections.push_back({"s", "S", {}, {t}, {}, false, {}});
  EXPECT_EQ(to_markdown(d).find("x vendor"), std::string::npos);
  EXPECT_EQ(to_html(d).find("x vendor"), std::string::npos);
  // The data formats keep every key, so a reader of the JSON or CSV finds a fixed schema.
  EXPECT_NE(to_json(t).dump().find("x_vendor"), std::string::npos);
  EXPECT_NE(to_csv(t).find("x vendor"), std::string::npos);
  EXPECT_NE(to_html(d).find("<div class=\"table-wrap\">"), std::string::npos);
}

TEST(ReportSummary, APairedRatioReadsWithItsSpreadAndTheDataKeepTheNumbers) {
  Table t;
  t.id = "t";
  t.columns = {{"variant", "", ""}, {"x memcpy", "", "x_memcpy"}, {"x prev", "", ""}};
  t.rows = {
      {Value::str("best"), Value::median_or_none(0.853, 0.8312, 0.8689, 2), Value::num(1.5, 2)},
      {Value::str("declined"), Value::median_or_none(NAN, 0.1, 0.2, 2), Value::none()},
      {Value::str("unpaired"), Value::median_or_none(0.5, NAN, NAN, 2), Value::none()}};
  EXPECT_EQ(t.rows[0][1].display(), "0.85 (0.83" + kEnDash + "0.87)");
  EXPECT_EQ(t.rows[1][1].kind, Value::Kind::empty);  // no median: nothing, spread or not
  EXPECT_EQ(t.rows[2][1].display(), "0.50");
  EXPECT_NE(to_terminal(t).find("0.85 (0.83" + kEnDash + "0.87)"), std::string::npos);
  const nlohmann::json j = to_json(t);
  EXPECT_DOUBLE_EQ(j["rows"][0]["x_memcpy"].get<double>(), 0.853);
  EXPECT_DOUBLE_EQ(j["rows"][0]["x_memcpy_p10"].get<double>(), 0.8312);
  EXPECT_DOUBLE_EQ(j["rows"][0]["x_memcpy_p90"].get<double>(), 0.8689);
  EXPECT_TRUE(j["rows"][2]["x_memcpy_p10"].is_null());
  EXPECT_FALSE(j["rows"][0].contains("x_prev_p10"));  // only columns with a spread split
  ASSERT_EQ(j["columns"].size(), 5u);
  EXPECT_EQ(j["columns"][2]["key"], "x_memcpy_p10");
  const std::string csv = to_csv(t);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "variant,x memcpy,x memcpy p10,x memcpy p90,x prev");
  EXPECT_NE(csv.find("best,0.853,0.8312,0.8689,1.5"), std::string::npos) << csv;
}

TEST(ReportSummary, HierarchyPictureIsOneBandPerTier) {
  const Section s = summary_section(sample_input());
  const std::string svg = to_svg(s.charts[0]);
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  std::size_t bands = 0;
  for (std::size_t i = svg.find("class=\"band\""); i != std::string::npos;
       i = svg.find("class=\"band\"", i + 1))
    ++bands;
  EXPECT_EQ(bands, 6u);
  EXPECT_NE(svg.find("10.8 TB/s"), std::string::npos);
  EXPECT_LT(svg.find(">shared<"), svg.find(">local<"));  // nearest the SM on top
  EXPECT_LT(svg.find(">HBM<"), svg.find(">constant<"));  // the path first, then beside it
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  // Sized by capacity: constant (64 KiB) draws narrower than L1 (256 KiB), HBM widest.
  const std::vector<double>& size = s.charts[0].category_sizes;
  ASSERT_EQ(size.size(), 6u);
  EXPECT_DOUBLE_EQ(size[1], 256.0 * 1024);       // L1
  EXPECT_DOUBLE_EQ(size[4], 64.0 * 1024);        // constant
  EXPECT_DOUBLE_EQ(size[3], 80.0 * (1u << 30));  // HBM
  EXPECT_TRUE(std::isnan(size[5]));              // local: no capacity of its own
  const auto band_width = [&svg](const std::string& tier) {
    const std::size_t label = svg.find(">" + tier + "<");
    const std::size_t w = svg.rfind("width=\"", label) + 7;
    return std::stod(svg.substr(w, svg.find('"', w) - w));
  };
  EXPECT_LT(band_width("constant"), band_width("L1"));
  EXPECT_LT(band_width("L1"), band_width("L2"));
  EXPECT_LT(band_width("L2"), band_width("HBM"));
}

// ---- Golden files of the summary in every format.

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void check_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(MEMHIER_GOLDEN_DIR) + "/" + name;
  const char* env = std::getenv("MEMHIER_UPDATE_GOLDEN");
  if (env && std::string(env) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  const std::string want = read(path);
  if (want == actual) return;
  std::size_t at = 0;  // report the first line that differs, not the whole file
  while (at < want.size() && at < actual.size() && want[at] == actual[at]) ++at;
  const auto line = std::count(want.begin(), want.begin() + static_cast<std::ptrdiff_t>(at), '\n');
  ADD_FAILURE() << path << " differs at line " << line + 1 << "; after an intended change "
                << "rerun with MEMHIER_UPDATE_GOLDEN=1 and review the diff.";
}

Document summary_document() {
  Document d;
  d.title = "memhier report: summary";
  d.meta.version = "0.1.0";
  d.meta.device = "NVIDIA H100 80GB HBM3 (cc 9.0)";
  d.sections.push_back(summary_section(sample_input()));
  return d;
}

TEST(ReportSummaryGolden, EveryFormat) {
  const Document d = summary_document();
  check_golden("summary.txt", to_terminal(d));
  check_golden("summary.md", to_markdown(d));
  check_golden("summary.html", to_html(d));
  check_golden("summary.json", to_json(d).dump(2) + "\n");
  check_golden("summary-hierarchy.svg", to_svg(d.sections[0].charts[0]));
  check_golden("summary-ladders.svg", to_svg(d.sections[0].charts[1]));
}

}  // namespace
}  // namespace memhier::report
