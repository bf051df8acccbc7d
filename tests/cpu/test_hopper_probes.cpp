// The Hopper probes' host logic from made-up measurements: the L2 map's near/far rule and
// sides, the dsmem and l2-partitions sections (tables, charts, verdicts, a card that declines)
// and the heat map as SVG and JSON. No GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "memhier/claims/catalogue.hpp"
#include "memhier/probe/dsmem.hpp"
#include "memhier/probe/l2_partitions.hpp"
#include "memhier/report/writers.hpp"

namespace memhier::probe {
namespace {

const report::Table* table(const report::Section& s, const std::string& id) {
  for (const report::Table& t : s.tables)
    if (t.id == id) return &t;
  return nullptr;
}

const report::Chart* chart(const report::Section& s, const std::string& id) {
  for (const report::Chart& c : s.charts)
    if (c.id == id) return &c;
  return nullptr;
}

// The check the section holds of `id` by the checker `owner` (nullptr when it has none).
const claims::Check* check_of(const report::Section& s, const std::string& owner,
                              const std::string& id) {
  for (const claims::Check& c : s.checks)
    if (c.by.owner() == owner && claims::name(c.id) == id) return &c;
  return nullptr;
}

// The verdict's text that check gives ("" when the section has none).
std::string verdict(const report::Section& s, const std::string& owner, const std::string& id) {
  const claims::Check* c = check_of(s, owner, id);
  return c ? c->detail : "";
}

// The verdict itself (not measurable when the section has no such check).
claims::Verdict verdict_kind(const report::Section& s, const std::string& owner,
                             const std::string& id) {
  const claims::Check* c = check_of(s, owner, id);
  return c ? c->verdict : claims::Verdict::not_measurable;
}

bool starts(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

// ---- The L2 map: rows SMs, columns pages. Half the SMs sit by one half of the L2; a page's
// home is one half or the other; a cell is near when they match.
struct MadeUpMap {
  int rows = 16, cols = 64;
  std::vector<int> side, home;
  std::vector<double> cycles;
};

MadeUpMap two_halves(double near, double far, double noise, unsigned seed) {
  MadeUpMap m;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> jitter(-noise, noise);
  for (int r = 0; r < m.rows; ++r) m.side.push_back(r % 2);  // interleaved, as smids may be
  for (int c = 0; c < m.cols; ++c) m.home.push_back(static_cast<int>(rng() % 2));
  for (int r = 0; r < m.rows; ++r)
    for (int c = 0; c < m.cols; ++c)
      m.cycles.push_back((m.side[r] == m.home[c] ? near : far) + jitter(rng));
  return m;
}

TEST(L2PartitionsClassify, TwoHalvesSplitCleanly) {
  const MadeUpMap m = two_halves(265, 475, 12, 7);
  const L2Split s = classify_l2_partitions(m.cycles, m.rows, m.cols);
  ASSERT_TRUE(s.split) << s.why_not;
  EXPECT_GT(s.threshold, 277);
  EXPECT_LT(s.threshold, 463);
  EXPECT_NEAR(s.near_cycles, 265, 12);
  EXPECT_NEAR(s.far_cycles, 475, 12);
  EXPECT_DOUBLE_EQ(s.far_fraction, 0.5);  // every page is far from exactly half the SMs
  EXPECT_EQ(s.side_a_sms, 8);
  EXPECT_EQ(s.side_b_sms, 8);
  EXPECT_DOUBLE_EQ(s.consistency, 1.0);
  EXPECT_DOUBLE_EQ(s.between_fraction, 0.0);
  for (int r = 0; r < m.rows; ++r) EXPECT_EQ(s.side[static_cast<std::size_t>(r)], m.side[r]) << r;
  for (int r = 0; r < m.rows; ++r)
    for (int c = 0; c < m.cols; ++c)
      EXPECT_EQ(s.far[static_cast<std::size_t>(r * m.cols + c)], m.side[r] != m.home[c] ? 1 : 0)
          << r << "," << c;
}

TEST(L2PartitionsClassify, UnmeasuredCellsStayOut) {
  MadeUpMap m = two_halves(265, 475, 5, 8);
  for (std::size_t i = 0; i < m.cycles.size(); i += 7) m.cycles[i] = NAN;
  const L2Split s = classify_l2_partitions(m.cycles, m.rows, m.cols);
  ASSERT_TRUE(s.split) << s.why_not;
  std::size_t measured = 0, far = 0;
  for (std::size_t i = 0; i < m.cycles.size(); ++i) {
    EXPECT_EQ(s.far[i] < 0, std::isnan(m.cycles[i])) << i;
    measured += s.far[i] >= 0;
    far += s.far[i] == 1;
  }
  EXPECT_DOUBLE_EQ(s.far_fraction, static_cast<double>(far) / static_cast<double>(measured));
  EXPECT_DOUBLE_EQ(s.consistency, 1.0);
}

TEST(L2PartitionsClassify, OneFlippedCellLowersConsistency) {
  MadeUpMap m = two_halves(265, 475, 5, 9);
  m.cycles[3] = m.cycles[3] < 370 ? 475 : 265;  // row 0, page 3 reads the other way
  const L2Split s = classify_l2_partitions(m.cycles, m.rows, m.cols);
  ASSERT_TRUE(s.split);
  EXPECT_NEAR(s.consistency, 1.0 - 1.0 / (m.rows * m.cols), 1e-12);
}

TEST(L2PartitionsClassify, OneClusterIsNotSplit) {
  const MadeUpMap m = two_halves(300, 300, 15, 10);
  const L2Split s = classify_l2_partitions(m.cycles, m.rows, m.cols);
  EXPECT_FALSE(s.split);
  EXPECT_NE(s.why_not.find("1.15x"), std::string::npos) << s.why_not;
  EXPECT_NEAR(s.near_cycles, 300, 15);
  EXPECT_TRUE(std::isnan(s.far_cycles));
  EXPECT_DOUBLE_EQ(s.far_fraction, 0.0);
  for (signed char f : s.far) EXPECT_EQ(f, 0);
}

TEST(L2PartitionsClassify, EvenSpreadHasNoGap) {
  // Latency by SM alone, spread evenly from 220 to 340 cycles (no two clusters).
  std::vector<double> cycles;
  const int rows = 40, cols = 32;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) cycles.push_back(220.0 + 3.0 * r + 0.01 * c);
  const L2Split s = classify_l2_partitions(cycles, rows, cols);
  EXPECT_FALSE(s.split);
  EXPECT_GT(s.between_fraction, 0.2);
}

TEST(L2PartitionsClassify, AFewOutliersAreNotACluster) {
  MadeUpMap m = two_halves(265, 265, 5, 11);
  m.cycles[0] = 900;  // one slow cell: under 5 % on its side
  const L2Split s = classify_l2_partitions(m.cycles, m.rows, m.cols);
  EXPECT_FALSE(s.split);
  EXPECT_NE(s.why_not.find("5 %"), std::string::npos) << s.why_not;
}

TEST(L2PartitionsClassify, TooFewCells) {
  const L2Split s = classify_l2_partitions({265, 475, NAN}, 1, 3);
  EXPECT_FALSE(s.split);
  EXPECT_EQ(s.far, (std::vector<signed char>{0, 0, -1}));
}

L2PartitionsResult made_up_result(double near, double far) {
  const MadeUpMap map = two_halves(near, far, 10, 12);
  L2PartitionsResult m;
  m.cc_major = 9;
  m.sm_clock_mhz = 1755;
  for (int r = 0; r < map.rows; ++r) m.smids.push_back(2 * r);
  m.pages = map.cols;
  m.lines_per_cell = 3;
  m.rounds = 2;
  m.cycles = map.cycles;
  m.reread_cycles.assign(map.cycles.size(), near);
  m.split = classify_l2_partitions(m.cycles, map.rows, map.cols);
  m.l2_bytes = 50u << 20;
  m.near_gbps = 9000;
  m.spread_gbps = 7000;
  m.bytes_per_launch = 64.0 * (1 << 20);
  return m;
}

TEST(L2PartitionsPresent, SectionHasTheMapAndJudgesTheClaims) {
  const L2PartitionsResult m = made_up_result(265, 475);
  const Result r = present_l2_partitions(m);
  ASSERT_NE(table(r.section, "l2-partitions-summary"), nullptr);
  ASSERT_NE(table(r.section, "l2-partitions-bandwidth"), nullptr);
  EXPECT_EQ(table(r.section, "l2-partitions-bandwidth")->rows.size(), 2u);
  const report::Chart* map = chart(r.section, "l2-partitions-map");
  ASSERT_NE(map, nullptr);
  EXPECT_EQ(map->kind, report::Chart::Kind::heatmap);
  ASSERT_EQ(map->series.size(), m.smids.size());
  // Rows grouped by side (even rows of the made-up map first), each side in smid order.
  EXPECT_EQ(map->series[0].name, "SM 0");
  EXPECT_EQ(map->series[1].name, "SM 4");
  EXPECT_EQ(map->series[8].name, "SM 2");
  for (const report::Series& s : map->series)
    EXPECT_EQ(s.y.size(), static_cast<std::size_t>(m.pages));
  const report::Chart* hist = chart(r.section, "l2-partitions-histogram");
  ASSERT_NE(hist, nullptr);
  double cells = 0;
  for (double y : hist->series.at(0).y) cells += y;
  EXPECT_DOUBLE_EQ(cells, static_cast<double>(m.cycles.size()));
  // 475 / 265 = 1.79x against the published 1.8x; 265 and 475 cycles inside their ranges' bands.
  EXPECT_TRUE(
      starts(verdict(r.section, "l2-partitions", "l2-far-half-1-8x-near-published"), "reproduced"));
  EXPECT_TRUE(starts(verdict(r.section, "l2-partitions", "latency-l2-265-530-cycles-published"),
                     "reproduced"));
}

TEST(L2PartitionsPresent, OneClusterRefutesTheHalves) {
  const Result r = present_l2_partitions(made_up_result(300, 300));
  const std::string v = verdict(r.section, "l2-partitions", "l2-far-half-1-8x-near-published");
  EXPECT_TRUE(starts(v, "refuted")) << v;
  EXPECT_EQ(verdict_kind(r.section, "l2-partitions", "l2-far-half-1-8x-near-published"),
            claims::Verdict::refuted);
  EXPECT_TRUE(starts(verdict(r.section, "l2-partitions", "latency-l2-265-530-cycles-published"),
                     "refuted"));
}

TEST(L2PartitionsPresent, AnOlderCardDeclines) {
  L2PartitionsResult m;
  m.declined = "The L2 partition map is made for Hopper; this card is 8.0.";
  const Result r = present_l2_partitions(m);
  ASSERT_EQ(r.section.paragraphs.size(), 1u);
  EXPECT_EQ(r.section.paragraphs[0], m.declined);
  EXPECT_TRUE(r.section.charts.empty());
  const std::string v = verdict(r.section, "l2-partitions", "l2-far-half-1-8x-near-published");
  EXPECT_EQ(verdict_kind(r.section, "l2-partitions", "l2-far-half-1-8x-near-published"),
            claims::Verdict::not_measurable)
      << v;
  EXPECT_NE(v.find("8.0"), std::string::npos) << v;
}

// ---- dsmem

DsmemResult made_up_dsmem() {
  DsmemResult m;
  m.cc_major = 9;
  m.sm_count = 132;
  m.sm_clock_mhz = 1755;
  m.local_cycles = 30;
  m.local_gbps = 28000;
  m.local_blocks = 132;
  m.steps = 1024;
  m.reps = 3;
  m.ring_bytes = 16384;
  m.buffer_bytes = 65536;
  m.smem_per_block = 115 * 1024;
  m.threads = 1024;
  for (int n : {2, 4, 8, 16}) {
    DsmemClusterSize z;
    z.size = n;
    if (n == 16) {
      z.skipped = "no cluster of 16 fits";
      m.sizes.push_back(z);
      continue;
    }
    z.active_clusters = 132 / n;
    z.blocks = z.active_clusters * n;
    for (int r = 0; r < n; ++r) {
      z.cycles.push_back(r == 0 ? 50 : 210 + r);
      z.reads_correct.push_back(true);
    }
    z.one_to_one_gbps = 3000.0 / n;
    z.all_to_all_gbps = 3200.0 / n;
    m.sizes.push_back(z);
  }
  return m;
}

TEST(DsmemPresent, TablesChartsAndClaims) {
  const DsmemResult m = made_up_dsmem();
  // Remote ranks only: 211 (size 2), 211..213 (4), 211..217 (8); 11 values, median 213.
  EXPECT_DOUBLE_EQ(dsmem_remote_median(m), 213);
  const Result r = present_dsmem(m);
  ASSERT_NE(table(r.section, "dsmem-by-size"), nullptr);
  EXPECT_EQ(table(r.section, "dsmem-by-size")->rows.size(), 4u);
  ASSERT_NE(table(r.section, "dsmem-latency"), nullptr);
  EXPECT_EQ(table(r.section, "dsmem-latency")->rows.size(), 2u + 4u + 8u);
  ASSERT_NE(table(r.section, "dsmem-bandwidth"), nullptr);
  EXPECT_EQ(table(r.section, "dsmem-bandwidth")->rows.size(), 1u + 3u * 2u);
  ASSERT_NE(chart(r.section, "dsmem-latency-chart"), nullptr);
  EXPECT_EQ(chart(r.section, "dsmem-latency-chart")->series.size(), 3u);
  ASSERT_NE(chart(r.section, "dsmem-bandwidth-chart"), nullptr);
  EXPECT_EQ(chart(r.section, "dsmem-bandwidth-chart")->categories,
            (std::vector<std::string>{"2", "4", "8"}));
  EXPECT_TRUE(
      starts(verdict(r.section, "dsmem", "dsmem-cluster-shares-shared-memory"), "reproduced"));
  EXPECT_TRUE(starts(verdict(r.section, "dsmem", "dsmem-latency-remote-215-237-cycles-published"),
                     "reproduced"));
  EXPECT_TRUE(
      starts(verdict(r.section, "dsmem", "dsmem-latency-own-49-cycles-published"), "reproduced"));
  // Cluster size 16 did not run: the all-to-all claim says so instead of judging one figure.
  const std::string v = verdict(r.section, "dsmem", "dsmem-all-to-all-3200-400-gbps-published");
  EXPECT_EQ(verdict_kind(r.section, "dsmem", "dsmem-all-to-all-3200-400-gbps-published"),
            claims::Verdict::not_measurable)
      << v;
  EXPECT_NE(v.find("16"), std::string::npos) << v;
}

TEST(DsmemPresent, AWrongReadRefutesTheClusterClaim) {
  DsmemResult m = made_up_dsmem();
  m.sizes[1].reads_correct[2] = false;
  const Result r = present_dsmem(m);
  EXPECT_EQ(verdict_kind(r.section, "dsmem", "dsmem-cluster-shares-shared-memory"),
            claims::Verdict::refuted)
      << verdict(r.section, "dsmem", "dsmem-cluster-shares-shared-memory");
}

TEST(DsmemPresent, AllToAllJudgedWithBothSizes) {
  DsmemResult m = made_up_dsmem();
  m.sizes[3].skipped.clear();
  m.sizes[3].all_to_all_gbps = 450;
  m.sizes[0].all_to_all_gbps = 3000;
  const Result r = present_dsmem(m);
  EXPECT_TRUE(starts(verdict(r.section, "dsmem", "dsmem-all-to-all-3200-400-gbps-published"),
                     "reproduced"));
  m.sizes[0].all_to_all_gbps = 20000;  // more than twice 3.2 TB/s
  EXPECT_EQ(
      verdict_kind(present_dsmem(m).section, "dsmem", "dsmem-all-to-all-3200-400-gbps-published"),
      claims::Verdict::refuted);
}

TEST(DsmemPresent, AnOlderCardDeclines) {
  DsmemResult m;
  m.declined = "Distributed shared memory needs thread-block clusters; this card is 8.0.";
  const Result r = present_dsmem(m);
  EXPECT_EQ(r.section.paragraphs, std::vector<std::string>{m.declined});
  ASSERT_NE(table(r.section, "dsmem-claims"), nullptr);
  for (const char* id :
       {"dsmem-cluster-shares-shared-memory", "dsmem-latency-remote-215-237-cycles-published",
        "dsmem-latency-own-49-cycles-published", "dsmem-all-to-all-3200-400-gbps-published"}) {
    const std::string v = verdict(r.section, "dsmem", id);
    EXPECT_EQ(verdict_kind(r.section, "dsmem", id), claims::Verdict::not_measurable)
        << id << ": " << v;
    EXPECT_NE(v.find("8.0"), std::string::npos) << id << ": " << v;
  }
}

// ---- The heat map as the report draws and records it.

// The catalogue names these probes as the checkers of exactly the claims their sections check
// (the probes' presenters run here without a GPU; add_checks rejects the other direction).
TEST(HopperProbeClaims, EachProbeChecksWhatTheCatalogueSays) {
  const std::pair<const char*, Result> probes[] = {
      {"l2-partitions", present_l2_partitions(made_up_result(265, 475))},
      {"dsmem", present_dsmem(made_up_dsmem())}};
  for (const auto& [name, r] : probes) {
    std::set<claims::ClaimId> checked, catalogued;
    for (const claims::Check& c : r.section.checks) checked.insert(c.id);
    for (const claims::Claim& c : claims::catalogue())
      for (const claims::Checker& ch : c.checked_by)
        if (ch == claims::Checker::probe(name)) catalogued.insert(c.id);
    EXPECT_EQ(checked, catalogued) << name;
  }
}

TEST(ReportHeatmap, SvgMergesRunsAndJsonNamesTheKind) {
  const Result r = present_l2_partitions(made_up_result(265, 475));
  const report::Chart* map = chart(r.section, "l2-partitions-map");
  ASSERT_NE(map, nullptr);
  const std::string svg = report::to_svg(*map);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_NE(svg.find("SM 0"), std::string::npos);
  std::size_t rects = 0;
  for (std::size_t at = svg.find("<rect"); at != std::string::npos; at = svg.find("<rect", at + 1))
    ++rects;
  const std::size_t cells = map->series.size() * map->series[0].y.size();
  EXPECT_GT(rects, map->series.size());  // at least one run per row, plus background and scale
  EXPECT_LT(rects, cells);               // runs of one colour share a rectangle
  report::Document doc;
  doc.sections.push_back(r.section);
  const auto j = report::to_json(doc);
  bool found = false;
  for (const auto& s : j.at("sections"))
    for (const auto& c : s.at("charts"))
      if (c.at("id") == "l2-partitions-map") found = c.at("kind") == "heatmap";
  EXPECT_TRUE(found);
}

TEST(ReportHeatmap, AnEmptyMapSaysNoData) {
  report::Chart c;
  c.kind = report::Chart::Kind::heatmap;
  c.title = "empty";
  c.series.push_back({"SM 0", {0, 1}, {NAN, NAN}});
  const std::string svg = report::to_svg(c);
  EXPECT_NE(svg.find("no data"), std::string::npos);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
}

}  // namespace
}  // namespace memhier::probe
