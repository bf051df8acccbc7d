// A report's measurements as they cross to and from a child process after a fault loses the
// GPU to the report's process (bench/continuation.hpp): the resume point and the measurements
// read back as they were written, a child's part merges after the parent's, and the item that
// lost the GPU says what became of the rest.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "memhier/bench/continuation.hpp"
#include "memhier/results/claim_id.hpp"

namespace memhier::bench {
namespace {

using Stage = ResumePoint::Stage;

results::BenchRecord record(const std::string& family, const std::string& variant,
                            const std::string& shape, double ms) {
  results::BenchRecord r;
  r.family = family;
  r.variant = variant;
  r.shape = shape;
  r.ms = ms;
  r.verified = std::isfinite(ms);
  return r;
}

FamilyOutcome family(const std::string& name, std::vector<results::BenchRecord> records) {
  FamilyOutcome f;
  f.family = name;
  f.records = std::move(records);
  return f;
}

TEST(Continuation, ResumePointReadsBackAndRefusesOthers) {
  for (const ResumePoint& at :
       {ResumePoint{Stage::probes, "latency", "", "", ""},
        ResumePoint{Stage::ladders, "", "gemm", "4096x4096x4096", "reg_tile_2d"},
        ResumePoint{Stage::ladders, "", "softmax", "", ""},
        ResumePoint{Stage::sweep, "", "gemm_bf16", "16x8192x8192", "best"},
        ResumePoint{Stage::sweep, "", "", "", ""}, ResumePoint{Stage::profiles, "", "", "", ""}})
    EXPECT_TRUE(resume_point_from_json(to_json(at)) == at) << to_json(at).dump();
  EXPECT_THROW(resume_point_from_json(nlohmann::json::parse(R"({"stage": "elsewhere"})")),
               std::invalid_argument);
  EXPECT_THROW(resume_point_from_json(nlohmann::json::parse(R"({"family": "gemm"})")),
               std::invalid_argument);
  EXPECT_THROW(resume_point_from_json(nlohmann::json::parse("[1]")), std::invalid_argument);
}

// The report's stages in run order, by the names a child's resume point gives them: the
// sweep of shapes comes after the ladders and before the profiles.
TEST(Continuation, TheSweepIsAStageBetweenTheLaddersAndTheProfiles) {
  std::vector<std::string> names;
  for (const Stage st : {Stage::probes, Stage::ladders, Stage::sweep, Stage::profiles})
    names.push_back(to_json(ResumePoint{st, "", "", "", ""})["stage"].get<std::string>());
  EXPECT_EQ(names, (std::vector<std::string>{"probes", "ladders", "sweep", "profiles"}));
  EXPECT_LT(static_cast<int>(Stage::ladders), static_cast<int>(Stage::sweep));
  EXPECT_LT(static_cast<int>(Stage::sweep), static_cast<int>(Stage::profiles));
  EXPECT_EQ(resume_point_from_json(nlohmann::json::parse(R"({"stage": "sweep"})")).stage,
            Stage::sweep);
}

// A family's sweep travels as its own outcome, apart from its ladder of the same name: a
// child resumed in the sweep joins the parent's sweep of that family, not its ladder.
TEST(Continuation, ASweepOutcomeKeepsItsStageAcrossTheChild) {
  Measured parent;
  parent.families.push_back(family("gemm", {record("gemm", "naive", "64", 1.0)}));
  FamilyOutcome swept = family("gemm", {record("gemm", "best", "1024x1024x1024", 1.0)});
  swept.sweep = true;
  Measured child;
  child.families.push_back(swept);
  const Measured back = measured_from_json(to_json(child));
  ASSERT_EQ(back.families.size(), 1u);
  EXPECT_TRUE(back.families[0].sweep);
  merge(parent, back);
  ASSERT_EQ(parent.families.size(), 2u);  // the ladder's gemm and the sweep's, apart
  EXPECT_FALSE(parent.families[0].sweep);
  EXPECT_TRUE(parent.families[1].sweep);
  Measured more;
  more.families.push_back(family("gemm", {record("gemm", "best", "16x8192x8192", 2.0)}));
  more.families.back().sweep = true;
  merge(parent, more);
  ASSERT_EQ(parent.families.size(), 2u);  // the sweep's gemm goes on
  EXPECT_EQ(parent.families[1].records.size(), 2u);
}

TEST(Continuation, MeasurementsReadBackWhole) {
  Measured m;
  m.probes_ran = true;
  m.sm_clock_mhz = 1755;
  report::Section s;
  s.id = "latency";
  s.title = "latency: pointer chase";
  s.paragraphs = {"Not measured: a kernel faulted."};
  report::Table t;
  t.id = "latency-tiers";
  t.columns = {{"tier", "", "tier"}, {"latency", "cycles", "cycles"}};
  t.rows = {{report::Value::str("L2"), report::Value::num(261.5, 1)}};
  s.tables.push_back(t);
  const auto claim = static_cast<results::ClaimId>(0);
  results::Check c(claim, "261 cycles", {results::Verdict::refuted, "refuted: far off"});
  c.by = results::Checker::probe("latency");
  c.share.gbps = 3000;
  s.checks.push_back(c);
  m.probe_sections.push_back(s);
  m.tiers.push_back({"L2", 261.5, NAN, "50 MiB", 52428800.0, ""});
  m.probe_names = {"latency"};
  results::BenchRecord r = record("transpose", "padded", "4096x4096", 0.125);
  r.x_vendor = 1.5;
  r.x_vendor_spread = {1.4, NAN};
  r.number_type = model::NumberType::bf16;
  r.bound = results::Bound::compute;
  r.bad_elements = 3;
  r.note = "not measured: out of GPU memory";
  m.families.push_back(family("transpose", {r, record("transpose", "naive", "4096x4096", NAN)}));
  report::Section failed;
  failed.id = "bench-gemm";
  failed.paragraphs = {"Not measured: the GPU was lost."};
  m.families.push_back(family("gemm", {}));
  m.families.back().failed = failed;
  m.stopped = ResumePoint{Stage::ladders, "", "transpose", "8192x8192", "padded"};
  m.fault = {std::nullopt, std::size_t{0}, std::size_t{1}};

  // Through the text a child writes, as a parent reads it.
  const Measured back = measured_from_json(nlohmann::json::parse(to_json(m).dump()));
  EXPECT_TRUE(back.probes_ran);
  EXPECT_EQ(back.sm_clock_mhz, 1755);
  ASSERT_EQ(back.probe_sections.size(), 1u);
  const report::Section& bs = back.probe_sections[0];
  EXPECT_EQ(bs.id, "latency");
  EXPECT_EQ(bs.paragraphs, s.paragraphs);
  ASSERT_EQ(bs.tables.size(), 1u);
  EXPECT_EQ(bs.tables[0].rows[0][1].number, 261.5);
  ASSERT_EQ(bs.checks.size(), 1u);
  EXPECT_EQ(bs.checks[0].id, claim);
  EXPECT_EQ(bs.checks[0].verdict, results::Verdict::refuted);
  EXPECT_EQ(bs.checks[0].detail, "refuted: far off");
  EXPECT_TRUE(bs.checks[0].by == results::Checker::probe("latency"));
  EXPECT_EQ(bs.checks[0].share.gbps, 3000);
  EXPECT_TRUE(std::isnan(bs.checks[0].share.claimed_lo));
  ASSERT_EQ(back.tiers.size(), 1u);
  EXPECT_EQ(back.tiers[0].latency_cycles, 261.5);
  EXPECT_TRUE(std::isnan(back.tiers[0].bandwidth_gbps));
  EXPECT_EQ(back.tiers[0].size_bytes, 52428800.0);
  ASSERT_EQ(back.families.size(), 2u);
  const results::BenchRecord& br = back.families[0].records.at(0);
  EXPECT_EQ(br.variant, "padded");
  EXPECT_EQ(br.ms, 0.125);
  EXPECT_EQ(br.x_vendor, 1.5);
  EXPECT_EQ(br.x_vendor_spread.p10, 1.4);
  EXPECT_TRUE(std::isnan(br.x_vendor_spread.p90));
  EXPECT_EQ(br.number_type, model::NumberType::bf16);
  EXPECT_EQ(br.bound, results::Bound::compute);
  EXPECT_EQ(br.bad_elements, 3u);
  EXPECT_EQ(br.note, r.note);
  EXPECT_TRUE(std::isnan(back.families[0].records.at(1).ms));
  EXPECT_FALSE(back.families[0].failed);
  ASSERT_TRUE(back.families[1].failed);
  EXPECT_EQ(back.families[1].failed->paragraphs, failed.paragraphs);
  ASSERT_TRUE(back.stopped);
  EXPECT_TRUE(*back.stopped == *m.stopped);
  EXPECT_EQ(back.fault.family, std::size_t{0});
  EXPECT_EQ(back.fault.record, std::size_t{1});
  EXPECT_FALSE(back.fault.probe_section);
  EXPECT_THROW(measured_from_json(nlohmann::json::parse(R"({"schema": "memhier.report"})")),
               std::invalid_argument);
}

// A family the parent stopped in midway goes on with the child's records; the child's later
// families, its stop and its fault (shifted to the parent's indices) follow.
TEST(Continuation, ChildPartMergesAfterTheParents) {
  Measured parent;
  parent.probes_ran = true;
  parent.probe_sections.resize(3);
  parent.families.push_back(family("reduction", {record("reduction", "naive", "1", 1.0)}));
  results::BenchRecord trap = record("fault", "traps", "1024", NAN);
  trap.not_measured = "a kernel faulted";
  trap.note = "not measured: a kernel faulted";
  parent.families.push_back(family("fault", {record("fault", "copies", "1024", 1.0), trap}));
  parent.stopped = ResumePoint{Stage::ladders, "", "fault", "1024", "after_the_trap"};
  parent.fault = {std::nullopt, std::size_t{1}, std::size_t{1}};
  amend_fault(parent, "the rest of the run was measured in a child process");
  EXPECT_EQ(parent.families[1].records[1].note,
            "not measured: a kernel faulted; the rest of the run was measured in a child process");
  EXPECT_EQ(parent.families[1].records[1].not_measured,
            "a kernel faulted; the rest of the run was measured in a child process");
  EXPECT_FALSE(parent.fault.family);

  Measured child;
  child.families.push_back(family("fault", {record("fault", "after_the_trap", "1024", 2.0),
                                            record("fault", "traps", "4096", NAN)}));
  child.families.push_back(family("stencil", {record("stencil", "naive", "64", 3.0)}));
  child.stopped = ResumePoint{Stage::profiles, "", "", "", ""};
  child.fault = {std::nullopt, std::size_t{0}, std::size_t{1}};
  merge(parent, child);
  ASSERT_EQ(parent.families.size(), 3u);
  EXPECT_EQ(parent.probe_sections.size(), 3u);  // the child measured no probes
  const std::vector<results::BenchRecord>& fault = parent.families[1].records;
  ASSERT_EQ(fault.size(), 4u);
  EXPECT_EQ(fault[2].variant, "after_the_trap");
  EXPECT_EQ(parent.families[2].family, "stencil");
  ASSERT_TRUE(parent.stopped);
  EXPECT_EQ(parent.stopped->stage, Stage::profiles);
  // The child's fault was its first family's second row: the parent's fourth of that family.
  EXPECT_EQ(parent.fault.family, std::size_t{1});
  EXPECT_EQ(parent.fault.record, std::size_t{3});

  // A fault in a later family of the child's keeps its row, at that family's place.
  Measured next;
  next.families.push_back(family("histogram", {}));
  next.families.push_back(family("gemm", {record("gemm", "naive", "64", NAN)}));
  next.fault = {std::nullopt, std::size_t{1}, std::size_t{0}};
  merge(parent, next);
  EXPECT_EQ(parent.fault.family, std::size_t{4});
  EXPECT_EQ(parent.fault.record, std::size_t{0});
  EXPECT_FALSE(parent.stopped);
}

TEST(Continuation, ProbesOfTheChildFollowTheParentsAndTheFaultSaysWhatFollowed) {
  Measured parent;
  parent.probes_ran = true;
  parent.sm_clock_mhz = 1980;
  report::Section trap;
  trap.id = "fault-trap";
  trap.paragraphs = {"Not measured: a kernel faulted."};
  parent.probe_sections = {report::Section{}, trap};
  parent.tiers.push_back({"L1", 33, NAN, "", NAN, ""});
  parent.fault = {std::size_t{1}, std::nullopt, std::nullopt};
  amend_fault(parent, "the rest of the run was measured in a child process");
  EXPECT_EQ(parent.probe_sections[1].paragraphs[0],
            "Not measured: a kernel faulted; the rest of the run was measured in a child "
            "process.");

  Measured child;
  child.probes_ran = true;
  child.sm_clock_mhz = 1700;
  report::Section later;
  later.id = "bandwidth";
  child.probe_sections = {later, later};
  child.tiers.push_back({"HBM", NAN, 4000, "", NAN, "bandwidth"});
  child.probe_names = {"bandwidth", "outer"};
  child.fault = {std::size_t{1}, std::nullopt, std::nullopt};
  merge(parent, child);
  EXPECT_EQ(parent.sm_clock_mhz, 1980);  // the parent's clock converts its cycles
  ASSERT_EQ(parent.probe_sections.size(), 4u);
  EXPECT_EQ(parent.probe_sections[2].id, "bandwidth");
  EXPECT_EQ(parent.tiers.size(), 2u);
  EXPECT_EQ(parent.probe_names.size(), 2u);
  EXPECT_EQ(parent.fault.probe_section, std::size_t{3});
}

}  // namespace
}  // namespace memhier::bench
