// Predicted equals measured: runs `memhier profile TARGET --json` (Nsight Compute under
// it) and requires the model's shared-memory wavefronts and global requests and sectors
// to equal the hardware counters exactly. Skips without a GPU or without readable counters
// (memhier exits 3 and says why). Where the hardware disagrees, the model changes.
#include <gtest/gtest.h>

#include "../common/run_memhier.hpp"
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

using memhier::testing::Result;

Result run_memhier(const std::string& args) {
  std::vector<std::string> argv;
  std::istringstream words(args);
  for (std::string w; words >> w;) argv.push_back(w);
  return memhier::testing::run(argv);
}

// Every modeled row of the comparison table must match; returns how many rows were modeled.
int check_target(const std::string& target) {
  const Result r = run_memhier("profile " + target + " --json");
  EXPECT_EQ(r.status, 0) << r.err;
  if (r.status != 0) return 0;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  int modeled = 0;
  for (const auto& section : doc.at("sections"))
    for (const auto& table : section.at("tables")) {
      if (table.at("id") != "profile-" + target + "-compare") continue;
      for (const auto& row : table.at("rows")) {
        const std::string item = row.at("item").get<std::string>();
        const std::string verdict = row.at("verdict").get<std::string>();
        if (verdict == "no model for this variant") continue;
        if (verdict.rfind("does not apply to this shape: ", 0) == 0) continue;  // declined it
        ++modeled;
        EXPECT_EQ(verdict, "equal") << target << " / " << item;
        for (const char* f : {"shared_ld_wavefronts", "shared_st_wavefronts", "global_ld_requests",
                              "global_ld_sectors", "global_st_requests", "global_st_sectors"}) {
          const auto& model = row.at(std::string(f) + "_model");
          const auto& ncu = row.at(std::string(f) + "_ncu");
          EXPECT_EQ(model, ncu) << target << " / " << item << ": " << f;
        }
      }
    }
  return modeled;
}

class Profiler : public ::testing::Test {
 protected:
  void SetUp() override {
    // The cheapest profile run tells whether ncu and the counters are usable here.
    static Result probe = run_memhier("profile transpose --variant naive --json");
    if (probe.status == 3) GTEST_SKIP() << probe.err;
  }
};

TEST_F(Profiler, SharedPatternsMatchTheModel) { EXPECT_GT(check_target("shared-stride"), 200); }
TEST_F(Profiler, GlobalPatternsMatchTheModel) { EXPECT_GT(check_target("global-stride"), 200); }
TEST_F(Profiler, TransposeTilesMatchTheModel) { EXPECT_GE(check_target("transpose"), 4); }
// Every rung but the vendor lines: the 21 with their own model, and best as the rung it ran.
TEST_F(Profiler, GemmTilesMatchTheModel) { EXPECT_GE(check_target("gemm"), 22); }
TEST_F(Profiler, GemmBf16MatchesTheModel) { EXPECT_GE(check_target("gemm_bf16"), 5); }
TEST_F(Profiler, ElementwiseMatchesTheModel) { EXPECT_GE(check_target("elementwise"), 4); }

}  // namespace
