// `memhier explain`'s diagnosis as a pure function of counters. The inputs are the made-up
// counter sets of tests/fixtures/explain/synthetic-counters.csv (labelled there: inputs to the
// rules, not measurements), read by the same parser ncu's output goes through.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "memhier/bench/explain.hpp"
#include "memhier/claims/catalogue.hpp"
#include "memhier/model/access.hpp"
#include "memhier/model/arch.hpp"
#include "memhier/model/card.hpp"
#include "memhier/report/writers.hpp"

namespace memhier::bench {
namespace {

std::string fixture_text() {
  std::ifstream f(std::string(MEMHIER_SOURCE_DIR) +
                  "/tests/fixtures/explain/synthetic-counters.csv");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

const std::vector<profile::KernelCounters>& rows() {
  static const std::vector<profile::KernelCounters> r =
      profile::parse_raw_csv(fixture_text(), profile::explain_metrics());
  return r;
}

const profile::KernelCounters& row(const std::string& name) {
  for (const profile::KernelCounters& k : rows())
    if (k.name.rfind(name + "(", 0) == 0) return k;
  throw std::runtime_error("no fixture row " + name);
}

// A made-up card: round ceilings, each marked as what it would be.
DiagnosisContext context(double footprint = 0) {
  DiagnosisContext c;
  c.arch = model::find_arch(9, 0);
  c.ceilings.card = "synthetic card";
  c.ceilings.sms = 132;
  c.ceilings.dram = {3000, model::Provenance::measured, "synthetic"};
  c.ceilings.l2 = {7500, model::Provenance::measured, "synthetic"};
  c.ceilings.shared = {30000, model::Provenance::datasheet, "synthetic"};
  c.ceilings.fp32 = {60000, model::Provenance::datasheet, "synthetic"};
  c.ceilings.tensor = {900000, model::Provenance::datasheet, "synthetic"};
  c.ceilings.dram_latency_ns = 600;
  c.rungs = rung_gains(nullptr);
  c.footprint_bytes = footprint;
  return c;
}

std::vector<std::string> kinds(const KernelDiagnosis& d) {
  std::vector<std::string> out;
  for (const Finding& f : d.findings) out.push_back(to_string(f.kind));
  return out;
}

TEST(ExplainFixture, ParsesEveryRowWithTheExplainCounters) {
  ASSERT_EQ(rows().size(), 8u);
  EXPECT_EQ(rows()[0].id, 1);
  EXPECT_EQ(rows()[0].get("dram_read_bytes"), 268435456.0);  // thousands separators
  EXPECT_EQ(row("bf16_matmul").get("tensor_bf16_ops"), 1099511627776.0);
  EXPECT_EQ(row("transpose_unpadded").block, "(32, 8, 1)");
}

TEST(ExplainDiagnosis, CleanCopyIsNearTheCeilingAndNothingElse) {
  const KernelDiagnosis d = diagnose(row("copy_clean"), context());
  EXPECT_EQ(kinds(d), std::vector<std::string>{"near-ceiling"});
  EXPECT_NEAR(d.standings.at(0).fraction(), 0.9, 0.01);  // DRAM first
  EXPECT_EQ(d.findings[0].ideal, 3000);                  // the card's measured DRAM ceiling
  EXPECT_LT(d.findings[0].gain, 1.0 / 0.85 + 1e-9);
}

// A kernel that reads and writes as much is held to the card's copy figure, where its record
// measured one (the bus turns around): at 0.82 of the best one-way figure the clean copy is
// at 0.93 of a copy's.
TEST(ExplainDiagnosis, ACopyIsHeldToTheCardsCopyFigure) {
  const profile::KernelCounters& k = row("copy_clean");
  const double rd = k.get("dram_read_bytes"), wr = k.get("dram_write_bytes");
  ASSERT_EQ(rd, wr);
  DiagnosisContext c = context();
  c.ceilings.dram.value = 3300;
  const KernelDiagnosis one_way = diagnose(k, c);
  EXPECT_NEAR(one_way.standings.at(0).fraction(), 2700.0 / 3300, 0.01);
  EXPECT_EQ(kinds(one_way), std::vector<std::string>{});
  c.ceilings.dram_copy = {2900, model::Provenance::measured, "synthetic copy"};
  const KernelDiagnosis copy = diagnose(k, c);
  EXPECT_EQ(copy.standings.at(0).ceiling.value, 2900);
  EXPECT_EQ(copy.standings.at(0).ceiling.source, "synthetic copy");
  EXPECT_EQ(kinds(copy), std::vector<std::string>{"near-ceiling"});
  // A kernel that only reads keeps the one-way ceiling.
  profile::KernelCounters reads = k;
  reads.values["dram_write_bytes"] = 0;
  EXPECT_EQ(diagnose(reads, c).standings.at(0).ceiling.value, 3300);
}

TEST(ExplainDiagnosis, StridedLoadIsUncoalescedFirstWithTheModelsIdeal) {
  const KernelDiagnosis d = diagnose(row("strided_load"), context());
  ASSERT_GE(d.findings.size(), 2u);
  EXPECT_EQ(to_string(d.findings[0].kind), std::string("uncoalesced-global"));
  // 128 bytes per instruction: the model's contiguous 32 x 4-byte warp access.
  model::WarpAccess w;
  for (int l = 0; l < 32; ++l) w.address[l] = 4u * l;
  EXPECT_EQ(d.findings[0].ideal, model::global_cost(w).sectors);
  EXPECT_EQ(d.findings[0].measured, 32.0);
  // The DRAM overfetch comes second (its gain is smaller): findings are ordered by gain.
  EXPECT_EQ(to_string(d.findings[1].kind), std::string("dram-excess"));
  for (std::size_t i = 1; i < d.findings.size(); ++i)
    EXPECT_GE(d.findings[i - 1].gain, d.findings[i].gain);
  // Wasted sectors: the DRAM ceiling is not "near" for a kernel that overfetches.
  for (const Finding& f : d.findings) EXPECT_NE(f.kind, FindingKind::near_ceiling);
  EXPECT_FALSE(d.findings[0].evidence.empty());
  EXPECT_EQ(d.findings[0].evidence[0].metric, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
}

TEST(ExplainDiagnosis, UnpaddedTransposeHasBankConflictsFirst) {
  const KernelDiagnosis d = diagnose(row("transpose_unpadded"), context());
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(to_string(d.findings[0].kind), std::string("shared-bank-conflicts"));
  model::WarpAccess w;
  for (int l = 0; l < 32; ++l) w.address[l] = 4u * l;
  EXPECT_EQ(d.findings[0].ideal, model::shared_cost(w).wavefronts);
  EXPECT_NEAR(d.findings[0].measured, 17301504.0 / 1048576.0, 1e-9);
  EXPECT_GT(d.findings[0].gain, 1.5);
  EXPECT_EQ(d.findings[0].rung.family, "transpose");
  EXPECT_EQ(d.findings[0].rung.from, "tile");
  EXPECT_EQ(d.findings[0].rung.to, "padded");
  EXPECT_NE(d.findings[0].source.find("Shared Memory and Bank Conflicts"), std::string::npos);
}

TEST(ExplainDiagnosis, LocalTrafficIsRegisterSpillsFirst) {
  const KernelDiagnosis d = diagnose(row("forced_spills"), context());
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(to_string(d.findings[0].kind), std::string("register-spills"));
  EXPECT_EQ(d.findings[0].ideal, 0);
  for (const Finding& f : d.findings) EXPECT_NE(f.kind, FindingKind::latency_bound);
}

TEST(ExplainDiagnosis, RegisterLimitedKernelIsLowOccupancyWithTheModelsLimiterAndAdvice) {
  const DiagnosisContext c = context();
  const KernelDiagnosis d = diagnose(row("register_limited"), c);
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(to_string(d.findings[0].kind), std::string("low-occupancy"));
  model::LaunchResources r;
  r.block_threads = 256;
  r.regs_per_thread = 255;
  const model::OccupancyResult o = model::occupancy(*c.arch, r);
  EXPECT_EQ(o.limiter, model::Limiter::registers);
  EXPECT_EQ(d.findings[0].measured, o.occupancy);
  EXPECT_EQ(d.findings[0].technique, model::occupancy_advice(*c.arch, r, o));
  EXPECT_FALSE(d.findings[0].technique.empty());
  EXPECT_NE(d.findings[0].summary.find("registers"), std::string::npos);
}

TEST(ExplainDiagnosis, DramExcessNeedsTheFootprintWhereTheInstructionsReuseData) {
  // Without a footprint the DRAM bytes are below what the instructions asked for: no claim.
  const KernelDiagnosis plain = diagnose(row("reuse_thrash"), context());
  for (const Finding& f : plain.findings) EXPECT_NE(f.kind, FindingKind::dram_excess);
  const KernelDiagnosis told = diagnose(row("reuse_thrash"), context(201326592.0));
  ASSERT_FALSE(told.findings.empty());
  EXPECT_EQ(to_string(told.findings[0].kind), std::string("dram-excess"));
  EXPECT_EQ(told.findings[0].ideal, 201326592.0);
}

TEST(ExplainDiagnosis, FewBytesInFlightIsLatencyBoundAgainstTheCardsLatencyTimesBandwidth) {
  const KernelDiagnosis d = diagnose(row("latency_chain"), context());
  EXPECT_EQ(kinds(d), std::vector<std::string>{"latency-bound"});
  EXPECT_DOUBLE_EQ(d.findings[0].ideal, 3000.0 * 600.0);  // GB/s x ns = bytes
  // Without a measured latency the rule is not judged, and the notes say so.
  DiagnosisContext c = context();
  c.ceilings.dram_latency_ns = 0;
  c.ceilings.latency_source = "not measured";
  const KernelDiagnosis blind = diagnose(row("latency_chain"), c);
  EXPECT_TRUE(blind.findings.empty());
  ASSERT_FALSE(blind.notes.empty());
}

TEST(ExplainDiagnosis, TensorMatmulIsComputeBoundOnly) {
  const KernelDiagnosis d = diagnose(row("bf16_matmul"), context());
  EXPECT_EQ(kinds(d), std::vector<std::string>{"compute-bound"});
  EXPECT_NEAR(d.intensity, 1099511627776.0 / 536870912.0, 1e-6);
  EXPECT_GT(d.intensity, 1000);
}

TEST(ExplainDiagnosis, EveryKindIsReachedByTheFixtures) {
  std::set<FindingKind> seen;
  for (const profile::KernelCounters& k : rows())
    for (const Finding& f : diagnose(k, context(201326592.0)).findings) seen.insert(f.kind);
  for (const profile::KernelCounters& k : rows())
    for (const Finding& f : diagnose(k, context()).findings) seen.insert(f.kind);
  for (FindingKind kind : all_finding_kinds()) EXPECT_TRUE(seen.count(kind)) << to_string(kind);
}

// Each finding cites a source text by title and section, and the section is in that text.
TEST(ExplainSources, EveryKindCitesASectionThatExistsInItsSourceText) {
  namespace fs = std::filesystem;
  const fs::path dir = MEMHIER_SEEDS_DIR;
  const bool have = fs::is_directory(dir);
  auto lower = [](std::string t) {
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
    return t;
  };
  std::map<std::string, std::string> text;  // by title
  for (const claims::Seed& s : claims::seeds()) {
    std::ifstream f(dir / s.file);
    std::stringstream b;
    b << f.rdbuf();
    text[s.title] = lower(b.str());
  }
  for (FindingKind kind : all_finding_kinds()) {
    const std::vector<claims::SourceRef> refs = claims::parse_sources(finding_source(kind));
    ASSERT_FALSE(refs.empty()) << to_string(kind) << ": " << finding_source(kind);
    for (const claims::SourceRef& r : refs) {
      ASSERT_TRUE(text.count(r.origin)) << to_string(kind) << ": " << r.origin;
      if (have) {
        EXPECT_NE(text[r.origin].find(lower(r.section)), std::string::npos)
            << to_string(kind) << ": " << r.origin << " has no section '" << r.section << "'";
      }
    }
  }
  if (!have) GTEST_SKIP() << "titles checked; no source texts at " << dir << " for the sections";
}

// The ceilings say where each comes from: the record's measured figures where it has them,
// the architecture's datasheet figures otherwise.
TEST(ExplainCeilings, MeasuredWhereTheRecordHasThemDatasheetOtherwise) {
  const model::Card card = model::card_of_device("Made-up GPU", 9, 0, 100, 50 << 20, 2000, nullptr);
  const Ceilings none = ceilings_of(card, nullptr, 1500);
  EXPECT_EQ(none.dram.from, model::Provenance::datasheet);
  EXPECT_EQ(none.shared.from, model::Provenance::datasheet);
  EXPECT_DOUBLE_EQ(none.shared.value, 32 * 4 * 100 * 1500 / 1e3);  // banks x width x SMs x MHz
  EXPECT_DOUBLE_EQ(none.fp32.value,
                   model::peak_gflops(card.arch(), model::NumberType::fp32, 100, 1500));
  EXPECT_EQ(none.dram_latency_ns, 0);
  model::CardRecord r;
  r.device_name = "Made-up GPU";
  r.dram_gbps = 1800;
  r.shared_gbps = 18000;
  r.dram_latency_cycles = 900;
  r.sm_clock_mhz = 1500;
  r.when = "synthetic";
  const model::Card measured = model::card_of_device("Made-up GPU", 9, 0, 100, 50 << 20, 2000, &r);
  const Ceilings c = ceilings_of(measured, &r, 1500);
  EXPECT_EQ(c.dram.value, 1800);
  EXPECT_EQ(c.dram.from, model::Provenance::measured);
  EXPECT_EQ(c.shared.value, 18000);
  EXPECT_EQ(c.shared.from, model::Provenance::measured);
  EXPECT_DOUBLE_EQ(c.dram_latency_ns, 600);  // 900 cycles at 1500 MHz
  EXPECT_FALSE(c.dram_copy.value > 0);        // the record has no copy figure
  r.dram_copy_gbps = 1600;
  EXPECT_EQ(ceilings_of(measured, &r, 1500).dram_copy.value, 1600);
}

TEST(ExplainRungs, GainsComeFromTheRecordsBenchTables) {
  const nlohmann::json record = {
      {"sections",
       {{{"id", "bench-transpose"},
         {"tables",
          {{{"id", "bench-transpose"},
            {"rows",
             {{{"variant", "tile"}, {"shape", "4096x4096"}, {"ms", 0.3}},
              {{"variant", "padded"}, {"shape", "4096x4096"}, {"ms", 0.15}}}}}}}},
        {{"id", "roofline"},
         {"tables",
          {{{"id", "roofline-points"},
            {"rows",
             {{{"kernel", "gemm naive"}, {"intensity", 682.0}, {"measured", 498.0}}}}}}}}}}};
  const auto gains = rung_gains(&record);
  EXPECT_DOUBLE_EQ(gains.at(FindingKind::shared_bank_conflicts).gain, 2.0);
  EXPECT_EQ(gains.at(FindingKind::shared_bank_conflicts).shape, "4096x4096");
  EXPECT_TRUE(std::isnan(gains.at(FindingKind::uncoalesced_global).gain));  // not in the record
  EXPECT_EQ(gains.count(FindingKind::near_ceiling), 0u);  // nothing to demonstrate
  const auto pts = ladder_points(record);
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_EQ(pts[0].first, "gemm naive");
}

TEST(ExplainPresent, JsonAndDocumentCarryTheFindingsKinds) {
  ExplainRun run;
  run.program = {"./flawed"};
  run.selection_said = "synthetic";
  for (const profile::KernelCounters& k : rows()) run.kernels.push_back(diagnose(k, context()));
  const nlohmann::json j = explain_json(run, context().ceilings);
  ASSERT_EQ(j["kernels"].size(), 8u);
  EXPECT_EQ(j["kernels"][2]["findings"][0]["kind"], "shared-bank-conflicts");
  EXPECT_EQ(j["ceilings"]["dram_gbps"]["from"], "measured");
  EXPECT_EQ(j["ceilings"]["shared_gbps"]["from"], "datasheet");
  report::Document doc;
  doc.title = "memhier explain";
  doc.sections.push_back(explain_section(run, context().ceilings));
  const std::string md = report::to_markdown(doc);
  EXPECT_NE(md.find("uncoalesced-global"), std::string::npos);
  EXPECT_NE(md.find("register-spills"), std::string::npos);
  EXPECT_FALSE(doc.sections[0].charts.empty());  // the roofline
}

TEST(ExplainSelection, DefaultsToTheFirstLaunchOfEachOfTheFirstKernelsAndSaysSo) {
  ExplainOptions o;
  o.program = {"./p"};
  const auto [sel, said] = explain_selection(o);
  EXPECT_TRUE(sel.from_start);
  EXPECT_TRUE(sel.first_launch_each);
  EXPECT_EQ(sel.launch_count, kDefaultKernels);
  EXPECT_NE(said.find("first launch"), std::string::npos);
  const auto argv =
      profile::ncu_command_for("ncu", "/tmp/l", profile::explain_metrics(), sel, o.program);
  auto has = [&](const std::string& a, const std::string& b) {
    for (std::size_t i = 0; i + 1 < argv.size(); ++i)
      if (argv[i] == a && argv[i + 1] == b) return true;
    return false;
  };
  EXPECT_TRUE(has("--profile-from-start", "on"));
  EXPECT_TRUE(has("--kernel-id", "::regex:.*:1"));
  EXPECT_TRUE(has("--launch-count", std::to_string(kDefaultKernels)));
  EXPECT_EQ(argv.back(), "./p");
  o.kernel_regex = "softmax";
  o.every_launch = true;
  o.launch_skip = 3;
  o.launch_count = 5;
  const auto [every, said2] = explain_selection(o);
  EXPECT_FALSE(every.first_launch_each);
  EXPECT_EQ(every.launch_skip, 3);
  EXPECT_EQ(every.launch_count, 5);
  EXPECT_NE(said2.find("softmax"), std::string::npos);
  o.kernel_regex = "(";
  EXPECT_THROW(explain_selection(o), std::invalid_argument);
  o.kernel_regex = "";
  o.program.clear();
  EXPECT_THROW(explain_selection(o), std::invalid_argument);
}

}  // namespace
}  // namespace memhier::bench
