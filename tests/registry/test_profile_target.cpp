// memhier-profile-target's interface without a GPU: the outcomes file round-trips, bad
// arguments and bad names exit 2 with the outcomes file still written, and the parent's
// argument list is what the target parses.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "memhier/bench/profile_target.hpp"

namespace {

using memhier::bench::ItemOutcome;

std::string temp_path(const char* name) {
  return (std::filesystem::temp_directory_path() / name).string();
}

// Runs profile_target_main on `args` (argv[0] added).
int run_target(std::vector<std::string> args) {
  args.insert(args.begin(), "memhier-profile-target");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return memhier::bench::profile_target_main(static_cast<int>(argv.size()), argv.data());
}

TEST(ProfileTarget, OutcomesRoundTripThroughTheFile) {
  const std::string path = temp_path("memhier-test-outcomes.json");
  const std::vector<ItemOutcome> written = {{0, "", "cfg_64x64x16_4x4"},
                                            {3, "does not apply to this shape: why", ""}};
  memhier::bench::write_outcomes(path, written);
  const std::vector<ItemOutcome> read = memhier::bench::read_outcomes(path);
  ASSERT_EQ(read.size(), 2u);
  for (std::size_t i = 0; i < read.size(); ++i) {
    EXPECT_EQ(read[i].index, written[i].index);
    EXPECT_EQ(read[i].note, written[i].note);
    EXPECT_EQ(read[i].runs, written[i].runs);
  }
  // A child that died before writing leaves an empty or garbled file: no outcomes.
  std::ofstream(path, std::ios::trunc) << "{\"outcomes\": [{\"index\": -1}";
  EXPECT_TRUE(memhier::bench::read_outcomes(path).empty());
  std::filesystem::remove(path);
  EXPECT_TRUE(memhier::bench::read_outcomes(path).empty());
}

TEST(ProfileTarget, BadArgumentsAndNamesExitTwo) {
  EXPECT_EQ(run_target({}), 2);
  EXPECT_EQ(run_target({"gemm", "--bogus"}), 2);
  EXPECT_EQ(run_target({"gemm", "--size"}), 2);  // a flag without its value
  const std::string path = temp_path("memhier-test-bad-target.json");
  std::filesystem::remove(path);
  // The parent's own argument list: an unknown family and an unknown variant are bad input,
  // answered before any CUDA call, and the outcomes file is written all the same.
  EXPECT_EQ(run_target(memhier::bench::profile_target_args("no-such-family", {}, "", path)), 2);
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_TRUE(memhier::bench::read_outcomes(path).empty());
  EXPECT_EQ(run_target(memhier::bench::profile_target_args("gemm", {"no_such_rung"}, "", path)), 2);
  EXPECT_EQ(run_target(memhier::bench::profile_target_args("gemm", {}, "0x5x5", path)), 2);
  std::filesystem::remove(path);
}

TEST(ProfileTarget, ArgumentsListTheTargetVariantsShapeAndFile) {
  const std::vector<std::string> args =
      memhier::bench::profile_target_args("gemm", {"best", "naive"}, "64x64x64", "/tmp/o.json");
  const std::vector<std::string> want = {"gemm",   "--variant", "best",  "--variant",  "naive",
                                         "--size", "64x64x64",  "--out", "/tmp/o.json"};
  EXPECT_EQ(args, want);
  EXPECT_EQ(memhier::bench::profile_target_args("shared-stride", {}, "", ""),
            std::vector<std::string>{"shared-stride"});
}

}  // namespace
