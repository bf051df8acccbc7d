// explain's profiled run (bench::profile_program) without a GPU: a stand-in for ncu (a shell
// script named by MEMHIER_NCU) writes a made-up CSV to the log file it is given, so the command
// line, the retry without unknown counters, the permission sentence and the selection's words
// are checked on any machine. The CSV's numbers are synthetic, not measurements.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "memhier/bench/explain.hpp"
#include "memhier/bench/profile.hpp"

namespace {

namespace fs = std::filesystem;
using namespace memhier;

// Two launches, out of order, with one counter: what the stand-in prints.
const char* kCsv =
    "\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"gpu__time_duration.sum\"\n"
    "\"\",\"\",\"\",\"\",\"nsecond\"\n"
    "\"7\",\"second(int)\",\"(256, 1, 1)\",\"(4, 1, 1)\",\"2000\"\n"
    "\"3\",\"first(float *)\",\"(128, 1, 1)\",\"(8, 1, 1)\",\"1000\"\n";

// A stand-in ncu: records its arguments, then runs `body` with $log the --log-file path.
class FakeNcu : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("memhier-fake-ncu-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "rows.csv") << kCsv;
  }
  void TearDown() override {
    ::unsetenv("MEMHIER_NCU");
    fs::remove_all(dir_);
  }
  void install(const std::string& body) {
    const fs::path script = dir_ / "ncu";
    std::ofstream(script) << "#!/bin/sh\n"
                          << "echo \"$@\" >> '" << (dir_ / "args").string() << "'\n"
                          << "log=''; prev=''\n"
                          << "for a in \"$@\"; do [ \"$prev\" = --log-file ] && log=\"$a\"; "
                             "prev=\"$a\"; done\n"
                          << body << "\n";
    ::chmod(script.c_str(), 0755);
    ::setenv("MEMHIER_NCU", script.c_str(), 1);
  }
  std::string args() const {
    std::ifstream f(dir_ / "args");
    return std::string(std::istreambuf_iterator<char>(f), {});
  }
  fs::path dir_;
};

bench::ExplainOptions program() {
  bench::ExplainOptions o;
  o.program = {"/bin/true", "--size", "4096"};
  o.timeout_s = 30;
  return o;
}

TEST_F(FakeNcu, RowsComeBackInLaunchOrderWithTheSelectionInWords) {
  install("cp '" + (dir_ / "rows.csv").string() + "' \"$log\"");
  const bench::ExplainRun run = bench::profile_program(program(), [](const std::string&) {});
  ASSERT_EQ(run.kernels.size(), 2u);
  EXPECT_EQ(run.kernels[0].counters.id, 3);
  EXPECT_EQ(run.kernels[0].counters.name, "first(float *)");
  EXPECT_EQ(run.kernels[1].counters.get("duration_ns"), 2000.0);
  EXPECT_NE(run.selection_said.find("2 launches profiled"), std::string::npos)
      << run.selection_said;
  const std::string a = args();
  EXPECT_NE(a.find("--profile-from-start on"), std::string::npos) << a;
  EXPECT_NE(a.find("--kernel-id ::regex:.*:1"), std::string::npos) << a;
  EXPECT_NE(a.find("/bin/true --size 4096"), std::string::npos) << a;  // the program last
}

TEST_F(FakeNcu, AReachedLimitSaysWhereToGoOn) {
  install("cp '" + (dir_ / "rows.csv").string() + "' \"$log\"");
  bench::ExplainOptions o = program();
  o.launch_count = 2;
  o.launch_skip = 4;
  const bench::ExplainRun run = bench::profile_program(o, [](const std::string&) {});
  EXPECT_NE(run.selection_said.find("--launch-skip 6"), std::string::npos) << run.selection_said;
}

TEST_F(FakeNcu, AnUnknownOptionalCounterIsLeftOutOfOneRetry) {
  // The first run names an optional counter it does not know and fails; the retry must not
  // ask for it again.
  install(
      "case \"$*\" in *sm__ops_path_tensor_src_bf16_dst_fp32*) "
      "echo '==ERROR== Failed to find metric sm__ops_path_tensor_src_bf16_dst_fp32'; "
      "exit 1;; esac\ncp '" +
      (dir_ / "rows.csv").string() + "' \"$log\"");
  const bench::ExplainRun run = bench::profile_program(program(), [](const std::string&) {});
  EXPECT_EQ(run.kernels.size(), 2u);
  const std::string a = args();
  EXPECT_EQ(std::count(a.begin(), a.end(), '\n'), 2) << a;  // two runs
  const std::string retry = a.substr(a.find('\n') + 1);
  EXPECT_EQ(retry.find("sm__ops_path_tensor_src_bf16_dst_fp32"), std::string::npos);
  EXPECT_NE(retry.find("sm__ops_path_tensor_src_tf32_dst_fp32"), std::string::npos);
}

TEST_F(FakeNcu, NoPermissionIsProfilerUnavailableInOneSentence) {
  install("echo '==ERROR== ERR_NVGPUCTRPERM - The user does not have permission'; exit 1");
  try {
    bench::profile_program(program(), [](const std::string&) {});
    FAIL() << "no exception";
  } catch (const bench::ProfilerUnavailable& e) {
    EXPECT_NE(std::string(e.what()).find("ERR_NVGPUCTRPERM"), std::string::npos);
  }
}

TEST_F(FakeNcu, NoKernelProfiledIsAnErrorThatSaysWhy) {
  install("printf '\"ID\",\"Kernel Name\"\\n' > \"$log\"");
  EXPECT_THROW(bench::profile_program(program(), [](const std::string&) {}), std::runtime_error);
}

}  // namespace
