// The bf16 GEMM ladder as the registry holds it: its shapes are refused with one sentence
// before any CUDA call (check_shape), its rungs follow its table, and best's candidates are
// the lines the table marks. Links the kernel library; needs no GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../src/kernels/gemm_bf16/shape.hpp"
#include "../../src/kernels/gemm_bf16/variants.hpp"
#include "memhier/kernels/gemm_bf16.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/registry/registry.hpp"

namespace {

using namespace memhier;

const registry::Family& family() {
  kernels::register_families();
  const registry::Family* f = registry::find_family("gemm_bf16");
  if (!f) throw std::runtime_error("gemm_bf16 is not registered");
  return *f;
}

TEST(GemmBf16, CheckShapeTakesTheGrammarAndTheTestShapes) {
  const registry::Family& f = family();
  ASSERT_TRUE(static_cast<bool>(f.check_shape));
  for (const std::string s : {"4096x4096x4096", "1x1x1", "65x33x17:1.25:0", "33x65x17:0.5:-2",
                              "64x64x64:0:1.5", "1x1x2147483647"})
    EXPECT_NO_THROW(f.check_shape(s)) << s;
  for (const auto* shapes : {&f.test_shapes, &f.bench_shapes, &f.quick_shapes})
    for (const std::string& s : *shapes) EXPECT_NO_THROW(f.check_shape(s)) << s;
  EXPECT_NO_THROW(f.check_shape(f.profile_shape));
}

TEST(GemmBf16, CheckShapeRefusesBadShapesWithOneSentence) {
  const registry::Family& f = family();
  for (const std::string s : {"4x4", "4x4x4x4", "0x1x1", "4x4x04", "4x4x-1", "x4x4", "4x4x4:1",
                              "4x4x4:1:2:3", "4x4x4:inf:0", "4x4x4:1:1e309", "4x4x4: 1:0",
                              "3000000000x1x1", "65536x65536x1", "1x65536x65536", ""}) {
    try {
      f.check_shape(s);
      ADD_FAILURE() << "'" << s << "' was accepted";
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_FALSE(what.empty()) << s;
      EXPECT_EQ(what.find('\n'), std::string::npos) << s;
    }
  }
}

TEST(GemmBf16, ShapesReadBackAsTheBenchWritesThem) {
  using gemm_bf16::detail::parse_shape;
  using gemm_bf16::detail::shape_text;
  const gemm_bf16::detail::Shape s = parse_shape("127x129x65:1.25:-2");
  EXPECT_EQ(s.m, 127);
  EXPECT_EQ(s.n, 129);
  EXPECT_EQ(s.k, 65);
  EXPECT_FLOAT_EQ(s.alpha, 1.25f);
  EXPECT_FLOAT_EQ(s.beta, -2.f);
  EXPECT_EQ(shape_text(s), "127x129x65:1.25:-2");
  EXPECT_EQ(shape_text(parse_shape("8x16x24")), "8x16x24");
}

// Rung numbers are places in the table; best is last, and its candidates are the lines the
// table marks, in table order; every other variant has a kernel.
TEST(GemmBf16, RungsAndCandidatesFollowTheTable) {
  const registry::Family& f = family();
  std::vector<std::string> names;
  for (const registry::Variant& v : f.variants) {
    names.push_back(v.name);
    EXPECT_EQ(v.rung, static_cast<int>(names.size())) << v.name;
    EXPECT_NE(v.symbol, nullptr) << v.name;
  }
  std::vector<std::string> want;
  for (gemm_bf16::Variant v : gemm_bf16::all_variants()) want.push_back(gemm_bf16::to_string(v));
  EXPECT_EQ(names, want);
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.back(), "best");
  std::vector<std::string> candidates;
  for (gemm_bf16::Variant v : gemm_bf16::detail::best_candidates())
    candidates.push_back(gemm_bf16::to_string(v));
  EXPECT_EQ(candidates, (std::vector<std::string>{
                            "mma_swizzled", "mma_pipelined", "wgmma_tma", "warp_specialized",
                            "ws_c1_s4_128x256", "ws_c4_s4_128x256", "ws_c2_s6_128x128",
                            "ws_c1_s6_128x128", "ws_c1_s8_128x64", "ws_sk_128x256", "ws_sk_128x128",
                            "ws_tailsplit_128x256", "swapab_16x128", "swapab_32x128",
                            "swapab_64x128", "swapab_16x64", "swapab_32x64", "swapab_64x64",
                            "wgmma_staged", "wgmma_staged_tailsplit"}));
  EXPECT_THROW(gemm_bf16::detail::launcher_for(gemm_bf16::Variant::best), std::invalid_argument);
  gemm_bf16::Variant v;
  EXPECT_FALSE(gemm_bf16::parse_variant("nope", &v));
  EXPECT_TRUE(gemm_bf16::parse_variant("wmma_global", &v));
  EXPECT_EQ(v, gemm_bf16::Variant::wmma_global);
}

// The public entry refuses bad arguments with one sentence before touching the device.
TEST(GemmBf16, BadArgumentsAreInvalidArguments) {
  using gemm_bf16::Variant;
  const auto* a = reinterpret_cast<const __nv_bfloat16*>(std::uintptr_t{256});
  float* c = reinterpret_cast<float*>(std::uintptr_t{512});
  EXPECT_THROW(gemm_bf16::gemm_bf16(Variant::mma_swizzled, 0, 4, 4, 1.f, a, 4, a, 4, 0.f, c, 4),
               std::invalid_argument);
  EXPECT_THROW(gemm_bf16::gemm_bf16(Variant::mma_swizzled, 4, 4, 4, 1.f, a, 3, a, 4, 0.f, c, 4),
               std::invalid_argument);
  EXPECT_THROW(gemm_bf16::gemm_bf16(Variant::mma_swizzled, 4, 4, 4, 1.f, a, 4, a, 3, 0.f, c, 4),
               std::invalid_argument);
  EXPECT_THROW(gemm_bf16::gemm_bf16(Variant::mma_swizzled, 4, 4, 4, 1.f, a, 4, a, 4, 0.f, c, 3),
               std::invalid_argument);
  EXPECT_THROW(
      gemm_bf16::gemm_bf16(Variant::mma_swizzled, 4, 4, 4, 1.f, nullptr, 4, a, 4, 0.f, c, 4),
      std::invalid_argument);
  EXPECT_THROW(gemm_bf16::gemm_bf16(Variant::mma_swizzled, 4, 4, 4, 1.f, a + 0, 4,
                                    reinterpret_cast<const __nv_bfloat16*>(std::uintptr_t{257}), 4,
                                    0.f, c, 4),
               std::invalid_argument);
}

}  // namespace
