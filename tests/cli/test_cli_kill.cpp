// A `memhier report` killed at any moment leaves the previous report files whole: each file
// is the previous one or a complete new one, never a truncated mix.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "../common/run_memhier.hpp"

namespace {

namespace fs = std::filesystem;
using memhier::testing::Result;
using memhier::testing::run;
using memhier::testing::slurp;

// Starts `memhier report --no-gpu` into `dir` and kills it (SIGKILL) after `delay`; returns
// whether it had already finished by itself.
bool kill_report_after(const fs::path& dir, std::chrono::microseconds delay) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (!std::freopen("/dev/null", "w", stdout) || !std::freopen("/dev/null", "w", stderr))
      std::_Exit(126);
    ::execl(MEMHIER_BIN, MEMHIER_BIN, "report", "--out", dir.c_str(), "--quiet", "--no-gpu",
            static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  std::this_thread::sleep_for(delay);
  int status = 0;
  const bool finished = ::waitpid(pid, &status, WNOHANG) == pid;
  if (!finished) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  return finished;
}

// Whether `text` is a whole report file of its kind (a run writes each in one piece).
bool whole(const std::string& name, const std::string& text) {
  if (name == "results.json") {
    const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    return j.is_object() && j.value("schema", "") == "memhier.report" && j.contains("sections");
  }
  if (name == "index.html") return text.size() > 1000 && text.rfind("</html>") != std::string::npos;
  return text.size() > 1000 && text.back() == '\n';
}

}  // namespace

TEST(CliKill, AKilledReportLeavesThePreviousFilesWhole) {
  const fs::path dir = fs::temp_directory_path() / ("memhier_kill_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const Result first = run({"report", "--out", dir.string(), "--quiet", "--no-gpu"});
  ASSERT_EQ(first.status, 0) << first.err;
  const char* files[] = {"index.html", "report.md", "results.json"};
  for (const char* f : files) ASSERT_TRUE(whole(f, slurp(dir / f))) << f;
  // Kills at growing delays, from before the first write to after the last: every file is
  // whole after each kill (the previous one, or one a later run completed).
  int kills = 0;
  for (long us = 0; us < 60'000'000; us = us < 1000 ? us + 250 : us * 3 / 2) {
    const bool finished = kill_report_after(dir, std::chrono::microseconds(us));
    for (const char* f : files) {
      const std::string text = slurp(dir / f);
      EXPECT_TRUE(whole(f, text)) << f << " after a kill at " << us << " us (" << text.size()
                                  << " bytes)";
    }
    if (finished) break;
    ++kills;
  }
  EXPECT_GT(kills, 0) << "the report finished before the first kill";
  fs::remove_all(dir);
}
