// The Nsight Compute driver without ncu: CSV parsing by header name, marker assignment,
// the command line, and the access-pattern catalogue's predictions.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "memhier/profile/ncu.hpp"
#include "memhier/profile/patterns.hpp"

namespace memhier::profile {
namespace {

// The shape of `ncu --csv --page raw --print-units base` output: tool lines, a header,
// a units row, one row per kernel; columns in an order the parser must not rely on.
const char* kCsv =
    "==PROF== Connected to process 4242 (/usr/bin/memhier)\n"
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
    "\"Block Size\",\"Grid Size\",\"Device\",\"CC\","
    "\"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum\","
    "\"sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum\","
    "\"launch__registers_per_thread\",\"dram__throughput.avg.pct_of_peak_sustained_elapsed\"\n"
    "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"sector\",\"\",\"register/"
    "thread\",\"%\"\n"
    "\"0\",\"4242\",\"memhier\",\"h\",\"memhier_profile_marker()\",\"1\",\"7\",\"(1, 1, 1)\","
    "\"(3, 1, 1)\",\"0\",\"9.0\",\"0\",\"0\",\"16\",\"0.01\"\n"
    "\"1\",\"4242\",\"memhier\",\"h\",\"void k<float, 4>(const float *, int)\",\"1\",\"7\","
    "\"(32, 8, 1)\",\"(1024, 1, 1)\",\"0\",\"9.0\",\"1,048,576\",\"32\",\"38\",\"87.5\"\n"
    "==PROF== Disconnected from process 4242\n";

TEST(NcuCsv, ParsesRowsByHeaderName) {
  const auto rows = parse_raw_csv(kCsv);
  ASSERT_EQ(rows.size(), 2u);  // the units row is not a kernel
  EXPECT_EQ(rows[0].name, "memhier_profile_marker()");
  EXPECT_EQ(rows[0].grid, "(3, 1, 1)");
  EXPECT_EQ(rows[1].name, "void k<float, 4>(const float *, int)");  // comma inside quotes
  EXPECT_EQ(rows[1].block, "(32, 8, 1)");
  EXPECT_EQ(rows[1].get("global_ld_sectors"), 1048576.0);  // thousands separators
  EXPECT_EQ(rows[1].get("shared_ld_wavefronts"), 32.0);
  EXPECT_EQ(rows[1].get("registers"), 38.0);
  EXPECT_DOUBLE_EQ(rows[1].get("dram_pct"), 87.5);
  EXPECT_TRUE(std::isnan(rows[1].get("global_st_sectors")));  // not in this CSV
}

TEST(NcuCsv, NoHeaderIsAnError) {
  EXPECT_THROW(parse_raw_csv("==ERROR== something failed\n"), NcuError);
  EXPECT_TRUE(parse_raw_csv("\"ID\",\"Kernel Name\"\n").empty());  // header, no kernels
}

TEST(NcuCsv, SplitHandlesQuotesAndEmptyFields) {
  EXPECT_EQ(split_csv_line("a,\"b,c\",,\"d\"\"e\""),
            (std::vector<std::string>{"a", "b,c", "", "d\"e"}));
}

TEST(NcuCommand, CountsOnlyMarkedRangeWithClocksUntouched) {
  const auto argv =
      ncu_command("/x/ncu", "/tmp/log", {"/x/memhier-profile-target", "gemm", "--out", "/tmp/o"});
  auto has = [&](const std::string& a, const std::string& b) {
    for (std::size_t i = 0; i + 1 < argv.size(); ++i)
      if (argv[i] == a && argv[i + 1] == b) return true;
    return false;
  };
  EXPECT_EQ(argv.front(), "/x/ncu");
  EXPECT_TRUE(has("--clock-control", "none"));
  EXPECT_TRUE(has("--profile-from-start", "off"));
  EXPECT_TRUE(has("--page", "raw"));
  EXPECT_TRUE(has("--print-units", "base"));
  EXPECT_EQ(argv[argv.size() - 4], "/x/memhier-profile-target");
  std::set<std::string> keys;
  for (const Metric& m : metrics()) EXPECT_TRUE(keys.insert(m.key).second) << m.key;
}

// The --metrics list of a command line.
std::string metric_list(const std::vector<std::string>& argv) {
  for (std::size_t i = 0; i + 1 < argv.size(); ++i)
    if (argv[i] == "--metrics") return argv[i + 1];
  return {};
}

TEST(NcuCommand, CollectsTheIssueAndTensorPipeCountersAndLeavesOutWhatItIsTold) {
  const std::string hmma = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active";
  const std::string issue = "smsp__issue_active.avg.pct_of_peak_sustained_active";
  const std::string all = metric_list(ncu_command("ncu", "/tmp/log", {"t"}));
  EXPECT_NE(all.find(hmma), std::string::npos);
  EXPECT_NE(all.find(issue), std::string::npos);
  EXPECT_NE(all.find("sm__pipe_tensor_op_gmma_cycles_active"), std::string::npos);
  const std::string fewer = metric_list(ncu_command("ncu", "/tmp/log", {"t"}, false, {hmma}));
  EXPECT_EQ(fewer.find(hmma), std::string::npos);
  EXPECT_NE(fewer.find(issue), std::string::npos);
  EXPECT_EQ(fewer.size(), all.size() - hmma.size() - 1);  // one name and its comma
  // Pattern runs take the access counters only: no pipe counters to drop there.
  EXPECT_EQ(metric_list(ncu_command("ncu", "/tmp/log", {"t"}, true)).find(issue),
            std::string::npos);
}

TEST(NcuOutput, AFailedRunLeavesOutTheOptionalMetricsItNames) {
  std::set<std::string> optional;
  for (const Metric& m : metrics())
    if (m.optional) optional.insert(m.metric);
  ASSERT_GE(optional.size(), 4u);
  // Named by its base name only: that one goes, the others stay.
  const auto named = optional_to_leave_out(
      "==ERROR== Failed to find metric sm__pipe_tensor_op_gmma_cycles_active", false);
  ASSERT_EQ(named.size(), 1u);
  EXPECT_EQ(named[0], "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active");
  // Named by no name and for no known reason: every optional one, so the retry is plain.
  const auto all = optional_to_leave_out("==ERROR== something went wrong", false);
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()), optional);
  // A reason a retry cannot mend (no permission): none, and the caller says why.
  EXPECT_TRUE(optional_to_leave_out("==ERROR== ERR_NVGPUCTRPERM", false).empty());
  // Pattern runs collect the access counters only: of the optional ones, ldmatrix's.
  EXPECT_EQ(
      optional_to_leave_out("==ERROR== something went wrong", true),
      std::vector<std::string>{"sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum"});
}

TEST(NcuOutput, RecognizesMissingPermission) {
  EXPECT_NE(counters_unavailable_reason("==ERROR== ERR_NVGPUCTRPERM - The user does not have"), "");
  EXPECT_EQ(counters_unavailable_reason("==PROF== Disconnected"), "");
}

// A hung ncu must not hold the report: the command and its children are killed at the limit.
TEST(NcuRun, ACommandPastItsLimitIsKilled) {
  std::string out;
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(memhier::profile::run_command({"sh", "-c", "echo started; sleep 30 & wait"}, out, 1),
            memhier::profile::kTimedOut);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 10.0);
  EXPECT_EQ(out, "started\n");
  EXPECT_EQ(memhier::profile::run_command({"sh", "-c", "echo done"}, out, 5), 0);
  EXPECT_EQ(out, "done\n");
}

TEST(NcuRun, TheLimitComesFromTheEnvironment) {
  ::unsetenv("MEMHIER_NCU_TIMEOUT");
  EXPECT_EQ(memhier::profile::ncu_timeout_s(), 300);
  ::setenv("MEMHIER_NCU_TIMEOUT", "42", 1);
  EXPECT_EQ(memhier::profile::ncu_timeout_s(), 42);
  ::setenv("MEMHIER_NCU_TIMEOUT", "soon", 1);
  EXPECT_EQ(memhier::profile::ncu_timeout_s(), 300);
  ::unsetenv("MEMHIER_NCU_TIMEOUT");
}

TEST(Patterns, CatalogueCoversTheIssueList) {
  const auto all = patterns("all");
  std::set<std::string> names;
  for (const Pattern& p : all) EXPECT_TRUE(names.insert(p.set + "/" + p.name).second) << p.name;
  for (const char* n :
       {"shared-stride/ld 4B stride 33", "shared-stride/st 16B stride 1",
        "shared-stride/ld 8B d[lane/2]", "shared-stride/ld 16B v[lane/4]",
        "shared-stride/ld 1B stride 1", "shared-stride/ld 2B stride 1",
        "shared-stride/ld 4B broadcast", "global-stride/ld 4B stride 1 misaligned by 4 B",
        "global-stride/ld 4B scattered words in 1 MiB"})
    EXPECT_EQ(names.count(n), 1u) << n;
  EXPECT_THROW(patterns("latency"), std::invalid_argument);
  EXPECT_LE(pattern_extent(all, true), 48u * 1024u);
}

TEST(Patterns, PredictionsFollowTheBankRules) {
  for (const Pattern& p : patterns("shared-stride")) {
    const model::AccessCounts c = predict(p);
    if (p.name == "ld 4B stride 32") {
      EXPECT_EQ(c.shared_ld_wavefronts, 32);
    }
    if (p.name == "ld 4B stride 1") {
      EXPECT_EQ(c.shared_ld_wavefronts, 1);
    }
    if (p.name == "ld 16B stride 1") {
      EXPECT_EQ(c.shared_ld_wavefronts, 4);
    }
    if (p.name == "st 4B stride 2") {
      EXPECT_EQ(c.shared_st_wavefronts, 2);
    }
    EXPECT_EQ(c.global_ld_requests + c.global_st_requests, 0);
  }
  for (const Pattern& p : patterns("global-stride")) {
    const model::AccessCounts c = predict(p);
    if (p.name == "ld 4B stride 1") {
      EXPECT_EQ(c.global_ld_sectors, 4);
    }
    if (p.name == "ld 4B stride 1 misaligned by 4 B") {
      EXPECT_EQ(c.global_ld_sectors, 5);
    }
    if (p.name == "st 4B stride 8") {
      EXPECT_EQ(c.global_st_sectors, 32);
    }
    EXPECT_EQ(c.shared_ld_wavefronts + c.shared_st_wavefronts, 0);
  }
}

}  // namespace
}  // namespace memhier::profile
