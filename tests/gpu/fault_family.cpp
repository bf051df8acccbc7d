#include "fault_family.hpp"

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "fault_kernels.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/probe/probe.hpp"
#include "memhier/registry/registry.hpp"

namespace memhier::testing {
namespace {

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

}  // namespace

void register_faults() {
  static bool registered = false;  // once per process, whichever test comes first
  if (registered) return;
  registered = true;
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
  // The last probe traps: the context breaks in the probe stage, so the ladders after it
  // run in a child process, where the family's trap breaks that one's context too.
  e.name = "fault-trap";
  e.technique = "a probe whose kernel traps";
  e.run_probe = [](probe::Context&) -> probe::Result {
    launch_trap(nullptr);
    MEMHIER_CUDA(cudaDeviceSynchronize());
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

}  // namespace memhier::testing
