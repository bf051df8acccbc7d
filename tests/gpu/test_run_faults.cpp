// The run pipeline under injected faults, registered from here into the registry as a
// user's own probe and family would be: a probe whose CUDA call fails, a variant that runs
// out of GPU memory, a kernel that traps (the context breaks). The report must complete,
// each faulty item must read "not measured: why", and what follows is measured (or, where the
// driver cannot give the process a new context, says that the GPU was lost to it).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "fault_kernels.hpp"
#include "gpu_test_util.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/probe/probe.hpp"
#include "memhier/registry/registry.hpp"
#include "memhier/report/writers.hpp"
#include "memhier/run/pipeline.hpp"

namespace memhier::testing {
namespace {

constexpr const char* kFirstShape = "1024";

// A copy of n floats: the correct variants copy, the faulty ones fail their own way.
class FaultCase : public registry::Case {
 public:
  explicit FaultCase(std::size_t n) : n_(n), in_(n), out_(n), ref_(n) {
    std::vector<float> host(n);
    std::vector<double> ref(n);
    for (std::size_t i = 0; i < n; ++i) ref[i] = host[i] = 1.0f + static_cast<float>(i % 97) / 97;
    in_.upload(host);
    ref_.upload(ref);
  }
  std::string shape() const override { return std::to_string(n_); }
  registry::Work work() const override { return {8.0 * static_cast<double>(n_), 0}; }
  void run(const std::string& variant, cudaStream_t stream) override {
    if (variant == "runs_out_of_memory") {
      // Twice the card's memory: cudaMalloc fails, as when another process holds it.
      std::size_t free = 0, total = 0;
      MEMHIER_CUDA(cudaMemGetInfo(&free, &total));
      const core::DeviceBuffer<char> huge(2 * total);
      return;
    }
    if (variant == "traps") {
      if (shape() != kFirstShape)
        throw std::invalid_argument("traps at " + std::string(kFirstShape) + " only");
      launch_trap(stream);
      MEMHIER_CUDA(cudaStreamSynchronize(stream));
      return;
    }
    launch_copy(in_.data(), out_.data(), n_, stream);  // copies, after_the_trap
  }
  void poison(cudaStream_t stream) override { out_.poison(stream); }
  std::vector<core::OutputSpec> outputs() override {
    core::OutputSpec o;
    o.name = "out";
    o.data = out_.data();
    o.count = n_;
    o.ref = ref_.data();
    return {o};  // factor 0: exact
  }
  double tolerance() const override { return 0; }
  std::vector<core::HostReference> cpu_reference() override {
    throw std::invalid_argument("no CPU reference for the fault family");
  }

 private:
  std::size_t n_;
  core::DeviceBuffer<float> in_, out_;
  core::DeviceBuffer<double> ref_;
};

registry::Variant variant(const std::string& name, int rung, const std::string& what) {
  return registry::make_variant(name, rung, what, {}, nullptr, 0);
}

// The test's probe and family, after the built-in ones (registered first: report order).
void register_faults() {
  probe::register_probes();
  kernels::register_families();
  registry::Entry e;
  e.kind = "probe";
  e.family = "fault";
  e.name = "fault-cuda-error";
  e.technique = "a probe whose CUDA call fails";
  e.run_probe = [](probe::Context&) -> probe::Result {
    // Not a device pointer: cudaMemset refuses it (an error that leaves the context usable).
    MEMHIER_CUDA(cudaMemset(reinterpret_cast<void*>(std::uintptr_t{16}), 0, 64));
    return {};
  };
  registry::add_entry(e);
  registry::Family f;
  f.name = "fault";
  f.title = "Injected faults";
  f.variants = {variant("copies", 1, "a correct copy before the faults"),
                variant("runs_out_of_memory", 2, "allocates twice the card's memory"),
                variant("traps", 3, "a kernel that traps: the context breaks"),
                variant("after_the_trap", 4, "a correct copy after the trap")};
  f.bench_shapes = f.quick_shapes = f.test_shapes = {kFirstShape, "4096"};
  f.make_case = [](const std::string& shape, std::uint32_t) {
    return std::unique_ptr<registry::Case>(new FaultCase(std::stoul(shape)));
  };
  f.check_shape = [](const std::string&) {};
  registry::add_family(f);
}

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

TEST(RunFaults, ReportCompletesAndEachFaultSaysWhy) {
  MEMHIER_REQUIRE_GPU(dev);
  register_faults();
  const auto dir =
      std::filesystem::temp_directory_path() /
      ("memhier-faults-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::remove_all(dir);
  run::Options o;
  o.out = dir.string();
  o.quick = true;
  o.no_profile = true;
  o.no_torch = true;
  // Completing without an exception is what makes `memhier report` exit 0 (README).
  report::Document doc;
  ASSERT_NO_THROW(doc = run::run_report(o));
  const nlohmann::json j = report::to_json(doc);
  for (const char* f : {"index.html", "report.md", "results.json"})
    EXPECT_TRUE(std::filesystem::exists(dir / f)) << f;
  const nlohmann::json written = nlohmann::json::parse(slurp_file(dir / "results.json"));
  EXPECT_FALSE(written.contains("partial")) << "the final results.json is marked partial";

  // The probe: its section says why, in a sentence.
  bool probe_seen = false;
  for (const auto& s : j["sections"])
    if (s["id"] == "fault-cuda-error") {
      probe_seen = true;
      ASSERT_FALSE(s["paragraphs"].empty());
      const std::string p = s["paragraphs"][0].get<std::string>();
      EXPECT_EQ(p.rfind("Not measured: CUDA reported", 0), 0u) << p;
    }
  EXPECT_TRUE(probe_seen);

  const std::string second = "4096";
  EXPECT_EQ(text(row(j, "copies", kFirstShape), "verified"), "yes");
  const auto expect_oom = [&](const std::string& shape) {
    const std::string oom = text(row(j, "runs_out_of_memory", shape), "note");
    EXPECT_EQ(oom.rfind("not measured: out of GPU memory (another process may hold it) while "
                        "allocating ",
                        0),
              0u)
        << oom;
    EXPECT_NE(oom.find(" MiB"), std::string::npos) << oom;
  };
  expect_oom(kFirstShape);
  const std::string trap = text(row(j, "traps", kFirstShape), "note");
  EXPECT_EQ(trap.rfind("not measured: a kernel faulted", 0), 0u) << trap;
  const std::string after = text(row(j, "after_the_trap", kFirstShape), "note");
  if (trap.find("the device was reset") != std::string::npos) {
    EXPECT_EQ(after.rfind("not measured: the device was reset after traps", 0), 0u) << after;
    // After the reset the next shape is built afresh and measured.
    EXPECT_EQ(text(row(j, "copies", second), "verified"), "yes");
    EXPECT_EQ(text(row(j, "after_the_trap", second), "verified"), "yes");
    EXPECT_EQ(text(row(j, "traps", second), "verified").rfind("declined", 0), 0u);
    expect_oom(second);
  } else {
    // A driver that gives the process no new context after the reset: the trap's row says
    // so, and every later GPU item says the GPU was lost, naming the fault.
    EXPECT_NE(trap.find("cannot be restored in this process"), std::string::npos) << trap;
    const std::string lost = "not measured: the GPU was lost to this process earlier in the run "
                             "(a kernel faulted";
    EXPECT_EQ(after.rfind(lost, 0), 0u) << after;
    for (const char* v : {"copies", "runs_out_of_memory", "traps", "after_the_trap"}) {
      const std::string note = text(row(j, v, second), "note");
      EXPECT_EQ(note.rfind(lost, 0), 0u) << v << ": " << note;
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace memhier::testing
