// The run pipeline under injected faults (fault_family.hpp): a probe whose CUDA call fails, a
// probe and a variant whose kernels trap (the context breaks), a variant that runs out of GPU
// memory. The report must complete, each faulty item must read "not measured: why", and what
// follows is measured: in this process after a device reset, or, where the driver gives the
// process no new context, in a child process (memhier_fault_child), and in another after the
// child's own fault.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "fault_family.hpp"
#include "gpu_test_util.hpp"
#include "memhier/bench/guard.hpp"
#include "memhier/report/writers.hpp"
#include "memhier/run/pipeline.hpp"

namespace memhier::testing {
namespace {

// The row of `variant` at `shape` in the family's table, as JSON.
nlohmann::json row(const nlohmann::json& doc, const std::string& variant,
                   const std::string& shape) {
  for (const auto& s : doc["sections"])
    if (s["id"] == "bench-fault")
      for (const auto& t : s["tables"])
        if (t["id"] == "bench-fault")
          for (const auto& r : t["rows"])
            if (r["variant"] == variant && r["shape"] == shape) return r;
  return nullptr;
}

std::string slurp_file(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string text(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

// The first paragraph of the section with this id ("" when there is none).
std::string paragraph(const nlohmann::json& doc, const std::string& id) {
  for (const auto& s : doc["sections"])
    if (s["id"] == id && !s["paragraphs"].empty()) return s["paragraphs"][0].get<std::string>();
  return "";
}

// Whether any paragraph of the summary holds `part`.
bool summary_says(const nlohmann::json& doc, const std::string& part) {
  for (const auto& s : doc["sections"])
    if (s["id"] == "summary")
      for (const auto& p : s["paragraphs"])
        if (p.get<std::string>().find(part) != std::string::npos) return true;
  return false;
}

// The report of the registered faults, quick, into a fresh folder; its files checked whole.
nlohmann::json faulty_report(const std::string& isolate_with) {
  const auto dir =
      std::filesystem::temp_directory_path() /
      ("memhier-faults-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::remove_all(dir);
  run::Options o;
  o.out = dir.string();
  o.quick = true;
  o.no_profile = true;
  o.no_torch = true;
  o.isolate_with = isolate_with;
  int said = 0;
  o.say = [&said](const std::string& sentence) {  // shown, as the command shows it
    ++said;
    std::cerr << "memhier: " << sentence << "\n";
  };
  // Completing without an exception is what makes `memhier report` exit 0 (README).
  report::Document doc;
  EXPECT_NO_THROW(doc = run::run_report(o));
  for (const char* f : {"index.html", "report.md", "results.json"})
    EXPECT_TRUE(std::filesystem::exists(dir / f)) << f;
  const nlohmann::json written = nlohmann::json::parse(slurp_file(dir / "results.json"));
  EXPECT_FALSE(written.contains("partial")) << "the final results.json is marked partial";
  std::filesystem::remove_all(dir);
  nlohmann::json j = report::to_json(doc);
  j["said"] = said;  // the lines the run said apart from its progress
  return j;
}

// Every row of every ladder that says the GPU was lost to the test's process.
int lost_rows(const nlohmann::json& doc) {
  int n = 0;
  for (const auto& s : doc["sections"])
    for (const auto& t : s["tables"])
      for (const auto& r : t["rows"])
        n += text(r, "note").find("the GPU was lost to this process") != std::string::npos;
  return n;
}

void expect_oom(const nlohmann::json& j, const std::string& shape) {
  const std::string oom = text(row(j, "runs_out_of_memory", shape), "note");
  EXPECT_EQ(oom.rfind("not measured: out of GPU memory (another process may hold it) while "
                      "allocating ",
                      0),
            0u)
      << shape << ": " << oom;
  EXPECT_NE(oom.find(" MiB"), std::string::npos) << oom;
}

// The sweep after the ladders (here, after the faults, in whichever process measured the
// rest): one section, each swept family's table with a quick report's three shapes, all
// verified, and one chart with a series per family.
void expect_quick_sweep(const nlohmann::json& doc) {
  const nlohmann::json* sweep = nullptr;
  for (const auto& s : doc["sections"])
    if (s["id"] == "sweep") sweep = &s;
  ASSERT_NE(sweep, nullptr) << "no sweep section in the report";
  int tables = 0;
  for (const auto& t : (*sweep)["tables"]) {
    const std::string id = t["id"].get<std::string>();
    if (id.rfind("sweep-", 0) != 0) continue;  // the claims table
    ++tables;
    ASSERT_EQ(t["rows"].size(), 3u) << id;
    for (const auto& r : t["rows"]) EXPECT_EQ(text(r, "verified"), "yes") << id << " " << r.dump();
  }
  EXPECT_EQ(tables, 2);  // gemm and gemm_bf16
  ASSERT_EQ((*sweep)["charts"].size(), 1u);
  EXPECT_EQ((*sweep)["charts"][0]["series"].size(), 2u);
}

TEST(RunFaults, ReportCompletesAndEachFaultSaysWhy) {
  MEMHIER_REQUIRE_GPU(dev);
  register_faults();
  const nlohmann::json j = faulty_report(MEMHIER_FAULT_CHILD);

  // The probe whose call fails: its section says why, in a sentence.
  const std::string cuda = paragraph(j, "fault-cuda-error");
  EXPECT_EQ(cuda.rfind("Not measured: CUDA reported", 0), 0u) << cuda;
  const std::string probe_trap = paragraph(j, "fault-trap");
  EXPECT_EQ(probe_trap.rfind("Not measured: a kernel faulted", 0), 0u) << probe_trap;

  const std::string second = "4096";
  EXPECT_EQ(text(row(j, "copies", kFirstShape), "verified"), "yes");
  expect_oom(j, kFirstShape);
  const std::string trap = text(row(j, "traps", kFirstShape), "note");
  EXPECT_EQ(trap.rfind("not measured: a kernel faulted", 0), 0u) << trap;
  const std::string after = text(row(j, "after_the_trap", kFirstShape), "note");
  // What follows each trap is measured, here or in a child process; nothing reads "lost".
  EXPECT_EQ(lost_rows(j), 0);
  EXPECT_EQ(text(row(j, "copies", second), "verified"), "yes");
  EXPECT_EQ(text(row(j, "after_the_trap", second), "verified"), "yes");
  EXPECT_EQ(text(row(j, "traps", second), "verified").rfind("declined", 0), 0u);
  expect_oom(j, second);
  expect_quick_sweep(j);
  if (probe_trap.find("the device was reset") != std::string::npos) {
    // A driver that gives the process a new context: the run goes on in it.
    EXPECT_NE(trap.find("the device was reset"), std::string::npos) << trap;
    EXPECT_EQ(after.rfind("not measured: the device was reset after traps", 0), 0u) << after;
    EXPECT_EQ(j["said"], 0);
    return;
  }
  // A driver that gives the process no new context: the probe's trap sends the ladders to a
  // child process, whose own trap at the family's first shape sends the rest to a second.
  const std::string moved = "the rest of the run was measured in a child process";
  EXPECT_NE(probe_trap.find("cannot be restored in this process"), std::string::npos) << probe_trap;
  EXPECT_NE(probe_trap.find(moved), std::string::npos) << probe_trap;
  EXPECT_NE(trap.find("cannot be restored in this process"), std::string::npos) << trap;
  EXPECT_NE(trap.find(moved), std::string::npos) << trap;
  EXPECT_EQ(text(row(j, "after_the_trap", kFirstShape), "verified"), "yes") << after;
  EXPECT_TRUE(summary_says(j, "ran in 2 child processes"));
  EXPECT_EQ(j["said"], 2);
  // A built-in ladder measured in the first child: its rows came back typed and whole.
  const nlohmann::json copy_row = [&] {
    for (const auto& s : j["sections"])
      if (s["id"] == "bench-transpose")
        for (const auto& r : s["tables"][0]["rows"])
          if (r["variant"] == "cudaMemcpy D2D") return r;
    return nlohmann::json();
  }();
  ASSERT_TRUE(copy_row.is_object()) << "no transpose ladder measured in the child";
  EXPECT_TRUE(copy_row["ms"].is_number());
}

// Where no child can take over (its program is missing), the items after the fault say that
// the GPU was lost, and the faulty item says why nothing followed.
TEST(RunFaults, WithoutAChildTheRestSaysTheGpuWasLost) {
  MEMHIER_REQUIRE_GPU(dev);
  if (!bench::gpu_lost().empty()) GTEST_SKIP() << "an earlier test lost the GPU to this process";
  register_faults();
  const nlohmann::json j = faulty_report("/nonexistent/memhier");
  const std::string probe_trap = paragraph(j, "fault-trap");
  if (probe_trap.find("the device was reset") != std::string::npos)
    GTEST_SKIP() << "this driver gives the process a new context: nothing is isolated";
  EXPECT_NE(probe_trap.find("nothing after it is measured on the GPU in this run (a child "
                            "process could not take over: it could not be started)"),
            std::string::npos)
      << probe_trap;
  EXPECT_EQ(j["said"], 1);
  // Every row of the ladders after the probe's trap says so.
  const std::string lost =
      "not measured: the GPU was lost to this process earlier in the run "
      "(a kernel faulted";
  for (const char* v : {"copies", "runs_out_of_memory", "traps", "after_the_trap"})
    for (const std::string& shape : {std::string(kFirstShape), std::string("4096")}) {
      const std::string note = text(row(j, v, shape), "note");
      EXPECT_EQ(note.rfind(lost, 0), 0u) << v << " at " << shape << ": " << note;
    }
}

// `memhier bench` over the fault family: the trap's context is lost, the rest of the family
// (the variant after the trap, the next shape) runs in a child process and comes back.
TEST(RunFaults, BenchMeasuresPastTheTrapInAChildProcess) {
  MEMHIER_REQUIRE_GPU(dev);
  if (!bench::gpu_lost().empty()) GTEST_SKIP() << "an earlier test lost the GPU to this process";
  register_faults();
  run::BenchOptions o;
  o.family = "fault";
  o.quick = true;
  o.isolate_with = MEMHIER_FAULT_CHILD;
  int said = 0;
  o.say = [&said](const std::string& sentence) {  // shown, as the command shows it
    ++said;
    std::cerr << "memhier: " << sentence << "\n";
  };
  report::Document doc;
  ASSERT_NO_THROW(doc = run::run_bench(o));
  const nlohmann::json j = report::to_json(doc);
  const std::string trap = text(row(j, "traps", kFirstShape), "note");
  EXPECT_EQ(trap.rfind("not measured: a kernel faulted", 0), 0u) << trap;
  EXPECT_EQ(lost_rows(j), 0);
  EXPECT_EQ(text(row(j, "copies", "4096"), "verified"), "yes");
  EXPECT_EQ(text(row(j, "after_the_trap", "4096"), "verified"), "yes");
  expect_oom(j, "4096");
  if (trap.find("the device was reset") != std::string::npos) {
    EXPECT_EQ(said, 0);
    return;
  }
  EXPECT_NE(trap.find("the rest of the run was measured in a child process"), std::string::npos)
      << trap;
  EXPECT_EQ(text(row(j, "after_the_trap", kFirstShape), "verified"), "yes");
  EXPECT_EQ(said, 1);
  // The ceilings of the resumed shape are not repeated: one cudaMemcpy row per shape.
  int copies = 0;
  for (const auto& r : j["sections"][0]["tables"][0]["rows"])
    copies += r["variant"] == "cudaMemcpy D2D" && r["shape"] == kFirstShape;
  EXPECT_EQ(copies, 1);
}

}  // namespace
}  // namespace memhier::testing
