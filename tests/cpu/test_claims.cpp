// The claims catalogue: ids (every id the code names exists by construction: ClaimId is
// generated from claim_ids.inc), sources, the ladder verdicts from hand-built bench records,
// the report's Claims section gathered from Section::checks, and that docs/claims.md is the
// catalogue's Markdown.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "memhier/claims/catalogue.hpp"
#include "memhier/claims/judge.hpp"
#include "memhier/claims/ladders.hpp"

#ifndef MEMHIER_SOURCE_DIR
#error "MEMHIER_SOURCE_DIR must name the repository root"
#endif

namespace memhier::claims {
namespace {

namespace fs = std::filesystem;
using results::BenchRecord;

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// ---- The catalogue itself.

TEST(ClaimsCatalogue, EveryIdOnceInIdOrderAndKebabCase) {
  const std::regex kebab("[a-z0-9]+(-[a-z0-9]+)*");
  ASSERT_EQ(catalogue().size(), results::kClaimCount);
  for (std::size_t i = 0; i < catalogue().size(); ++i) {
    const Claim& c = catalogue()[i];
    const std::string id(name(c.id));
    EXPECT_EQ(static_cast<std::size_t>(c.id), i) << id;
    EXPECT_TRUE(std::regex_match(id, kebab)) << id;
    EXPECT_EQ(find(id), &c);
    EXPECT_EQ(&claim(c.id), &c);
  }
  EXPECT_EQ(find("no-such-claim"), nullptr);
  EXPECT_GE(catalogue().size(), 36u);  // a few dozen at least: every numeric claim of the seeds
}

TEST(ClaimsCatalogue, EveryClaimHasTextAndEitherACheckerOrAReason) {
  for (const Claim& c : catalogue()) {
    EXPECT_FALSE(c.text.empty()) << name(c.id);
    EXPECT_NE(c.checked_by.empty(), c.unmeasured.empty())
        << name(c.id) << ": a reason exactly when nothing checks it";
    for (const Checker& ch : c.checked_by) EXPECT_FALSE(ch.which.empty()) << name(c.id);
  }
}

TEST(ClaimsCatalogue, SourcesNameTextsByTitleOrKnownOrigins) {
  std::set<std::string> titles;
  for (const Seed& s : seeds()) titles.insert(s.title);
  const std::regex bare_number("(^|[ (;])00[0-4]([ ,);§]|$)");
  for (const Claim& c : catalogue()) {
    const std::vector<SourceRef> refs = parse_sources(c.source);
    ASSERT_FALSE(refs.empty()) << name(c.id) << ": malformed source '" << c.source << "'";
    for (const SourceRef& r : refs)
      EXPECT_TRUE(titles.count(r.origin) || r.origin == "memhier goal" ||
                  r.origin == "published figures")
          << name(c.id) << ": unknown origin '" << r.origin << "'";
    // What a reader sees names each text by its title, never by a number or a path.
    for (const std::string& text : {c.source, c.text, c.unmeasured}) {
      EXPECT_FALSE(std::regex_search(text, bare_number)) << name(c.id) << ": " << text;
      EXPECT_EQ(text.find("seeds"), std::string::npos) << name(c.id) << ": " << text;
    }
  }
}

TEST(ClaimsCatalogue, SectionsExistInTheSeeds) {
  const fs::path dir = MEMHIER_SEEDS_DIR;
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no seeds at " << dir;
  std::map<std::string, std::string> text;  // by title
  for (const Seed& s : seeds()) {
    ASSERT_TRUE(fs::exists(dir / s.file)) << s.file;
    text[s.title] = lower(slurp(dir / s.file));
  }
  for (const Claim& c : catalogue())
    for (const SourceRef& r : parse_sources(c.source)) {
      if (!text.count(r.origin) || r.section == "(introduction)") continue;
      EXPECT_NE(text[r.origin].find(lower(r.section)), std::string::npos)
          << name(c.id) << ": seed " << r.origin << " has no section '" << r.section << "'";
    }
}

TEST(ClaimsCatalogue, ParseSourcesSplitsParts) {
  const std::vector<SourceRef> r = parse_sources(
      "GPU Memory Hierarchy, §L2 Cache, §HBM Basics; Global, Shared, and Register Memory, "
      "§Summary; memhier goal: copy kernel >= 0.90 x cudaMemcpy");
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].origin, "GPU Memory Hierarchy");
  EXPECT_EQ(r[0].section, "L2 Cache");
  EXPECT_EQ(r[1].origin, "GPU Memory Hierarchy");
  EXPECT_EQ(r[1].section, "HBM Basics");
  EXPECT_EQ(r[2].origin, "Global, Shared, and Register Memory");
  EXPECT_EQ(r[2].section, "Summary");
  EXPECT_EQ(r[3].origin, "memhier goal");
  EXPECT_EQ(r[3].section, "copy kernel >= 0.90 x cudaMemcpy");
  EXPECT_TRUE(parse_sources("").empty());
  EXPECT_TRUE(parse_sources("GPU Memory Hierarchy L2 Cache").empty());
  EXPECT_TRUE(parse_sources("GPU Memory Hierarchy, §").empty());
  EXPECT_TRUE(parse_sources("GPU Memory Hierarchy, §, §L2 Cache").empty());
  EXPECT_TRUE(parse_sources("001 §L2 Cache").empty());  // the data's shorthand, not spelt out
}

TEST(ClaimsCatalogue, SourcesSpellOutEachTextsTitle) {
  const Claim* c = find("latency-l2-200-cycles");
  ASSERT_NE(c, nullptr);
  // Each text once, its sections in the order cited.
  EXPECT_EQ(c->source,
            "GPU Memory Hierarchy, §L2 Cache, §GPU Memory Hierarchy Comparison (H100 SXM); "
            "Global, Shared, and Register Memory, §The Five Memory Spaces: Real Numbers");
  EXPECT_EQ(find("memhier-copy-vs-memcpy")->source,
            "memhier goal: copy kernel >= 0.90 x cudaMemcpy");
}

// ---- The catalogue says truly what checks each claim.

TEST(ClaimsCatalogue, ACheckerTheCatalogueDoesNotNameIsAnError) {
  report::Section s;
  EXPECT_THROW(add_checks(s, Checker::probe("latency"), {{ClaimId::padding_3x_matmul, "1", {}}}),
               std::logic_error);
  EXPECT_THROW(
      add_checks(s, Checker::bench("latency"), {{ClaimId::latency_l2_200_cycles, "1", {}}}),
      std::logic_error);
  EXPECT_TRUE(s.checks.empty());
  add_checks(s, Checker::probe("latency"), {{ClaimId::latency_l2_200_cycles, "210", {}}});
  ASSERT_EQ(s.checks.size(), 1u);
  EXPECT_EQ(s.checks[0].by, Checker::probe("latency"));
}

TEST(ClaimsCatalogue, LadderCheckersMatchTheLadderChecks) {
  // The hooks the built-in families name in their tables (the registry test checks that
  // each family names these).
  using Hook = std::vector<Check> (*)(const std::vector<BenchRecord>&);
  const std::vector<std::pair<const char*, Hook>> ladders = {{"gemm", gemm_checks},
                                                             {"transpose", transpose_checks},
                                                             {"softmax", softmax_checks},
                                                             {"elementwise", elementwise_checks},
                                                             {"reduction", reduction_checks}};
  for (const auto& [family, hook] : ladders) {
    const Checker by = Checker::bench(family);
    std::set<ClaimId> ids;
    for (const Check& ch : hook ? hook({}) : std::vector<Check>{}) {
      ids.insert(ch.id);
      const Claim& c = claim(ch.id);
      EXPECT_TRUE(std::count(c.checked_by.begin(), c.checked_by.end(), by))
          << name(ch.id) << " is checked by the " << family << " ladder; say so";
    }
    for (const Claim& c : catalogue())
      if (std::count(c.checked_by.begin(), c.checked_by.end(), by)) {
        EXPECT_TRUE(ids.count(c.id)) << name(c.id) << " claims bench-" << family << " checks it";
      }
  }
}

TEST(ClaimsTable, RenderedFromTheChecks) {
  Check c{ClaimId::latency_l2_200_cycles, "210", {Verdict::reproduced, "reproduced (ok)"}};
  const report::Table t = checks_table(Checker::probe("latency"), {c});
  EXPECT_EQ(t.id, "latency-claims");
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows[0][0].text, "latency-l2-200-cycles");
  EXPECT_EQ(t.rows[0][2].text, find("latency-l2-200-cycles")->text);
  EXPECT_EQ(t.rows[0][4].text, "reproduced (ok)");
  c.from_properties = true;  // the table says where the figure came from
  EXPECT_NE(checks_table(Checker::probe("latency"), {c}).rows[0][4].text.find("properties"),
            std::string::npos);
  EXPECT_EQ(checks_table(Checker::bench("gemm"), {}).id, "bench-gemm-claims");
}

// ---- Verdicts.

TEST(ClaimsVerdict, VerdictsReadAsTheReportWritesThem) {
  EXPECT_STREQ(to_string(Verdict::reproduced), "reproduced");
  EXPECT_STREQ(to_string(Verdict::refuted), "refuted");
  EXPECT_STREQ(to_string(Verdict::not_measurable), "not measurable here");
  EXPECT_STREQ(to_string(Verdict::about_other_card), "about another card");
  EXPECT_EQ(results::not_measurable("no GPU").text, "not measurable here: no GPU");
}

TEST(ClaimsVerdict, ToleranceBandFollowsTheCatalogue) {
  Band b = tolerance_band(ClaimId::padding_3x_matmul, 3, 3);  // a ratio: ±25 %
  EXPECT_DOUBLE_EQ(b.lo, 2.25);
  EXPECT_DOUBLE_EQ(b.hi, 3.75);
  b = tolerance_band(ClaimId::softmax_float4_1_25x, 1.25, 1.25);  // a gain: half to twice it
  EXPECT_DOUBLE_EQ(b.lo, 1.125);
  EXPECT_DOUBLE_EQ(b.hi, 1.5);
  b = tolerance_band(ClaimId::coalescing_10_20x, 10, 20);  // a range: each end
  EXPECT_DOUBLE_EQ(b.lo, 7.5);
  EXPECT_DOUBLE_EQ(b.hi, 25);
  b = tolerance_band(ClaimId::padding_30pct, 1.3, kInf);  // "30%+"
  EXPECT_DOUBLE_EQ(b.lo, 1.15);
  EXPECT_TRUE(std::isinf(b.hi));
  b = tolerance_band(ClaimId::transpose_padded_83pct, 0.6, 0.6);  // a fraction: ±25 %
  EXPECT_DOUBLE_EQ(b.lo, 0.45);
  EXPECT_DOUBLE_EQ(b.hi, 0.75);
  EXPECT_THROW(tolerance_band(ClaimId::registers_1_cycle, 1, 1), std::logic_error);  // unmeasured
  EXPECT_THROW(band(ClaimId::l2_persisting_window), std::logic_error);               // per figure
}

// Every checked claim states its band and why; ratio claims ("x" in the id, a speedup or a
// fraction) use the ±25 % default, a gain under 2x the gain rule, or say why not.
TEST(ClaimsCatalogue, EveryCheckedClaimStatesItsBand) {
  for (const Claim& c : catalogue()) {
    SCOPED_TRACE(std::string(name(c.id)));
    if (c.checked_by.empty()) {
      EXPECT_TRUE(c.band_reason.empty());
      continue;
    }
    EXPECT_FALSE(c.band_reason.empty());
    EXPECT_EQ(c.band_reason.find('\n'), std::string::npos);
    EXPECT_FALSE(describe_band(c.band).empty());
    const bool wider = (c.band.rule == Tolerance::Rule::factor && c.band.amount > 1.25) ||
                       (c.band.rule == Tolerance::Rule::percent && c.band.amount > 25);
    if (wider) {  // a band wider than the default names it and says why
      EXPECT_NE(c.band_reason.find("wider"), std::string::npos) << c.band_reason;
    }
  }
  EXPECT_EQ(describe_band(Tolerance::within_percent(25)), "±25 %");
  EXPECT_EQ(describe_band(Tolerance::at_least(0.9)), "≥ 0.9");
  EXPECT_EQ(describe_band(Tolerance::within_gain_factor(2)), "gain ×/÷2");
}

TEST(ClaimsVerdict, JudgeBandStatesTheTolerance) {
  EXPECT_EQ(judge_band(3.1, {2, 4.5}, false).text, "reproduced (tolerance: inside 2.000..4.500x)");
  EXPECT_EQ(judge_band(0.8, {2, 4.5}, false).text,
            "refuted: 0.800x (tolerance: inside 2.000..4.500x)");
  EXPECT_EQ(judge_band(1.2, {1.15, kInf}, false).text, "reproduced (tolerance: at least 1.150x)");
  EXPECT_EQ(judge_band(1.1, {1.15, kInf}, false).verdict, Verdict::refuted);
  // Three decimals: 1.116x is visibly outside 1.125x.
  EXPECT_EQ(judge_band(1.116, {1.125, 1.5}, false).text,
            "refuted: 1.116x (tolerance: inside 1.125..1.500x)");
  EXPECT_EQ(judge_band(0.17, {0.089, 0.2}, true).text,
            "reproduced (tolerance: inside 8.90..20.00%)");
  EXPECT_EQ(judge_band(0.25, {0.089, 0.2}, true).verdict, Verdict::refuted);
  EXPECT_EQ(judge_band(NAN, {1, 2}, false).verdict, Verdict::not_measurable);
}

// Records as run_family makes them: a timed, verified variant at a shape.
BenchRecord rec(const std::string& family, const std::string& variant, const std::string& shape,
                double ms) {
  BenchRecord r;
  r.family = family;
  r.variant = variant;
  r.shape = shape;
  r.rung = 1;
  r.verified = true;
  r.ms = ms;
  return r;
}

// A GEMM run at 4096^3 with an H100's times (ms), cuBLAS first as run_family does.
std::vector<BenchRecord> gemm_run(const std::string& shape = "4096x4096x4096") {
  const double flops = 2.0 * 4096 * 4096 * 4096, cublas_ms = 2.6592, peak = 66900;
  std::vector<BenchRecord> v;
  BenchRecord cu = rec("gemm", "cublasSgemm", shape, cublas_ms);
  cu.rung = 0;
  v.push_back(cu);
  const std::pair<const char*, double> times[] = {
      {"naive", 275.87},           {"coalesced", 27.449},       {"smem_tile16", 17.552},
      {"smem_tile32", 16.754},     {"smem_tile64", 9.0438},     {"padded", 20.932},
      {"reg_tile_2d", 4.6749},     {"double_buffered", 3.0909}, {"cp_async_2stage", 3.8123},
      {"cp_async_3stage", 3.7853}, {"cp_async_4stage", 3.8034}};
  for (const auto& [name, ms] : times) v.push_back(rec("gemm", name, shape, ms));
  for (BenchRecord& r : v) {
    r.gflops = flops / (r.ms * 1e6);
    r.peak_pct = 100 * r.gflops / peak;
    r.x_vendor = cublas_ms / r.ms;
  }
  for (BenchRecord& r : v) {
    if (r.variant == "smem_tile32") r.static_smem = 8192;
    if (r.variant == "padded") r.static_smem = 8448;
  }
  BenchRecord big = rec("gemm", "cfg_cp4_128x128x16_8x8", shape, 3.4666);
  big.dynamic_smem = 65536;
  big.blocks_per_sm = 3;
  v.push_back(big);
  return v;
}

std::map<std::string, Check> by_id(const std::vector<Check>& checks) {
  std::map<std::string, Check> m;
  for (const Check& c : checks) m.emplace(name(c.id), c);
  return m;
}

TEST(ClaimsLadder, GemmVerdictsComeFromTheRecords) {
  const auto m = by_id(gemm_checks(gemm_run()));
  auto verdict = [&](const char* id) { return m.at(id).verdict; };
  // 10.05x from naive to coalesced: inside 10-20x widened to 6.67x..30x.
  EXPECT_EQ(verdict("coalescing-10-20x"), Verdict::reproduced) << m.at("coalescing-10-20x").detail;
  // Padding is slower here (0.80x): the 3x claim is refuted.
  EXPECT_EQ(verdict("padding-3x-matmul"), Verdict::refuted);
  EXPECT_NE(m.at("padding-3x-matmul").measured.find("0.800x"), std::string::npos)
      << m.at("padding-3x-matmul").measured;
  // 8448 / 8192 B: +3.1%.
  EXPECT_EQ(verdict("padding-memory-3pct"), Verdict::reproduced)
      << m.at("padding-memory-3pct").detail;
  // The tile of 64 is 1.85x faster than 32.
  EXPECT_EQ(verdict("tile-32-optimal"), Verdict::refuted);
  // 2,800 / 18,500 of cuBLAS claimed; 16.7 / 2.66 ms here is 15.9%.
  EXPECT_EQ(verdict("gemm-tiled-2800"), Verdict::reproduced) << m.at("gemm-tiled-2800").detail;
  // cuBLAS at 77% of peak against 94.9%: inside 63%..142%.
  EXPECT_EQ(verdict("gemm-cublas-18500"), Verdict::reproduced) << m.at("gemm-cublas-18500").detail;
  // cp.async against the register-prefetch double buffer: 0.82x, not 1.05x.
  EXPECT_EQ(verdict("cp-async-gemm-1-05x"), Verdict::refuted);
  EXPECT_NE(m.at("cp-async-gemm-1-05x").measured.find("cp_async_3stage"), std::string::npos);
  // 64 KB per block gives 3 blocks per SM here.
  EXPECT_EQ(verdict("smem-64kb-1-2-blocks"), Verdict::refuted);
  for (const auto& [id, c] : m) EXPECT_NE(c.verdict, Verdict::not_measurable) << id;
}

TEST(ClaimsLadder, AnotherShapeIsNotMeasurableAndSaysWhy) {
  for (const Check& c : gemm_checks(gemm_run("2048x2048x2048"))) {
    if (c.id == ClaimId::padding_memory_3pct || c.id == ClaimId::smem_64kb_1_2_blocks)
      continue;  // properties of the kernels, not of the shape
    EXPECT_EQ(c.verdict, Verdict::not_measurable) << name(c.id);
    EXPECT_NE(c.detail.find("4096x4096x4096"), std::string::npos) << c.detail;
    EXPECT_NE(c.detail.find("2048x2048x2048"), std::string::npos) << c.detail;
  }
}

TEST(ClaimsLadder, MissingOrUnverifiedRecordsAreNotMeasurable) {
  std::vector<BenchRecord> run = gemm_run();
  run.erase(std::remove_if(run.begin(), run.end(),
                           [](const BenchRecord& r) { return r.variant == "padded"; }),
            run.end());
  for (BenchRecord& r : run)
    if (r.variant == "naive") {
      r.verified = false;
      r.note = "wrong result";
    }
  const auto m = by_id(gemm_checks(run));
  EXPECT_EQ(m.at("padding-3x-matmul").detail,
            "not measurable here: padded did not run at 4096x4096x4096");
  EXPECT_EQ(m.at("coalescing-10-20x").detail,
            "not measurable here: naive did not verify at 4096x4096x4096: wrong result");
  EXPECT_EQ(m.at("tiling-2-15x").verdict, Verdict::reproduced);  // 1.64x
}

TEST(ClaimsLadder, TransposeSoftmaxAndElementwise) {
  std::vector<BenchRecord> t;
  for (const auto& [v, ms] : std::vector<std::pair<const char*, double>>{
           {"naive", 0.2853}, {"tile", 0.0845}, {"padded", 0.0517}, {"swizzled", 0.0522}}) {
    BenchRecord r = rec("transpose", v, "4096x4096", ms);
    r.frac_memcpy = 0.0490 / ms;
    t.push_back(r);
  }
  const auto tm = by_id(transpose_checks(t));
  // 17% against 13.3% ±25 % (10..16.7%); 5.5x against 7.5x ±25 % (5.6..9.4x).
  EXPECT_EQ(tm.at("transpose-naive-13pct").verdict, Verdict::refuted);
  EXPECT_EQ(tm.at("padding-30pct").verdict, Verdict::reproduced);  // 1.63x
  EXPECT_EQ(tm.at("swizzle-matches-padding").verdict, Verdict::reproduced);
  EXPECT_EQ(tm.at("column-major-7-5x").verdict, Verdict::refuted);

  std::vector<BenchRecord> s;
  for (const auto& [v, ms] : std::vector<std::pair<const char*, double>>{{"naive", 0.1290},
                                                                         {"parallel_max", 0.0220},
                                                                         {"warp_shuffle", 0.0221},
                                                                         {"vectorized", 0.0198},
                                                                         {"launch_bounds", 0.0184}})
    s.push_back(rec("softmax", v, "1024x4096", ms));
  const auto sm = by_id(softmax_checks(s));
  EXPECT_EQ(sm.at("softmax-parallel-max-2-1x").verdict, Verdict::refuted);  // 5.9x
  EXPECT_EQ(sm.at("softmax-launch-bounds-1-12x").verdict, Verdict::reproduced);
  EXPECT_EQ(sm.at("softmax-66pct-of-peak").verdict, Verdict::not_measurable);

  std::vector<BenchRecord> e{rec("elementwise", "scalar", "axpy:16777216", 1.0),
                             rec("elementwise", "float4", "axpy:16777216", 0.5),
                             rec("elementwise", "scalar", "axpy:268435456", 1.1692),
                             rec("elementwise", "float4", "axpy:268435456", 1.0544)};
  const auto em = by_id(elementwise_checks(e));  // the largest axpy shape counts
  EXPECT_NE(em.at("float4-1-25x").measured.find("axpy:268435456"), std::string::npos);
  EXPECT_EQ(em.at("float4-1-25x").verdict, Verdict::refuted);  // 1.11x
  EXPECT_EQ(em.at("vectorize-1-1-1-25x").verdict, Verdict::reproduced);
  EXPECT_EQ(by_id(elementwise_checks({})).at("float4-1-25x").verdict, Verdict::not_measurable);
}

TEST(ClaimsLadder, AFractionIsJudgedOnThePairedMedianAndQuotedWithItsSpread) {
  std::vector<BenchRecord> t;
  for (const auto& [v, ms] : std::vector<std::pair<const char*, double>>{
           {"naive", 0.2853}, {"tile", 0.0845}, {"padded", 0.0517}}) {
    BenchRecord r = rec("transpose", v, "4096x4096", ms);
    r.frac_memcpy = 0.0490 / ms;  // what the separate medians would say
    t.push_back(r);
  }
  // The paired median of naive's per-pair ratios (12%) is what counts, not 0.049 / 0.2853.
  t[0].frac_memcpy = 0.12;
  t[0].frac_memcpy_spread = {0.115, 0.125};
  const auto m = by_id(transpose_checks(t));
  const Check& naive = m.at("transpose-naive-13pct");
  EXPECT_EQ(naive.measured,
            "naive: 12% (paired median; p10 11.5%, p90 12.5%) of cudaMemcpy D2D (the source: of "
            "the V100's 900 GB/s) at 4096x4096");
  EXPECT_EQ(naive.verdict, Verdict::reproduced) << naive.detail;
  // Without a spread (a figure that is not paired) only the median is quoted.
  EXPECT_EQ(m.at("transpose-tiled-64pct").measured.find("paired"), std::string::npos);
}

TEST(ClaimsLadder, ADeclinedVariantIsNotMeasurableWithItsReason) {
  std::vector<BenchRecord> s{rec("softmax", "naive", "1024x4096", 0.1290)};
  BenchRecord declined = rec("softmax", "parallel_max", "1024x4096", NAN);
  declined.verified = false;
  declined.declined = "needs 4096 columns or fewer";
  s.push_back(declined);
  const auto m = by_id(softmax_checks(s));
  EXPECT_EQ(m.at("softmax-parallel-max-2-1x").detail,
            "not measurable here: parallel_max declined 1024x4096: needs 4096 columns or fewer");
}

TEST(ClaimsLadder, GemmSeedTableHasTheSeedsRowsAndThisRun) {
  const std::vector<BenchRecord> run = gemm_run();
  const report::Table t = gemm_seed_table(run);
  ASSERT_EQ(t.rows.size(), 5u);
  const std::vector<std::string> rungs{"naive", "smem_tile32", "reg_tile_2d", "cp_async_2stage",
                                       "cublasSgemm"};
  const auto checks = by_id(gemm_checks(run));
  const std::vector<std::string> ids{"gemm-naive-310", "gemm-tiled-2800",
                                     "gemm-register-tiled-6200", "gemm-cp-async-7100",
                                     "gemm-cublas-18500"};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(t.rows[i][4].text, rungs[i]);
    EXPECT_EQ(t.rows[i][5].text, "4096x4096x4096");
    EXPECT_EQ(t.rows[i].back().text, checks.at(ids[i]).detail);
    for (const BenchRecord& r : run)
      if (r.variant == rungs[i]) {
        EXPECT_DOUBLE_EQ(t.rows[i][8].number, r.x_vendor);
      }
  }
  EXPECT_DOUBLE_EQ(t.rows[0][1].number, 310);
  EXPECT_DOUBLE_EQ(t.rows[4][1].number, 18500);

  report::Section s;
  add_ladder_claims(s, "gemm", {gemm_checks, gemm_seed_tables}, run);
  ASSERT_EQ(s.tables.size(), 2u);
  EXPECT_EQ(s.tables[0].id, "bench-gemm-seed-table");
  EXPECT_EQ(s.tables[1].id, "bench-gemm-claims");
  EXPECT_EQ(s.checks.size(), gemm_checks(run).size());
  for (const Check& c : s.checks) EXPECT_EQ(c.by, Checker::bench("gemm"));
  report::Section none;
  add_ladder_claims(none, "histogram", {}, {});
  EXPECT_TRUE(none.tables.empty() && none.checks.empty());
}

// ---- The report's Claims section.

TEST(ClaimsSection, GathersEverySectionsChecksAndFillsTheRest) {
  report::Section probe;
  add_checks(probe, Checker::probe("latency"),
             {{ClaimId::latency_l2_200_cycles, "260 cycles", {Verdict::reproduced, "reproduced"}},
              {ClaimId::latency_hbm_400_600_cycles,
               "800 cycles",
               {Verdict::refuted, "differs: 1.33x the high end"}}});
  report::Section ladder;
  add_checks(ladder, Checker::bench("gemm"), gemm_checks(gemm_run()));
  report::Section other;  // tables alone, even a copy of a claims table, are never read back
  other.tables = probe.tables;
  other.tables.push_back(catalogue_table());
  ASSERT_EQ(probe.checks.size(), 2u);
  EXPECT_EQ(probe.checks[0].by, Checker::probe("latency"));

  const report::Section s = claims_section({probe, ladder, other}, "");
  ASSERT_EQ(s.tables.size(), 1u);
  const report::Table& t = s.tables[0];
  EXPECT_EQ(t.id, "claims");  // not "-claims": the section does not gather itself
  std::size_t checked = 0;
  for (const Claim& c : catalogue()) {
    std::size_t rows = 0;
    for (const auto& row : t.rows)
      if (row[0].text == name(c.id)) ++rows;
    EXPECT_GE(rows, 1u) << name(c.id);
    checked += rows;
  }
  EXPECT_EQ(checked, t.rows.size());
  auto row_of = [&](const std::string& id) {
    for (const auto& row : t.rows)
      if (row[0].text == id) return row;
    return std::vector<report::Value>{};
  };
  EXPECT_EQ(row_of("latency-hbm-400-600-cycles")[5].text, "refuted");
  EXPECT_EQ(row_of("latency-hbm-400-600-cycles")[3].text, "probe latency");
  EXPECT_EQ(row_of("padding-3x-matmul")[5].text, "refuted");
  EXPECT_EQ(row_of("padding-3x-matmul")[3].text, "bench gemm");
  EXPECT_EQ(row_of("registers-1-cycle")[5].text, "not measurable here");
  EXPECT_EQ(row_of("registers-1-cycle")[6].text, "n/a");  // the band: none when unmeasured
  EXPECT_EQ(row_of("latency-hbm-400-600-cycles")[6].text, "±50 %");
  EXPECT_EQ(row_of("registers-1-cycle")[7].text, find("registers-1-cycle")->unmeasured);
  EXPECT_NE(row_of("bank-degree-gcd")[7].text.find("did not run"), std::string::npos);

  // The summary's tally counts the same rows the section shows.
  const report::ClaimsTally n = tally({probe, ladder, other});
  int shown[3] = {0, 0, 0};
  for (const auto& row : t.rows)
    ++shown[row[5].text == "reproduced" ? 0 : row[5].text == "refuted" ? 1 : 2];
  EXPECT_EQ(n.reproduced, shown[0]);
  EXPECT_EQ(n.refuted, shown[1]);
  EXPECT_EQ(n.not_measurable, shown[2]);
  EXPECT_GE(n.refuted, 2);     // the HBM latency and the padding gain above
  EXPECT_GE(n.reproduced, 1);  // the L2 latency

  const report::Section none = claims_section({}, "no GPU: no driver");
  EXPECT_EQ(tally({}).reproduced + tally({}).refuted, 0);
  EXPECT_EQ(tally({}).not_measurable, static_cast<int>(none.tables[0].rows.size()));
  for (const auto& row : none.tables[0].rows) {
    EXPECT_EQ(row[5].text, "not measurable here") << row[0].text;
    if (!find(row[0].text)->checked_by.empty()) {
      EXPECT_EQ(row[7].text, "no GPU: no driver");
    }
  }
}

// ---- The catalogue as Markdown, and docs/claims.md.

TEST(ClaimsMarkdown, OneRowPerClaimWithMarkupEscaped) {
  const std::string md = catalogue_markdown();
  EXPECT_EQ(md.rfind("# Claims catalogue\n", 0), 0u);
  for (const Claim& c : catalogue()) {
    const std::string cell = "| `" + std::string(name(c.id)) + "` |";
    const std::size_t at = md.find(cell);
    ASSERT_NE(at, std::string::npos) << name(c.id);
    EXPECT_EQ(md.find(cell, at + 1), std::string::npos) << name(c.id);
  }
  // Table pipes and emphasis inside text are escaped: "__launch_bounds__" stays literal.
  EXPECT_NE(md.find("\\_\\_launch\\_bounds\\_\\_"), std::string::npos);
  EXPECT_EQ(md, catalogue_markdown());  // deterministic
  std::size_t rows = 0;
  for (std::size_t p = md.find("\n| `"); p != std::string::npos; p = md.find("\n| `", p + 1))
    ++rows;
  EXPECT_EQ(rows, catalogue().size());
}

TEST(ClaimsMarkdown, DocsClaimsMdIsTheGeneratedCatalogue) {
  const fs::path doc = fs::path(MEMHIER_SOURCE_DIR) / "docs" / "claims.md";
  ASSERT_TRUE(fs::exists(doc)) << doc << " is missing: run scripts/gen-claims.sh";
  EXPECT_TRUE(slurp(doc) == catalogue_markdown())
      << doc
      << " differs from `memhier claims --markdown`: run scripts/gen-claims.sh and commit "
         "the result";
}

}  // namespace
}  // namespace memhier::claims
