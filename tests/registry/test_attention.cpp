// The attention ladder as the registry holds it: its shapes are refused with one sentence
// before any CUDA call (check_shape), the bottom-right causal mask's index math, and the
// rungs in table order. Links the kernel library; needs no GPU.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "../../src/kernels/attention/index.cuh"
#include "memhier/core/device.hpp"
#include "memhier/kernels/attention.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/registry/registry.hpp"

namespace {

using namespace memhier;
namespace ad = attention::detail;

const registry::Family& family() {
  kernels::register_families();
  const registry::Family* f = registry::find_family("attention");
  if (!f) throw std::runtime_error("attention is not registered");
  return *f;
}

TEST(Attention, CheckShapeTakesTheGrammarAndEveryListedShape) {
  const registry::Family& f = family();
  for (const std::string s : {"1x1x1x1x1x64", "2x8x2x127x509x128:causal", "1x2x2x3x5x64:16",
                              "1x2x2x3x5x64:causal:0.5", "1x2x2x3x5x64:0.5:causal"})
    EXPECT_NO_THROW(f.check_shape(s)) << s;
  for (const auto* shapes : {&f.test_shapes, &f.bench_shapes, &f.quick_shapes})
    for (const std::string& s : *shapes) EXPECT_NO_THROW(f.check_shape(s)) << s;
  EXPECT_NO_THROW(f.check_shape(f.profile_shape));
}

TEST(Attention, CheckShapeRefusesBadShapesWithOneSentence) {
  const registry::Family& f = family();
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"1x8x8x16x16", "6"},                      // five extents
      {"1x8x3x16x16x64", "must divide heads"},   // kv_heads
      {"1x8x8x16x16x96", "64 or 128"},           // head_dim
      {"1x8x8x16x16x64:causl", "causal"},        // a misspelt option
      {"1x8x8x16x16x64:-1", "positive scale"},   // a negative scale
      {"1x8x8x16x16x64:1:2", "once each"},       // two scales
      {"1x8x8x0x16x64", ""},                     // a zero extent
      {"1x8x8x16x16x64x", ""},                   // trailing separator
  };
  for (const auto& [shape, says] : bad) {
    try {
      f.check_shape(shape);
      ADD_FAILURE() << "accepted " << shape;
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(says), std::string::npos) << shape << ": " << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << shape << ": " << what;
    }
  }
}

// Bottom-right alignment: the last query sees every key; with seq_q > seq_k the first
// seq_q - seq_k queries see none.
TEST(Attention, TheCausalMaskIsAlignedToTheBottomRight) {
  EXPECT_EQ(ad::visible_keys(0, 4, 10, true), 7);
  EXPECT_EQ(ad::visible_keys(3, 4, 10, true), 10);
  EXPECT_EQ(ad::visible_keys(0, 4, 10, false), 10);
  EXPECT_LE(ad::visible_keys(5, 10, 4, true), 0);
  EXPECT_EQ(ad::visible_keys(6, 10, 4, true), 1);
  EXPECT_EQ(ad::visible_keys(9, 10, 4, true), 4);
  // A tile's keys are its last row's; none for a tile of fully masked rows.
  EXPECT_EQ(ad::tile_key_end(0, 64, 10, 4, true), 4);
  EXPECT_EQ(ad::tile_key_end(0, 4, 10, 4, true), 0);
  EXPECT_EQ(ad::tile_key_end(64, 64, 100, 100, true), 100);
  EXPECT_EQ(ad::tile_key_end(0, 64, 100, 100, true), 64);
  // Causal at seq_q == seq_k: n (n + 1) / 2 pairs; the flops' count follows.
  EXPECT_EQ(ad::visible_pairs(100, 100, true), 5050.0);
  EXPECT_EQ(ad::visible_pairs(3, 5, true), 3.0 + 4 + 5);
  EXPECT_EQ(ad::visible_pairs(5, 3, true), 1.0 + 2 + 3);
  EXPECT_EQ(ad::kv_head_of(7, 8, 2), 1);
}

// The work model: the fused rungs move Q, K, V and O once in bf16; the unfused rung adds 16
// bytes per score (S and P written and read in fp32).
TEST(Attention, HbmBytesOfTheFusedAndUnfusedRungs) {
  const double fused = ad::fused_hbm_bytes(2, 8, 2, 100, 300, 64);
  EXPECT_EQ(fused, 2.0 * 64 * 2 * (2.0 * 100 * 8 + 2.0 * 300 * 2));
  EXPECT_EQ(ad::unfused_hbm_bytes(2, 8, 2, 100, 300, 64) - fused, 16.0 * 2 * 8 * 100 * 300);
}

TEST(Attention, TheRegistryFollowsTheTable) {
  const registry::Family& f = family();
  std::vector<std::string> names;
  for (const registry::Variant& v : f.variants) names.push_back(v.name);
  std::vector<std::string> want;
  for (attention::Variant v : attention::all_variants()) want.push_back(attention::to_string(v));
  want.push_back("cudnn");  // the vendor line after best: not a rung of the library's function
  EXPECT_EQ(names, want);
  EXPECT_EQ(f.python_name, "attention");
  EXPECT_EQ(f.number_type, model::NumberType::bf16);
  EXPECT_EQ(f.bound, registry::Bound::compute);
  const registry::Variant& best = f.variants[f.variants.size() - 2];
  ASSERT_EQ(best.name, "best");
  // best runs a wgmma rung on sm_90a cards alone (without a GPU: the rung every card runs):
  // three consumer warpgroups at head_dim 64, rung 5 at 128.
  std::string why;
  const auto dev = core::query_device(0, &why);
  const bool hopper = dev && dev->cc_major == 9 && dev->cc_minor == 0;
  EXPECT_EQ(best.runs("1x1x1x1x1x64"), hopper ? "wgmma_tma_3wg" : "cp_async_pipeline");
  EXPECT_EQ(best.runs("2x16x16x4096x4096x128:causal"), hopper ? "wgmma_tma" : "cp_async_pipeline");
  for (const registry::Variant& v : f.variants)
    EXPECT_EQ(v.role, v.name == "cudnn" ? registry::Role::reference : registry::Role::api)
        << v.name;
}

}  // namespace
