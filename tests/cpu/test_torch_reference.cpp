// PyTorch's reference rows without PyTorch: the module's JSON written by hand, the rows and
// ratios built from it, the failure sentences, and the softmax claim judged from a row.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "memhier/bench/torch_reference.hpp"
#include "memhier/claims/catalogue.hpp"
#include "memhier/claims/ladders.hpp"

namespace {

using memhier::bench::TorchRun;
using memhier::results::BenchRecord;

BenchRecord row(const std::string& variant, const std::string& shape, int rung, double ms,
                double gbps) {
  BenchRecord r;
  r.family = "softmax";
  r.variant = variant;
  r.shape = shape;
  r.rung = rung;
  r.ceiling = variant == "cudaMemcpy D2D";
  r.verified = true;
  r.ms = ms;
  r.gbps = gbps;
  return r;
}

const char* kAnswer = R"({"torch": "2.5.1", "device": "NVIDIA H100",
  "records": [
    {"family": "softmax", "shape": "1024x4096", "variant": "torch.softmax", "compare": true,
     "ms": 0.04, "p10": 0.038, "p90": 0.044, "reps": 200, "rel_error": 1e-7},
    {"family": "softmax", "shape": "8x65536", "variant": "torch.softmax", "compare": true,
     "declined": "torch failed: out of memory"},
    {"family": "gemm", "shape": "1024x4096", "variant": "torch.matmul fp32", "ms": 1.0}]})";

TEST(TorchReference, ParsesRecordsAndDeclines) {
  const TorchRun run = memhier::bench::parse_torch_output(kAnswer, 0, "");
  ASSERT_TRUE(run.error.empty()) << run.error;
  EXPECT_EQ(run.version, "2.5.1");
  ASSERT_EQ(run.records.size(), 3u);
  const BenchRecord& a = run.records[0].record;
  EXPECT_TRUE(a.verified);
  EXPECT_EQ(a.reference, "pytorch");
  EXPECT_DOUBLE_EQ(a.ms, 0.04);
  EXPECT_NEAR(a.spread, (0.044 - 0.038) / 0.04, 1e-12);
  EXPECT_TRUE(run.records[0].compare);
  EXPECT_EQ(run.records[0].reps, 200);
  EXPECT_FALSE(run.records[1].record.verified);
  EXPECT_EQ(run.records[1].record.declined, "torch failed: out of memory");
  EXPECT_FALSE(run.records[2].compare);
}

TEST(TorchReference, FailuresBecomeOneSentence) {
  EXPECT_EQ(
      memhier::bench::parse_torch_output(
          R"({"error": "PyTorch not importable by /usr/bin/python3: No module named 'torch'"})", 3,
          "")
          .error,
      "PyTorch not importable by /usr/bin/python3: No module named 'torch'");
  // Not JSON: the last line of stderr says why (here, the package is not installed).
  EXPECT_EQ(memhier::bench::parse_torch_output(
                "", 1, "Traceback\n  ...\n/usr/bin/python3: No module named memhier\n")
                .error,
            "/usr/bin/python3: No module named memhier");
  EXPECT_NE(memhier::bench::parse_torch_output("[1, 2", 1, "").error.find("exit status 1"),
            std::string::npos);
  EXPECT_FALSE(memhier::bench::parse_torch_output(R"({"records": 3})", 0, "").error.empty());
}

// A package Python cannot import is named, in each of Python's wordings (the H200 record at
// 7d01a04 printed the second one raw).
TEST(TorchReference, AMissingPackageIsNamedWhateverPythonSaid) {
  const std::string want =
      "python3 cannot import the Python package 'memhier' (install it there, or set "
      "MEMHIER_PYTHON to an interpreter that has it)";
  using memhier::bench::explain_torch_failure;
  EXPECT_EQ(explain_torch_failure("python3", "ModuleNotFoundError: No module named 'memhier'", 1),
            want);
  EXPECT_EQ(explain_torch_failure("python3",
                                  "/opt/torch/.venv/bin/python3: Error while finding module "
                                  "specification for 'memhier.torch_reference' "
                                  "(ModuleNotFoundError: No module named 'memhier')",
                                  1),
            want);
  EXPECT_EQ(explain_torch_failure("python3", "/usr/bin/python3: No module named memhier", 1), want);
  EXPECT_EQ(explain_torch_failure("py", "no Python interpreter could be started", 127),
            "no Python interpreter 'py' could be started (set MEMHIER_PYTHON)");
  EXPECT_EQ(explain_torch_failure("python3", "CUDA out of memory", 1), "CUDA out of memory");
}

// The script is built into the binary: an interpreter that can import neither memhier nor torch
// (python3 -S: no site-packages) runs it, and it answers that torch is missing.
TEST(TorchReference, TheScriptRunsWithoutMemhiersPackage) {
  if (std::system("command -v python3 >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  char dir[] = "/tmp/memhier-torch-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string python = std::string(dir) + "/python-without-site";
  {
    std::ofstream f(python);
    f << "#!/bin/sh\nexec python3 -S \"$@\"\n";
  }
  ASSERT_EQ(::chmod(python.c_str(), 0755), 0);
  const TorchRun run =
      memhier::bench::run_torch_reference({{"softmax", "1024x4096"}}, true, 60, python);
  EXPECT_EQ(run.error, python +
                           " cannot import the Python package 'torch' (install it there, or set "
                           "MEMHIER_PYTHON to an interpreter that has it)");
  EXPECT_TRUE(run.records.empty());
  std::remove(python.c_str());
  ::rmdir(dir);
}

TEST(TorchReference, RowsAfterTheReferencesWithUnpairedRatios) {
  std::vector<BenchRecord> rs{
      row("cudaMemcpy D2D", "1024x4096", 0, 0.02, 1600), row("naive", "1024x4096", 1, 0.08, 400),
      row("launch_bounds", "1024x4096", 2, 0.05, 640),
      row("cudaMemcpy D2D", "8x65536", 0, 0.01, 400), row("naive", "8x65536", 1, 0.1, 40)};
  memhier::bench::add_torch_rows(memhier::bench::parse_torch_output(kAnswer, 0, ""), &rs);
  ASSERT_EQ(rs.size(), 7u);
  const BenchRecord& t = rs[1];  // after the shape's memcpy row, before the rungs
  EXPECT_EQ(t.variant, "torch.softmax");
  EXPECT_NEAR(t.gbps, 1600 * 0.02 / 0.04, 1e-9);  // the problem's bytes over torch's time
  EXPECT_NEAR(t.frac_memcpy, 0.5, 1e-12);
  EXPECT_TRUE(std::isnan(t.frac_memcpy_spread.p10));  // not paired: no spread
  EXPECT_NE(t.note.find("not paired"), std::string::npos);
  EXPECT_NEAR(rs[2].x_torch, 0.04 / 0.08, 1e-12);
  EXPECT_NEAR(rs[3].x_torch, 0.04 / 0.05, 1e-12);
  EXPECT_NEAR(rs[0].x_torch, 2.0, 1e-12);
  // The second shape: torch declined, so a row says why and nothing gets x torch.
  EXPECT_EQ(rs[5].variant, "torch.softmax");
  EXPECT_EQ(rs[5].declined, "torch failed: out of memory");
  EXPECT_TRUE(std::isnan(rs[6].x_torch));
}

// A stage that did not run adds no rows (its one reason is the summary's line, not a row and
// an empty chart slot per ladder and shape).
TEST(TorchReference, WithoutTorchNoRowIsAdded) {
  TorchRun none;
  none.error = "PyTorch not importable by python3: No module named 'torch'";
  std::vector<BenchRecord> rs{row("cudaMemcpy D2D", "1024x4096", 0, 0.02, 1600),
                              row("naive", "1024x4096", 1, 0.08, 400)};
  memhier::bench::add_torch_rows(none, &rs);
  ASSERT_EQ(rs.size(), 2u);
  for (const BenchRecord& r : rs) {
    EXPECT_TRUE(r.reference.empty());
    EXPECT_TRUE(std::isnan(r.x_torch));
  }
}

TEST(TorchReference, AMissingInterpreterIsOneSentence) {
  ASSERT_EQ(setenv("MEMHIER_PYTHON", "/nonexistent/python3", 1), 0);
  const TorchRun run = memhier::bench::run_torch_reference({{"softmax", "1024x4096"}}, true, 30);
  unsetenv("MEMHIER_PYTHON");
  EXPECT_NE(run.error.find("/nonexistent/python3"), std::string::npos) << run.error;
  EXPECT_TRUE(run.records.empty());
}

// The seed's "PyTorch's softmax: 27 us, 1,240 GB/s" judged from the PyTorch row at 1024x4096.
memhier::claims::Check check(const std::vector<BenchRecord>& rs) {
  for (const memhier::claims::Check& c : memhier::claims::softmax_checks(rs))
    if (c.id == memhier::claims::ClaimId::softmax_pytorch_1240) return c;
  return {};
}

// Its verdict's text.
std::string verdict(const std::vector<BenchRecord>& rs) {
  return check(rs).detail;
}

TEST(TorchReference, SoftmaxClaimFromThePyTorchRow) {
  std::vector<BenchRecord> rs{row("cudaMemcpy D2D", "1024x4096", 0, 0.02, 1600)};
  EXPECT_EQ(verdict(rs).rfind("not measurable here: no PyTorch row", 0), 0u) << verdict(rs);
  auto with = [&](double torch_ms) {
    std::vector<BenchRecord> v = rs;
    TorchRun run = memhier::bench::parse_torch_output(kAnswer, 0, "");
    run.records[0].record.ms = torch_ms;
    memhier::bench::add_torch_rows(run, &v);
    return check(v);
  };
  // 1,240 of 2,039 GB/s is 60.8 % of the ceiling: memcpy 0.02 ms over 0.0329 ms.
  EXPECT_EQ(with(0.0329).verdict, memhier::claims::Verdict::reproduced) << with(0.0329).detail;
  EXPECT_EQ(with(0.02).verdict, memhier::claims::Verdict::refuted) << with(0.02).detail;
  TorchRun none;
  none.error = "PyTorch not importable by python3: No module named 'torch'";
  std::vector<BenchRecord> v = rs;
  memhier::bench::add_torch_rows(none, &v);  // no row: the summary says why, once
  EXPECT_EQ(verdict(v).rfind("not measurable here: no PyTorch row", 0), 0u) << verdict(v);
}

}  // namespace
