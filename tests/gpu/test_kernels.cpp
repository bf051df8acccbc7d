// Every registered variant of every ladder is right on its family's odd shapes
// (1, primes, one past a tile, non-square): random inputs, NaN-poisoned outputs,
// float64 reference.
#include "gpu_test_util.hpp"
#include "memhier/bench/kernel_bench.hpp"
#include "memhier/kernels/register.hpp"

namespace memhier::testing {
namespace {

class Ladder : public ::testing::TestWithParam<std::string> {};

TEST_P(Ladder, EveryVariantCorrectOnOddShapes) {
  MEMHIER_REQUIRE_GPU(dev);
  const registry::Family* f = registry::find_family(GetParam());
  ASSERT_NE(f, nullptr);
  ASSERT_FALSE(f->test_shapes.empty());
  // Two seeds: a moving error between draws is a race.
  for (std::uint32_t seed : {1u, 2u})
    for (const std::string& failure : bench::verify_family(*f, seed)) ADD_FAILURE() << failure;
}

std::vector<std::string> family_names() {
  kernels::register_families();
  std::vector<std::string> names;
  for (const registry::Family& f : registry::families()) names.push_back(f.name);
  if (names.empty()) names.push_back("none");
  return names;
}

INSTANTIATE_TEST_SUITE_P(Families, Ladder, ::testing::ValuesIn(family_names()),
                         [](const auto& p) { return p.param; });

}  // namespace
}  // namespace memhier::testing
