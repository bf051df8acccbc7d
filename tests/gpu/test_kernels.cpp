// Every registered variant of every ladder is right on its family's odd shapes
// (1, primes, one past a tile, non-square): random inputs, NaN-poisoned outputs,
// float64 reference.
#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"
#include "memhier/bench/kernel_bench.hpp"
#include "memhier/claims/catalogue.hpp"
#include "memhier/kernels/attention.hpp"
#include "memhier/kernels/elementwise.hpp"
#include "memhier/kernels/gemm.hpp"
#include "memhier/kernels/gemm_bf16.hpp"
#include "memhier/kernels/histogram.hpp"
#include "memhier/kernels/reduction.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/kernels/softmax.hpp"
#include "memhier/kernels/stencil.hpp"
#include "memhier/kernels/transpose.hpp"

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

/// The names of a family's public variants, in enum order.
template <typename V, std::size_t N>
std::vector<std::string> names_of(const V (&all)[N]) {
  std::vector<std::string> out;
  for (V v : all) out.push_back(to_string(v));
  return out;
}

// Needs no GPU: the registry and the enums both come from the families' tables, and the
// bench, `memhier list` and the CLI help walk the registry.
TEST(LadderTables, RegistryFollowsEachTable) {
  kernels::register_families();
  const std::map<std::string, std::vector<std::string>> enums{
      {"transpose", names_of(transpose::kAllVariants)},
      {"reduction", names_of(reduction::kAllVariants)},
      {"softmax", names_of(softmax::kAllVariants)},
      {"elementwise", names_of(elementwise::kAllVariants)},
      {"histogram", names_of(histogram::kAllVariants)},
      {"stencil", names_of(stencil::kAllVariants)},
      {"gemm", names_of(gemm::kAllVariants)},
      {"gemm_bf16", names_of(gemm_bf16::kAllVariants)},
      {"attention", names_of(attention::kAllVariants)}};
  ASSERT_EQ(registry::families().size(), enums.size());
  for (const registry::Family& f : registry::families()) {
    SCOPED_TRACE(f.name);
    const auto e = enums.find(f.name);
    ASSERT_NE(e, enums.end());
    ASSERT_FALSE(e->second.empty());
    EXPECT_EQ(e->second.back(), "best");
    std::set<std::string> seen;
    std::size_t next = 0;  // the enum's names appear among the rungs, in enum order
    int last_rung = 0;
    bool past_best = false;
    for (const registry::Variant& v : f.variants) {
      EXPECT_TRUE(seen.insert(v.name).second) << v.name << " registered twice";
      // A table line's rung number is its place (a same-rung line repeats it); what a
      // family registers after best (gemm's tf32 reference) is not a table line.
      if (!past_best) {
        EXPECT_TRUE(v.rung == last_rung + 1 || (last_rung > 0 && v.rung == last_rung))
            << v.name << " is rung " << v.rung << " after rung " << last_rung;
      }
      EXPECT_GE(v.rung, last_rung) << v.name << " out of rung order";
      past_best = past_best || v.name == "best";
      last_rung = v.rung;
      if (next < e->second.size() && v.name == e->second[next]) ++next;
    }
    EXPECT_EQ(next, e->second.size()) << "the enum and the registered rungs differ";
  }
}

// Needs no GPU. A reader sees each source text by its title: the story above a ladder
// names at least one and no text by number, and every rung's source is a list of
// "NNN §Section" parts that claims::cite spells out (one text and one section a part) or
// states a goal of memhier's as one.
TEST(LadderTables, StoriesAndSourcesNameTheTextsByTitle) {
  kernels::register_families();
  const std::regex number("(^|[^0-9,.])00[0-9]([^0-9]|$)");
  const std::regex seed("seed", std::regex::icase);
  const std::regex part("00[0-9] §[^§]+|memhier goal: [^§]+");
  for (const registry::Family& f : registry::families()) {
    SCOPED_TRACE(f.name);
    EXPECT_FALSE(std::regex_search(f.story, number)) << f.story;
    EXPECT_FALSE(std::regex_search(f.story, seed)) << f.story;
    EXPECT_TRUE(std::any_of(claims::seeds().begin(), claims::seeds().end(),
                            [&](const claims::Seed& t) {
                              return f.story.find("'" + t.title + "'") != std::string::npos;
                            }))
        << f.story;
    for (const registry::Variant& v : f.variants) {
      const std::string& source = v.claim.source;
      for (std::size_t at = 0; at < source.size();) {
        const std::size_t end = std::min(source.find("; ", at), source.size());
        const std::string p = source.substr(at, end - at);
        EXPECT_TRUE(std::regex_match(p, part) && !std::regex_search(p.substr(3), number))
            << v.name << ": '" << p << "' in " << source;
        at = end + 2;
      }
      EXPECT_FALSE(std::regex_search(claims::cite(source), std::regex("[0-9]{3} §")))
          << v.name << ": " << claims::cite(source);
    }
  }
}

}  // namespace
}  // namespace memhier::testing
