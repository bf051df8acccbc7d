// The report as a person reads it: what every edition leaves out (a repeated paragraph, an
// empty chart slot), what the default folds and --full opens, a recorded run read back from
// its JSON, titles that fit their drawing and numbers rounded for reading.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "memhier/report/writers.hpp"

namespace memhier::report {
namespace {

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t i = s.find(what); i != std::string::npos; i = s.find(what, i + 1)) ++n;
  return n;
}

Table long_table(const std::string& id, std::size_t rows) {
  Table t;
  t.id = id;
  t.title = "Table " + id;
  t.columns = {{"variant", "", ""}, {"x memcpy", "", "x_memcpy"}, {"time", "ms", "ms"}};
  for (std::size_t r = 0; r < rows; ++r) {
    Value ratio = Value::median_or_none(0.9 + 0.001 * static_cast<double>(r), 0.85, 0.95, 2);
    t.rows.push_back({Value::str("v" + std::to_string(r)), ratio,
                      Value::num(1.0 / static_cast<double>(r + 3), 3)});
  }
  return t;
}

// Two ladder sections sharing a method paragraph and a reason a stage did not run, each with
// a chart holding an empty slot (a category and a series with nothing measured).
Document ladders() {
  Document d;
  d.title = "memhier report";
  d.meta.version = "0.1.0";
  for (const char* name : {"transpose", "reduction"}) {
    Section s;
    s.id = std::string("bench-") + name;
    s.title = name;
    s.paragraphs = {std::string("The ") + name + " ladder.", "The shared method, said once.",
                    "PyTorch's line did not run: no torch."};
    s.tables = {long_table(s.id + "-t", 15)};  // long: more than 6 rows
    Chart c;
    c.id = s.id + "-c";
    c.title = name;
    c.kind = Chart::Kind::bar;
    c.categories = {"cudaMemcpy D2D", "PyTorch", "naive"};
    c.series = {{"8192", {}, {3900.0, NAN, 500.0}}, {"4096", {}, {NAN, NAN, NAN}}};
    s.charts = {c};
    d.sections.push_back(s);
  }
  Section small;
  small.id = "latency";
  small.title = "Latency";
  small.tables = {long_table("latency-t", 3)};
  d.sections.push_back(small);
  return d;
}

TEST(ReportReading, AParagraphIsSaidOnceAndEmptySlotsAreNotDrawn) {
  const Document r = for_reading(ladders());
  ASSERT_EQ(r.sections.size(), 3u);
  EXPECT_EQ(r.sections[0].paragraphs.size(), 3u);
  EXPECT_EQ(r.sections[1].paragraphs.size(), 1u);  // its own story only
  const Chart& c = r.sections[1].charts[0];
  EXPECT_EQ(c.categories, (std::vector<std::string>{"cudaMemcpy D2D", "naive"}));
  ASSERT_EQ(c.series.size(), 1u);
  EXPECT_EQ(c.series[0].y, (std::vector<double>{3900.0, 500.0}));
}

TEST(ReportReading, TheDefaultFoldsLongTablesAndFullOpensEveryOne) {
  const Document d = ladders();
  const std::string def = to_html(d);
  const std::string full = to_html(d, Edition{true});
  EXPECT_EQ(count(def, "<table>"), 3u);                    // the default still holds every table
  EXPECT_EQ(count(def, "<details class=\"table\">"), 2u);  // beside a chart, or long
  EXPECT_EQ(count(full, "<table>"), 3u);
  EXPECT_EQ(count(full, "<details class=\"table\">"), 0u);
  EXPECT_NE(def.find("2 tables are folded"), std::string::npos);  // says what it folds
  EXPECT_EQ(full.find("tables are folded"), std::string::npos);
  EXPECT_EQ(count(def, "The shared method, said once."), 1u);

  const std::string md = to_markdown(d);
  EXPECT_EQ(count(md, "<details><summary>Table: "), 2u);
  EXPECT_EQ(count(to_markdown(d, Edition{true}), "<details>"), 0u);

  // The terminal draws no chart: it leaves out only the long tables, and names them.
  const std::string term = to_terminal(d);
  EXPECT_EQ(count(term, "v14 "), 0u);
  EXPECT_NE(term.find("Table bench-transpose-t (15 rows)"), std::string::npos);
  EXPECT_EQ(count(term, "| v2 "), 1u);  // the short table stays
  EXPECT_EQ(count(to_terminal(d, Edition{true}), "| v14 "), 2u);
}

TEST(ReportReading, ADocumentReadsBackFromItsJson) {
  Document d = ladders();
  d.sections[0].charts_first = true;
  d.sections[0].charts.push_back({});
  Chart& stack = d.sections[0].charts.back();
  stack.kind = Chart::Kind::stack;
  stack.categories = {"registers", "HBM", "local"};
  stack.category_notes = {"", "4.6 TB/s", "34 cycles"};
  stack.category_sizes = {262144.0, 1.5e11, NAN};
  stack.stack_path = 2;
  const nlohmann::json j = to_json(d);
  const Document back = document_from_json(j);
  EXPECT_EQ(to_json(back), j);  // every figure, spread and chart field survives
  EXPECT_TRUE(back.sections[0].charts_first);
  const Value& ratio = back.sections[0].tables[0].rows[1][1];
  EXPECT_TRUE(ratio.has_spread());
  EXPECT_EQ(ratio.display(),
            "0.901 (0.850\xE2\x80\x93"
            "0.950)");                                       // three digits for reading
  EXPECT_EQ(back.sections[0].tables[0].columns.size(), 3u);  // p10, p90: the cell's again
  EXPECT_THROW(document_from_json(nlohmann::json::parse(R"({"sections": []})")),
               std::invalid_argument);
  EXPECT_THROW(document_from_json(nlohmann::json::array()), std::invalid_argument);
}

// The driver's release rides beside the CUDA version it supports where the machine states it
// (a record then names its driver without nvidia-smi), and is left out where it does not.
TEST(ReportReading, TheDriversReleaseIsKeptWhereKnown) {
  Document d = ladders();
  d.meta.driver = "13.0";
  EXPECT_FALSE(to_json(d)["meta"].contains("driver_release"));
  d.meta.driver_release = "580.159.04";
  const nlohmann::json j = to_json(d);
  EXPECT_EQ(j["meta"]["driver_release"], "580.159.04");
  EXPECT_EQ(document_from_json(j).meta.driver_release, "580.159.04");
  EXPECT_NE(to_markdown(d).find("580.159.04 (CUDA 13.0)"), std::string::npos);
}

// The SVG's own title text: its font size and, when squeezed, its text length.
double title_px(const std::string& svg, double* text_length) {
  const std::regex title(
      R"re(<text x="360" y="26"[^>]*font-size="([0-9.]+)"(?:[^>]*?textLength="([0-9.]+)")?[^>]*>)re");
  std::smatch m;
  if (!std::regex_search(svg, m, title)) throw std::runtime_error("no title in the SVG");
  *text_length = m[2].matched ? std::stod(m[2].str()) : NAN;
  return std::stod(m[1].str());
}

TEST(ReportReading, ATitleFitsItsDrawing) {
  Chart c;
  c.kind = Chart::Kind::bar;
  c.categories = {"a"};
  c.series = {{"s", {}, {1.0}}};
  double length = 0;
  c.title = "Short";
  EXPECT_EQ(title_px(to_svg(c), &length), 16.0);
  EXPECT_TRUE(std::isnan(length));
  c.title = std::string(80, 'm');  // too wide at 16 px: set smaller
  const double size = title_px(to_svg(c), &length);
  EXPECT_LT(size, 16.0);
  EXPECT_LE(80 * size * 0.62, 720.0 - 24 + 0.5);
  c.title = std::string(200, 'm');  // too wide even at 11 px: squeezed to the drawing
  EXPECT_EQ(title_px(to_svg(c), &length), 11.0);
  EXPECT_LE(length, 720.0 - 24);
}

TEST(ReportReading, TooltipsAreRoundedForReading) {
  Chart c;
  c.kind = Chart::Kind::line;
  c.y_unit = "GB/s";
  c.series = {{"s", {1.0, 2.0}, {3089.93669799835, 0.0833224675610882}}};
  const std::string svg = to_svg(c);
  EXPECT_NE(svg.find("3090 GB/s</title>"), std::string::npos) << svg;
  EXPECT_NE(svg.find("0.0833 GB/s</title>"), std::string::npos);
  EXPECT_EQ(svg.find("3089.93"), std::string::npos);
}

}  // namespace
}  // namespace memhier::report
