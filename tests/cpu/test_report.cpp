// Report writers: golden files for every format, plus the rules each format must keep
// (display precision, CSV quoting, JSON schema and nulls, well-formed SVG, self-contained HTML).
//
// Golden files live in MEMHIER_GOLDEN_DIR (tests/golden). After an intended change to a
// writer, regenerate them with MEMHIER_UPDATE_GOLDEN=1 and review the diff before committing:
//   MEMHIER_UPDATE_GOLDEN=1 ./memhier_cpu_tests --gtest_filter='ReportGolden.*'
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "memhier/report/document.hpp"
#include "memhier/report/writers.hpp"

#ifndef MEMHIER_GOLDEN_DIR
#error "MEMHIER_GOLDEN_DIR must name the folder of the golden files"
#endif

namespace memhier::report {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Table tier_table() {
  Table t;
  t.id = "tiers";
  t.title = "Latency per tier";
  t.caption = "Median of 101 pointer-chasing runs; cycles at the SM clock.";
  t.columns = {{"tier", "", ""},
               {"size", "B", ""},
               {"latency", "cycles", ""},
               {"bandwidth", "GB/s", "bw"},
               {"remark", "", ""}};
  t.rows = {
      {Value::str("L1"), Value::integer(262144), Value::num(33.5, 1), Value::num(19876.54321, 2),
       Value::str("fits, \"hot\"")},
      {Value::str("L2"), Value::integer(52428800), Value::num(262.8417, 1), Value::num(5512.125, 2),
       Value::str("partitioned | far half slower")},
      {Value::str("HBM"), Value::integer(85899345920), Value::num(478.0, 1), Value::num(kNaN, 2),
       Value::str("<&> escaped")},
      {Value::str("shared"), Value::integer(233472), Value::num(23.04, 1), Value::num(kInf, 2),
       Value::none()},
  };
  t.notes = {"n/a: not measured on this card.",
             "Sizes are per SM for L1 and shared | per GPU otherwise."};
  return t;
}

Chart latency_chart() {
  Chart c;
  c.id = "latency_curve";
  c.title = "Load latency vs working set";
  c.kind = Chart::Kind::line;
  c.x_label = "working set";
  c.x_unit = "B";
  c.y_label = "latency";
  c.y_unit = "cycles";
  c.log_x = true;
  c.log_y = true;
  Series ca{"ld.global.ca (L1 cached)", {}, {}};
  Series cg{"ld.global.cg (L2 only)", {}, {}};
  const double ca_y[] = {33, 33, 34, 36, 262, 265, 270, 290, 480, 610, 640};
  const double cg_y[] = {262, 262, 263, 264, 266, 268, 275, 300, 470, 600, 650};
  for (int i = 0; i < 11; ++i) {
    const double bytes = std::ldexp(1.0, 12 + 2 * i);  // 4 KiB .. 4 GiB, a factor 4 apart
    ca.x.push_back(bytes);
    ca.y.push_back(ca_y[i]);
    cg.x.push_back(bytes);
    cg.y.push_back(cg_y[i]);
  }
  cg.y[5] = kNaN;  // a failed point: skipped, and the line breaks there
  c.series = {ca, cg};
  return c;
}

Chart bandwidth_chart() {
  Chart c;
  c.id = "bandwidth_bars";
  c.title = "HBM bandwidth by access kind";
  c.kind = Chart::Kind::bar;
  c.x_label = "access";
  c.y_label = "bandwidth";
  c.y_unit = "GB/s";
  c.categories = {"copy", "read", "write"};
  c.series = {{"measured", {}, {2905.4, 3012.9, 2780.0}},
              {"datasheet <peak>", {}, {3350, 3350, 3350}}};
  return c;
}

Document sample_document() {
  Document d;
  d.title = "memhier report: H100 memory hierarchy";
  d.meta.version = "0.1.0";
  d.meta.command = "memhier probe --all --report out/";
  d.meta.date_utc = "2025-01-02T03:04:05Z";
  d.meta.host = "gpu-node-1";
  d.meta.toolkit = "CUDA 13.0";
  d.meta.driver = "580.65.06";
  d.meta.device = "NVIDIA H100 80GB HBM3 (cc 9.0)";
  d.meta.git_commit = "0123abcd";

  Section latency;
  latency.id = "latency";
  latency.title = "Latency by tier";
  latency.paragraphs = {
      "Each figure is the median time of one dependent load, measured by pointer chasing with a "
      "stride of one cache line so that every load misses the tier above.",
      "Text with markup characters stays text: <b>not bold</b> & *not emphasised* | no cell."};
  latency.tables = {tier_table()};
  latency.charts = {latency_chart()};

  Section bandwidth;
  bandwidth.id = "bandwidth";
  bandwidth.title = "Bandwidth";
  bandwidth.paragraphs = {"Streaming kernels over 4 GiB, against the datasheet figure."};
  bandwidth.charts = {bandwidth_chart()};

  d.sections = {latency, bandwidth};
  return d;
}

// ---------------------------------------------------------------------------------------------
// Golden files

bool update_golden() {
  const char* env = std::getenv("MEMHIER_UPDATE_GOLDEN");
  return env != nullptr && std::string(env) == "1";
}

std::string golden_path(const std::string& name) {
  return std::string(MEMHIER_GOLDEN_DIR) + "/" + name;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> lines;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Compares with the golden file, or rewrites it when MEMHIER_UPDATE_GOLDEN=1.
void check_golden(const std::string& name, const std::string& actual) {
  const std::string path = golden_path(name);
  if (update_golden()) {
    std::ofstream out(path, std::ios::binary);
    out << actual;
    ASSERT_TRUE(out.good()) << "could not write " << path;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << "missing golden file " << path
                         << "; create it with MEMHIER_UPDATE_GOLDEN=1 and review it";
  std::ostringstream buf;
  buf << in.rdbuf();
  const std::string expected = buf.str();
  if (expected == actual) return;
  // Point at the first differing line rather than dumping two whole files.
  const auto want = split_lines(expected);
  const auto got = split_lines(actual);
  std::size_t i = 0;
  while (i < want.size() && i < got.size() && want[i] == got[i]) ++i;
  ADD_FAILURE() << name << " differs from " << path << " at line " << i + 1
                << ":\n  golden: " << (i < want.size() ? want[i] : "<end of file>")
                << "\n  actual: " << (i < got.size() ? got[i] : "<end of file>")
                << "\nIf the change is intended, rerun with MEMHIER_UPDATE_GOLDEN=1 to rewrite the "
                   "golden files, then review the diff.";
}

TEST(ReportGolden, Terminal) {
  check_golden("report.txt", to_terminal(sample_document()));
}
TEST(ReportGolden, Csv) {
  check_golden("report.csv", to_csv(tier_table()));
}
TEST(ReportGolden, Markdown) {
  check_golden("report.md", to_markdown(sample_document()));
}
TEST(ReportGolden, Json) {
  check_golden("report.json", to_json(sample_document()).dump(2) + "\n");
}
TEST(ReportGolden, Svg) {
  check_golden("report.svg", to_svg(latency_chart()));
}
TEST(ReportGolden, Html) {
  check_golden("report.html", to_html(sample_document()));
}

TEST(ReportGolden, OutputIsDeterministic) {
  const Document d = sample_document();
  EXPECT_EQ(to_html(d), to_html(d));
  EXPECT_EQ(to_json(d).dump(), to_json(d).dump());
  EXPECT_EQ(to_terminal(d), to_terminal(d));
}

// ---------------------------------------------------------------------------------------------
// Value::display

TEST(ReportValue, Display) {
  EXPECT_EQ(Value::none().display(), "");
  EXPECT_EQ(Value::str("L2 | far").display(), "L2 | far");
  EXPECT_EQ(Value::integer(16384).display(), "16384");
  EXPECT_EQ(Value::integer(-7).display(), "-7");
  EXPECT_EQ(Value::integer(85899345920).display(), "85899345920");  // no exponent
  EXPECT_EQ(Value::num(1e20).display(), "100000000000000000000");
  EXPECT_EQ(Value::num(12.5, 2).display(), "12.50");
  EXPECT_EQ(Value::num(2.0 / 3.0, 3).display(), "0.667");
  EXPECT_EQ(Value::num(1234.5678, 1).display(), "1234.6");
  EXPECT_EQ(Value::num(-1.25, 1).display(),
            "-1.2");  // round half to even on the exact binary value
  EXPECT_EQ(Value::num(-0.001, 2).display(), "0.00");  // no "-0.00"
  EXPECT_EQ(Value::num(-0.0).display(), "0");
  EXPECT_EQ(Value::num(kNaN, 2).display(), "n/a");
  EXPECT_EQ(Value::num(kInf).display(), "n/a");
  EXPECT_EQ(Value::num(-kInf, 1).display(), "n/a");
  EXPECT_EQ(Value::num(3.0, -4).display(), "3");  // a negative precision reads as 0
}

// ---------------------------------------------------------------------------------------------
// CSV

TEST(ReportCsv, QuotesPerRfc4180AndKeepsFullPrecision) {
  Table t;
  t.columns = {{"name", "", ""}, {"time, median", "ms", ""}, {"count", "", ""}};
  t.rows = {{Value::str("plain"), Value::num(0.1, 1), Value::integer(8589934592)},
            {Value::str("a,b"), Value::num(1.0 / 3.0, 2), Value::num(1e300)},
            {Value::str("say \"hi\""), Value::num(kNaN, 2), Value::none()},
            {Value::str("two\nlines"), Value::num(-2.5e-7, 3), Value::integer(0)},
            {Value::str("short row")}};
  EXPECT_EQ(to_csv(t),
            "name,\"time, median (ms)\",count\n"
            "plain,0.1,8589934592\n"
            "\"a,b\",0.3333333333333333,1e+300\n"
            "\"say \"\"hi\"\"\",,\n"
            "\"two\nlines\",-2.5e-07,0\n"
            "short row,,\n");
}

TEST(ReportCsv, NumbersRoundTrip) {
  const double values[] = {0.1, 1.0 / 3.0, 6.02214076e23, 5e-324, 123456.789, -9007199254740993.0};
  for (double v : values) {
    Table t;
    t.columns = {{"v", "", ""}};
    t.rows = {{Value::num(v, 2)}};
    const std::string csv = to_csv(t);
    const std::string field = csv.substr(2, csv.size() - 3);  // after "v\n", before "\n"
    EXPECT_EQ(std::strtod(field.c_str(), nullptr), v) << field;
  }
}

// ---------------------------------------------------------------------------------------------
// JSON

TEST(ReportJson, SchemaKeysAndNullForNonFinite) {
  const nlohmann::json j = to_json(sample_document());
  EXPECT_EQ(j.at("schema"), "memhier.report");
  EXPECT_EQ(j.at("schema_version"), 1);
  EXPECT_EQ(j.at("title"), "memhier report: H100 memory hierarchy");
  for (const char* key : {"tool", "version", "command", "date_utc", "host", "toolkit", "driver",
                          "device", "git_commit"}) {
    EXPECT_TRUE(j.at("meta").contains(key)) << key;
  }
  ASSERT_EQ(j.at("sections").size(), 2u);
  const auto& sec = j.at("sections")[0];
  for (const char* key : {"id", "title", "paragraphs", "tables", "charts"}) {
    EXPECT_TRUE(sec.contains(key)) << key;
  }
  const auto& table = sec.at("tables")[0];
  for (const char* key : {"id", "title", "caption", "columns", "rows", "notes"}) {
    EXPECT_TRUE(table.contains(key)) << key;
  }
  std::vector<std::string> keys;
  for (const auto& col : table.at("columns")) keys.push_back(col.at("key"));
  EXPECT_EQ(keys, (std::vector<std::string>{"tier", "size", "latency", "bw", "remark"}));
  EXPECT_EQ(table.at("columns")[1].at("unit"), "B");

  const auto& rows = table.at("rows");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_TRUE(rows[0].at("size").is_number_integer());  // counts stay integers
  EXPECT_EQ(rows[2].at("size"), 85899345920LL);
  EXPECT_DOUBLE_EQ(rows[0].at("bw").get<double>(), 19876.54321);  // full precision, not "19876.54"
  EXPECT_TRUE(rows[2].at("bw").is_null());                        // NaN
  EXPECT_TRUE(rows[3].at("bw").is_null());                        // infinity
  EXPECT_TRUE(rows[3].at("remark").is_null());                    // empty cell
  EXPECT_EQ(rows[1].at("remark"), "partitioned | far half slower");

  const auto& chart = sec.at("charts")[0];
  for (const char* key : {"id", "title", "kind", "x_label", "x_unit", "y_label", "y_unit", "log_x",
                          "log_y", "categories", "series"}) {
    EXPECT_TRUE(chart.contains(key)) << key;
  }
  EXPECT_EQ(chart.at("kind"), "line");
  EXPECT_TRUE(chart.at("series")[1].at("y")[5].is_null());  // NaN in a series
  EXPECT_EQ(j.at("sections")[1].at("charts")[0].at("kind"), "bar");
  // dump() must not throw: every string is valid UTF-8 and no NaN reaches the text.
  EXPECT_EQ(j.dump().find("NaN"), std::string::npos);
}

TEST(ReportJson, ColumnKeysAreSlugsAndUnique) {
  Table t;
  t.columns = {
      {"L2 hit rate (%)", "%", ""}, {"L2 hit-rate", "", ""}, {"%", "", ""}, {"x", "", "given Key"}};
  t.rows = {{Value::num(97.5, 1), Value::num(1, 0), Value::none(), Value::str("v")}};
  const nlohmann::json j = to_json(t);
  std::vector<std::string> keys;
  for (const auto& col : j.at("columns")) keys.push_back(col.at("key"));
  EXPECT_EQ(keys, (std::vector<std::string>{"l2_hit_rate", "l2_hit_rate_2", "col_3", "given Key"}));
  EXPECT_EQ(j.at("rows")[0].at("given Key"), "v");
}

TEST(ReportJson, InvalidUtf8DoesNotThrow) {
  Meta m;
  m.device = std::string("GPU \xff\xfe name");
  EXPECT_NO_THROW((void)to_json(m).dump());
}

// ---------------------------------------------------------------------------------------------
// SVG

// A minimal XML check: tags nest and close, one root, every '&' starts a known entity.
::testing::AssertionResult well_formed(const std::string& s) {
  std::vector<std::string> stack;
  int roots = 0;
  std::size_t i = 0;
  while ((i = s.find_first_of("<&", i)) != std::string::npos) {
    if (s[i] == '&') {
      bool known = false;
      for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"}) {
        known = known || s.compare(i, std::char_traits<char>::length(e), e) == 0;
      }
      if (!known) return ::testing::AssertionFailure() << "bare '&' at " << i;
      ++i;
      continue;
    }
    const std::size_t j = s.find('>', i);
    if (j == std::string::npos) return ::testing::AssertionFailure() << "unclosed '<' at " << i;
    std::string tag = s.substr(i + 1, j - i - 1);
    if (tag.empty()) return ::testing::AssertionFailure() << "empty tag at " << i;
    if (tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (stack.empty() || stack.back() != name) {
        return ::testing::AssertionFailure()
               << "</" << name << "> closes <" << (stack.empty() ? "" : stack.back()) << ">";
      }
      stack.pop_back();
    } else {
      if (stack.empty()) ++roots;
      if (tag.back() != '/') stack.push_back(tag.substr(0, tag.find_first_of(" \n/")));
    }
    i = j + 1;
  }
  if (!stack.empty())
    return ::testing::AssertionFailure() << "<" << stack.back() << "> never closed";
  if (roots != 1) return ::testing::AssertionFailure() << roots << " root elements";
  return ::testing::AssertionSuccess();
}

std::size_t count(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t i = haystack.find(needle); i != std::string::npos;
       i = haystack.find(needle, i + 1))
    ++n;
  return n;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return s;
}

void expect_clean_svg(const std::string& svg, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("viewBox=\"0 0 720 420\""), std::string::npos);
  EXPECT_NE(svg.find("xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_TRUE(well_formed(svg));
  const std::string l = lower(svg);
  EXPECT_EQ(l.find("nan"), std::string::npos);
  EXPECT_EQ(l.find("inf"), std::string::npos);
}

TEST(ReportSvg, SampleChartsAreWellFormed) {
  const std::string line = to_svg(latency_chart());
  expect_clean_svg(line, "line");
  EXPECT_EQ(count(line, "class=\"marker\""), 21u);  // 22 points, one NaN skipped
  EXPECT_EQ(count(line, "<polyline"), 3u);          // the NaN splits one series in two
  EXPECT_NE(line.find(">1k<"), std::string::npos);  // decade labels on the log x axis
  EXPECT_NE(line.find(">1G<"), std::string::npos);
  EXPECT_NE(line.find("working set (B)"), std::string::npos);
  EXPECT_NE(line.find("latency (cycles)"), std::string::npos);
  const std::string bar = to_svg(bandwidth_chart());
  expect_clean_svg(bar, "bar");
  EXPECT_EQ(count(bar, "class=\"bar\""), 6u);
  EXPECT_NE(bar.find("datasheet &lt;peak&gt;"), std::string::npos);  // escaped legend text
  EXPECT_EQ(bar.find("<peak>"), std::string::npos);
}

TEST(ReportSvg, LogAxesSkipNonPositiveValues) {
  Chart c;
  c.title = "log";
  c.log_x = true;
  c.log_y = true;
  c.series = {{"s", {1, 2, 3, 4, 5, -6, 0}, {0, -1, 10, 100, kNaN, 5, 5}}};
  const std::string svg = to_svg(c);
  expect_clean_svg(svg, "log line");
  EXPECT_EQ(count(svg, "class=\"marker\""), 2u);

  Chart bars;
  bars.kind = Chart::Kind::bar;
  bars.log_y = true;
  bars.categories = {"a", "b", "c"};
  bars.series = {{"s", {}, {0, 5, -3}}};
  const std::string bsvg = to_svg(bars);
  expect_clean_svg(bsvg, "log bar");
  EXPECT_EQ(count(bsvg, "class=\"bar\""), 1u);
}

// Nine ladders' notes under a 1000-pixel chart: a line too wide for its group breaks at its
// spaces, and a word still too wide is squeezed to the group (neighbours never overlap).
TEST(ReportSvg, CategoryNotesStayWithinTheirGroup) {
  Chart c;
  c.kind = Chart::Kind::bar;
  for (int i = 0; i < 9; ++i) {
    c.categories.push_back("family" + std::to_string(i));
    c.category_notes.push_back("largest 4096x32768\nlowest u8-degenerate:268435456");
  }
  c.series = {{"s", {}, std::vector<double>(9, 1.0)}};
  const std::string svg = to_svg(c);
  expect_clean_svg(svg, "notes");
  EXPECT_EQ(count(svg, ">largest<"), 9u);  // "largest" and its shape on lines of their own
  EXPECT_EQ(count(svg, ">4096x32768<"), 9u);
  EXPECT_EQ(count(svg, "lengthAdjust=\"spacingAndGlyphs\""), 9u);  // the 20-character word
}

TEST(ReportSvg, DegenerateDataDrawsWithoutDividingByZero) {
  std::vector<std::pair<std::string, Chart>> cases;
  Chart none;  // no series at all
  cases.emplace_back("no series", none);
  Chart empty;
  empty.series = {{"empty", {}, {}}};
  cases.emplace_back("empty series", empty);
  Chart single;
  single.series = {{"one", {3}, {7}}};
  cases.emplace_back("single point", single);
  Chart single_log = single;
  single_log.log_x = single_log.log_y = true;
  single_log.series[0] = {"one", {1000}, {100}};
  cases.emplace_back("single point, log", single_log);
  Chart equal;
  equal.series = {{"flat", {1, 2, 3}, {5, 5, 5}}};
  cases.emplace_back("all equal", equal);
  Chart zeros;
  zeros.series = {{"zeros", {0, 0}, {0, 0}}};
  cases.emplace_back("all zero", zeros);
  Chart nans;
  nans.series = {{"bad values", {kNaN, 1}, {kNaN, kInf}}};
  cases.emplace_back("only non-finite", nans);
  Chart mismatched;
  mismatched.series = {{"short x", {1, 2}, {1, 2, 3, 4}}, {"no x", {}, {4, 3, 2}}};
  cases.emplace_back("mismatched lengths", mismatched);
  Chart bar_empty;
  bar_empty.kind = Chart::Kind::bar;
  cases.emplace_back("bar, nothing", bar_empty);
  Chart bar_equal;
  bar_equal.kind = Chart::Kind::bar;
  bar_equal.categories = {"a", "a very long category name that cannot fit under its bar", "c"};
  bar_equal.series = {{"x", {}, {0, 0, 0}}, {"y", {}, {kNaN}}};
  cases.emplace_back("bar, zeros and NaN", bar_equal);
  Chart bar_negative;
  bar_negative.kind = Chart::Kind::bar;
  bar_negative.series = {{"delta", {}, {-3, 2, -1e6}}};
  cases.emplace_back("bar, negative", bar_negative);
  Chart escaped;
  escaped.title = "<&> \"quoted\" 'single'";
  escaped.x_label = "a<b";
  escaped.y_unit = "&";
  escaped.series = {{"s<1>", {1, 2}, {1, 2}}};
  cases.emplace_back("escaping", escaped);
  for (const auto& [what, chart] : cases) expect_clean_svg(to_svg(chart), what);
  EXPECT_NE(to_svg(none).find(">no data<"), std::string::npos);
  EXPECT_EQ(to_svg(escaped).find("<&>"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Terminal and Markdown

TEST(ReportTerminal, TableLinesAlign) {
  const std::string text = to_terminal(tier_table());
  std::size_t width = 0;
  for (const std::string& line : split_lines(text)) {
    if (line.empty() || (line[0] != '|' && line[0] != '+')) continue;
    if (width == 0) width = line.size();
    EXPECT_EQ(line.size(), width) << line;
  }
  EXPECT_GT(width, 0u);
  EXPECT_NE(text.find("latency (cycles)"), std::string::npos);
  EXPECT_NE(text.find("n/a"), std::string::npos);
}

TEST(ReportMarkdown, EscapesCellsAndLinksCharts) {
  const std::string md = to_markdown(sample_document());
  EXPECT_NE(md.find("partitioned \\| far half slower"), std::string::npos);
  EXPECT_NE(md.find("\\<\\&\\> escaped"), std::string::npos);
  EXPECT_NE(md.find("](index.html#latency_curve)"), std::string::npos);
  EXPECT_EQ(md.find("<svg"), std::string::npos);
  EXPECT_NE(md.find("| ---: |"), std::string::npos);  // numbers right-aligned
}

// ---------------------------------------------------------------------------------------------
// HTML

TEST(ReportHtml, SelfContainedAndEscaped) {
  const std::string html = to_html(sample_document());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(count(html, "<html"), 1u);
  EXPECT_EQ(count(html, "</html>"), 1u);
  EXPECT_EQ(count(html, "<svg"), 2u);  // both charts inline
  EXPECT_EQ(count(html, "<style>"), 1u);
  const std::string l = lower(html);
  for (const char* banned : {"http://", "https://", "<script", "<link", "<img", "<iframe",
                             " src=", "url(", "@import", "@font-face"}) {
    EXPECT_EQ(l.find(banned), std::string::npos) << banned;
  }
  EXPECT_EQ(html.find("<&>"), std::string::npos);
  EXPECT_EQ(html.find("<b>not bold</b>"), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;not bold&lt;/b&gt;"), std::string::npos);
  EXPECT_NE(html.find("id=\"latency_curve\""), std::string::npos);
  EXPECT_NE(html.find("href=\"#tiers\""), std::string::npos);
  EXPECT_EQ(lower(html).find("nan"), std::string::npos);
}

}  // namespace
}  // namespace memhier::report
