// A warp's addresses from huge values: the base offset plus the element offset is checked,
// so an overflow is an EvalError that says so, never a wrapped address priced as real.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "memhier/model/analyze.hpp"

namespace memhier::model {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

std::string eval_message(const Access& a, const WarpContext& ctx) {
  try {
    analyze_global(a, ctx);
  } catch (const EvalError& e) {
    return e.message;
  }
  ADD_FAILURE() << "expected an EvalError";
  return {};
}

TEST(AnalyzeOverflow, BasePlusElementOffsetIsChecked) {
  const Access a = Access::parse("a[lane + s]", parse_decl("char a[]"));
  WarpContext ctx;
  ctx.offset_bytes = std::int64_t{1} << 40;
  ctx.vars["s"] = kMax - ctx.offset_bytes - 31;  // lane 31 ends exactly at INT64_MAX
  const GlobalAnalysis ok = analyze_global(a, ctx);
  EXPECT_EQ(ok.per_instruction.at(0).warp.address[31], static_cast<std::uint64_t>(kMax));
  EXPECT_EQ(ok.bytes_needed, 32);

  ctx.vars["s"] = kMax - ctx.offset_bytes - 30;  // lane 31 one byte past it
  const std::string m = eval_message(a, ctx);
  EXPECT_NE(m.find("overflows 64 bits"), std::string::npos) << m;
  EXPECT_NE(m.find("lane 31"), std::string::npos) << m;
}

TEST(AnalyzeOverflow, AMemberOffsetPastTheLimitIsChecked) {
  // Element 1000 starts at INT64_MAX - 2: member x fits, member y (at +4) does not.
  const Decl d = parse_decl("struct {float x, y;} p[]");
  WarpContext ctx;
  ctx.active_mask = 1;
  ctx.offset_bytes = kMax - 8000 - 2;
  ctx.vars["s"] = 1000;
  const GlobalAnalysis x = analyze_global(Access::parse("p[s].x", d), ctx);
  EXPECT_EQ(x.per_instruction.at(0).warp.address[0], static_cast<std::uint64_t>(kMax - 2));
  const std::string m = eval_message(Access::parse("p[s].y", d), ctx);
  EXPECT_NE(m.find("overflows 64 bits"), std::string::npos) << m;
}

TEST(AnalyzeOverflow, PaddingFixesSkipExtentsThatWouldOverflow) {
  // Conflicted accesses to arrays whose last extent is at the int64 limit: a padded
  // extent would overflow, so no padding fix is offered, and nothing wraps.
  for (const char* decl : {"char s[9223372036854775807]", "char s[1][9223372036854775807]"}) {
    const Decl d = parse_decl(decl);
    const Access a = Access::parse(d.dims.size() == 1 ? "s[lane * 128]" : "s[0][lane * 128]", d);
    const WarpContext ctx;
    const SharedAnalysis an = analyze_shared(a, ctx);
    ASSERT_GT(an.conflicts, 0) << decl;
    for (const SharedFix& f : suggest_shared_fixes(d, a, ctx))
      EXPECT_NE(f.kind, "padding") << decl << " -> " << f.decl_text;
  }
}

}  // namespace
}  // namespace memhier::model
