// The registry as the kernels fill it: every built-in family is there, in report order,
// each variant listed once, and each family's table names the claim checks the catalogue
// says it makes. Links the kernel library; needs no GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "memhier/claims/catalogue.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/registry/registry.hpp"

namespace {

using namespace memhier;

const std::vector<registry::Family>& families() {
  kernels::register_families();
  return registry::families();
}

TEST(Registry, EveryBuiltInFamilyInReportOrder) {
  std::vector<std::string> names;
  for (const registry::Family& f : families()) names.push_back(f.name);
  const std::vector<std::string> expected = {"transpose", "reduction", "softmax", "elementwise",
                                             "histogram", "stencil",   "gemm",    "gemm_bf16",
                                             "attention"};
  EXPECT_EQ(names, expected);
  kernels::register_families();  // a second call adds nothing
  EXPECT_EQ(registry::families().size(), expected.size());
}

TEST(Registry, EachFamilyIsComplete) {
  for (const registry::Family& f : families()) {
    EXPECT_FALSE(f.title.empty()) << f.name;
    EXPECT_FALSE(f.variants.empty()) << f.name;
    EXPECT_FALSE(f.bench_shapes.empty()) << f.name;
    EXPECT_FALSE(f.test_shapes.empty()) << f.name;
    EXPECT_TRUE(static_cast<bool>(f.make_case)) << f.name;
    EXPECT_EQ(registry::find_family(f.name), &f);
  }
  EXPECT_EQ(registry::find_family("no-such-family"), nullptr);
}

TEST(Registry, EveryVariantIsAKernelEntry) {
  for (const registry::Family& f : families())
    for (const registry::Variant& v : f.variants) {
      const auto& e = registry::entries();
      EXPECT_EQ(std::count_if(e.begin(), e.end(),
                              [&](const registry::Entry& x) {
                                return x.kind == "kernel" && x.family == f.name && x.name == v.name;
                              }),
                1)
          << f.name << "/" << v.name;
    }
}

TEST(Registry, ASecondRegistrationIsAnError) {
  families();
  registry::Family dup;
  dup.name = "transpose";
  EXPECT_THROW(registry::add_family(dup), std::logic_error);
  registry::Entry e;
  e.kind = "kernel";
  e.family = "transpose";
  e.name = registry::families().front().variants.front().name;
  EXPECT_THROW(registry::add_entry(e), std::logic_error);
}

// The claims a family's hook judges are exactly those the catalogue says "bench-<family>"
// checks: the hook is attached through the family's table, not found by its name.
TEST(Registry, EachFamilysClaimsHookMatchesTheCatalogue) {
  int with_checks = 0;
  for (const registry::Family& f : families()) {
    const claims::Checker by = claims::Checker::bench(f.name);
    std::set<claims::ClaimId> hooked, catalogued;
    if (f.claims.checks)
      for (const claims::Check& c : f.claims.checks({})) hooked.insert(c.id);
    for (const claims::Claim& c : claims::catalogue())
      if (std::count(c.checked_by.begin(), c.checked_by.end(), by)) catalogued.insert(c.id);
    EXPECT_EQ(hooked, catalogued) << f.name;
    with_checks += !hooked.empty();
    // With no records every check says why it could not judge.
    if (!f.claims.checks) continue;
    for (const claims::Check& c : f.claims.checks({})) {
      EXPECT_EQ(c.verdict, claims::Verdict::not_measurable) << claims::name(c.id);
    }
  }
  EXPECT_GE(with_checks, 4);  // gemm, transpose, softmax, elementwise
  const registry::Family* gemm = registry::find_family("gemm");
  ASSERT_NE(gemm, nullptr);
  ASSERT_NE(gemm->claims.tables, nullptr);
  EXPECT_EQ(gemm->claims.tables({}).front().id, "bench-gemm-seed-table");
}

// The claims a family's profile hook judges are exactly those the catalogue says
// "profile-<family>" checks, at a small shape and a large one together.
TEST(Registry, EachFamilysProfileHookMatchesTheCatalogue) {
  for (const registry::Family& f : families()) {
    const claims::Checker by = claims::Checker::profile(f.name);
    std::set<claims::ClaimId> hooked, catalogued;
    if (f.claims.profile)
      for (const char* shape : {"1x1x1", "4096x4096x4096"})
        for (const claims::Check& c : f.claims.profile(shape, {})) hooked.insert(c.id);
    for (const claims::Claim& c : claims::catalogue())
      if (std::count(c.checked_by.begin(), c.checked_by.end(), by)) catalogued.insert(c.id);
    EXPECT_EQ(hooked, catalogued) << f.name;
  }
}

// The facts bench, roofline, simulate and the Python package read from a family.
TEST(Registry, EachFamilyCarriesItsFacts) {
  std::set<std::string> python, compute;
  for (const registry::Family& f : families()) {
    EXPECT_TRUE(python.insert(f.python_name).second) << f.name << ": " << f.python_name;
    if (f.bound == registry::Bound::compute) compute.insert(f.name);
    // A bf16 ladder is on the tensor cores: its flops are its figure of merit.
    if (f.number_type == model::NumberType::bf16) {
      EXPECT_EQ(f.bound, registry::Bound::compute) << f.name;
    }
    for (const std::string& shape : f.comparison_shapes)
      EXPECT_NO_THROW(f.check_shape(shape)) << f.name << " " << shape;
    const bool streamed = std::any_of(f.variants.begin(), f.variants.end(),
                                      [](const registry::Variant& v) { return bool(v.stream); });
    if (streamed) {
      EXPECT_FALSE(f.comparison_shapes.empty()) << f.name;
    }
  }
  EXPECT_EQ(python, (std::set<std::string>{"transpose", "reduce", "softmax", "axpy", "histogram256",
                                           "stencil2d", "gemm", "gemm_bf16", "attention"}));
  EXPECT_EQ(compute, (std::set<std::string>{"gemm", "gemm_bf16", "attention"}));
}

}  // namespace
