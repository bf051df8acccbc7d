// `memhier explain` on programs nobody here wrote into memhier: explain_flawed (deliberately
// flawed kernels, built beside this test) and a PyTorch program. Each flawed kernel must get its
// own finding first and the clean copy near-ceiling alone; the bf16 matmul compute-bound.
// Skips, with memhier's sentence, without a GPU, ncu or readable counters (exit 3); the PyTorch
// test also without torch on a GPU.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../common/run_memhier.hpp"

namespace {

using memhier::testing::Result;

// memhier explain --json -- ARGS..., or a skip reason.
Result explain(const std::vector<std::string>& program, std::vector<std::string> options = {}) {
  std::vector<std::string> argv = {"explain", "--json"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("--");
  argv.insert(argv.end(), program.begin(), program.end());
  return memhier::testing::run(argv);
}

// The kernels of a record by their function name (the part before '(').
std::map<std::string, nlohmann::json> by_name(const nlohmann::json& doc) {
  std::map<std::string, nlohmann::json> out;
  for (const auto& k : doc.at("kernels")) {
    std::string name = k.at("name").get<std::string>();
    const std::string anonymous = "(anonymous namespace)::";
    for (std::size_t at; (at = name.find(anonymous)) != std::string::npos;)
      name.erase(at, anonymous.size());
    name = name.substr(0, name.find('('));
    if (const auto space = name.rfind(' '); space != std::string::npos)
      name = name.substr(space + 1);
    if (const auto colons = name.rfind("::"); colons != std::string::npos)
      name = name.substr(colons + 2);
    out[name] = k;
  }
  return out;
}

std::vector<std::string> kinds(const nlohmann::json& kernel) {
  std::vector<std::string> out;
  for (const auto& f : kernel.at("findings")) out.push_back(f.at("kind").get<std::string>());
  return out;
}

TEST(Explain, EachFlawedKernelGetsItsFindingFirstAndTheCleanCopyNearCeilingAlone) {
  const Result r = explain({MEMHIER_EXPLAIN_FLAWED});
  if (r.status == 3) GTEST_SKIP() << r.err;
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc.at("schema"), "memhier.explain");
  const auto k = by_name(doc);
  const std::map<std::string, std::string> first = {{"strided_load", "uncoalesced-global"},
                                                    {"transpose_unpadded", "shared-bank-conflicts"},
                                                    {"forced_spills", "register-spills"},
                                                    {"register_limited", "low-occupancy"}};
  for (const auto& [name, kind] : first) {
    ASSERT_TRUE(k.count(name)) << name << " was not profiled:\n" << r.out;
    const auto found = kinds(k.at(name));
    ASSERT_FALSE(found.empty()) << name << ": no finding\n" << k.at(name).dump(2);
    EXPECT_EQ(found.front(), kind) << name << "\n" << k.at(name).dump(2);
  }
  ASSERT_TRUE(k.count("copy_clean"));
  EXPECT_EQ(kinds(k.at("copy_clean")), std::vector<std::string>{"near-ceiling"})
      << k.at("copy_clean").dump(2);
  // Every finding carries its evidence, the model's ideal, a gain, a technique and a source.
  for (const auto& [name, kernel] : k)
    for (const auto& f : kernel.at("findings")) {
      EXPECT_FALSE(f.at("evidence").empty()) << name;
      EXPECT_FALSE(f.at("ideal").is_null()) << name;
      EXPECT_GE(f.at("gain").get<double>(), 1.0) << name;
      EXPECT_FALSE(f.at("technique").get<std::string>().empty()) << name;
      EXPECT_FALSE(f.at("source").get<std::string>().empty()) << name;
    }
}

TEST(Explain, AThousandLaunchesAreSelectedByDefaultWithinTwoMinutes) {
  const auto t0 = std::chrono::steady_clock::now();
  const Result r = explain({MEMHIER_EXPLAIN_FLAWED, "--repeat", "1000"});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (r.status == 3) GTEST_SKIP() << r.err;
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  // The first launch of each kernel: the five flawed ones once, the 1,000 repeats skipped.
  EXPECT_LE(doc.at("kernels").size(), 20u);
  const auto k = by_name(doc);
  for (const char* name :
       {"strided_load", "transpose_unpadded", "forced_spills", "register_limited", "copy_clean"})
    EXPECT_TRUE(k.count(name)) << name;
  int copies = 0;
  for (const auto& kernel : doc.at("kernels"))
    copies += kernel.at("name").get<std::string>().find("copy_clean") != std::string::npos;
  EXPECT_EQ(copies, 1);
  EXPECT_NE(doc.at("selection").get<std::string>().find("skipped"), std::string::npos);
  EXPECT_LT(s, 120.0);
}

TEST(Explain, APyTorchProgramsMatmulIsComputeBound) {
  if (std::system("python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)'"
                  " >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no PyTorch with CUDA for python3 here";
  const Result r = explain({"python3", MEMHIER_EXPLAIN_TORCH}, {"--launch-count", "40"});
  if (r.status == 3) GTEST_SKIP() << r.err;
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  ASSERT_GE(doc.at("kernels").size(), 4u);
  // The 8192^3 matmul is the longest kernel by far; nothing else names it for us.
  const auto ns = [](const nlohmann::json& k) {
    return k.at("duration_ns").is_number() ? k.at("duration_ns").get<double>() : 0.0;
  };
  const nlohmann::json* matmul = nullptr;
  for (const auto& k : doc.at("kernels"))
    if (!matmul || ns(k) > ns(*matmul)) matmul = &k;
  ASSERT_NE(matmul, nullptr);
  const auto found = kinds(*matmul);
  ASSERT_FALSE(found.empty()) << matmul->dump(2);
  EXPECT_EQ(found.front(), "compute-bound") << matmul->dump(2);
  for (const auto& k : doc.at("kernels")) EXPECT_FALSE(k.at("standings").empty());
}

}  // namespace
