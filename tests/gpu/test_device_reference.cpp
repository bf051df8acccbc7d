// Every family's float64 reference computed on the device against the one computed on the
// CPU, at the family's test shapes: the reference that judges the kernels is itself checked.
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/verify.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/registry/registry.hpp"

namespace memhier::testing {
namespace {

/// Variants run before the comparison: `best`, and the rungs whose reference differs (the
/// elementwise offsets and the particles' array-of-structures layout).
const std::vector<std::string> kRuns = {"best", "float4_misaligned_base",
                                        "float4_mismatched_alignment", "particles_aos"};

/// The device and CPU references agree far inside the bound they set: each value within a
/// millionth of its element's bound (exactly where the bound is 0), each scale within 1e-6.
void compare(const core::OutputSpec& spec, const core::HostReference& cpu,
             const std::string& what) {
  ASSERT_EQ(cpu.ref.size(), spec.count) << what;
  std::vector<double> dev(spec.count);
  MEMHIER_CUDA(
      cudaMemcpy(dev.data(), spec.ref, spec.count * sizeof(double), cudaMemcpyDeviceToHost));
  std::vector<float> dev_scale;
  if (spec.scale) {
    ASSERT_EQ(cpu.scale.size(), spec.count) << what;
    dev_scale.resize(spec.count);
    MEMHIER_CUDA(cudaMemcpy(dev_scale.data(), spec.scale, spec.count * sizeof(float),
                            cudaMemcpyDeviceToHost));
  }
  std::size_t bad = 0;
  for (std::size_t i = 0; i < spec.count && bad < 5; ++i) {
    const double s = spec.scale ? cpu.scale[i] : std::fabs(cpu.ref[i]);
    const double bound = spec.factor * s;
    const bool ok =
        bound > 0 ? std::fabs(dev[i] - cpu.ref[i]) <= 1e-6 * bound : dev[i] == cpu.ref[i];
    const bool scale_ok =
        !spec.scale || std::fabs(static_cast<double>(dev_scale[i]) - s) <= 1e-6 * s;
    if (!ok || !scale_ok) {
      ++bad;
      ADD_FAILURE() << what << " " << spec.name << "[" << i << "]: device " << dev[i] << " vs CPU "
                    << cpu.ref[i] << (spec.scale ? ", scale " : "")
                    << (spec.scale ? std::to_string(dev_scale[i]) + " vs " + std::to_string(s)
                                   : std::string());
    }
  }
}

class DeviceReference : public ::testing::TestWithParam<std::string> {};

TEST_P(DeviceReference, AgreesWithTheCpuAtTheTestShapes) {
  MEMHIER_REQUIRE_GPU(dev);
  const registry::Family* f = registry::find_family(GetParam());
  ASSERT_NE(f, nullptr);
  int compared = 0;
  for (const std::string& shape : f->test_shapes) {
    std::unique_ptr<registry::Case> c = f->make_case(shape, 11);
    for (const std::string& v : kRuns) {
      try {
        c->poison(nullptr);
        c->run(v, nullptr);
      } catch (const std::invalid_argument&) {
        continue;  // not a variant of this family, or it declines the shape
      }
      const std::vector<core::OutputSpec> specs = c->outputs();
      std::vector<core::HostReference> cpu;
      try {
        cpu = c->cpu_reference();
      } catch (const std::invalid_argument&) {
        continue;  // too large for the CPU: the smaller test shapes cover the kernel
      }
      ASSERT_EQ(cpu.size(), specs.size());
      for (std::size_t k = 0; k < specs.size(); ++k)
        compare(specs[k], cpu[k], f->name + " " + shape + " after " + v);
      // And the run itself passes against the device reference.
      const core::ElementCheck chk = c->verify();
      EXPECT_EQ(chk.bad(), 0u) << f->name << " " << v << " at " << shape << ": "
                               << core::describe_failure(chk, specs);
      ++compared;
    }
  }
  EXPECT_GT(compared, 0) << "no test shape small enough for the CPU reference";
}

std::vector<std::string> family_names() {
  kernels::register_families();
  std::vector<std::string> names;
  for (const registry::Family& f : registry::families()) names.push_back(f.name);
  if (names.empty()) names.push_back("none");
  return names;
}

INSTANTIATE_TEST_SUITE_P(Families, DeviceReference, ::testing::ValuesIn(family_names()),
                         [](const auto& p) { return p.param; });

}  // namespace
}  // namespace memhier::testing
