// Declarations and access expressions: layouts, C arithmetic, bounds and exact error columns.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "memhier/model/expr.hpp"

namespace memhier::model {
namespace {

// The ParseError a call throws; fails the test when it throws nothing.
template <typename F>
ParseError parse_error(F&& f) {
  try {
    f();
  } catch (const ParseError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a ParseError";
  return {};
}

ParseError decl_error(const std::string& text) {
  return parse_error([&] { parse_decl(text); });
}

ParseError access_error(const std::string& text, const std::string& decl) {
  const Decl d = parse_decl(decl);
  return parse_error([&] { Access::parse(text, d); });
}

template <typename F>
EvalError eval_error(F&& f) {
  try {
    f();
  } catch (const EvalError& e) {
    return e;
  }
  ADD_FAILURE() << "expected an EvalError";
  return {};
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

Env lane_env(std::int64_t lane) {
  Env e;
  e.lane = e.tx = lane;
  return e;
}

// Evaluates a bare expression over a 1-D unsized int array: the element index itself.
std::int64_t value_of(const std::string& expr, const Env& env = {}) {
  static const Decl d = parse_decl("char v[]");
  return Access::parse(expr, d).element_offset(env);
}

struct TypeCase {
  const char* type;
  int size;
  int align;
  std::vector<int> widths;
};

TEST(ExprDecl, TypeSizesAlignmentsAndWidths) {
  const std::vector<TypeCase> cases = {
      {"char", 1, 1, {1}},           {"signed char", 1, 1, {1}},
      {"unsigned char", 1, 1, {1}},  {"int8_t", 1, 1, {1}},
      {"uint8_t", 1, 1, {1}},        {"short", 2, 2, {2}},
      {"unsigned short", 2, 2, {2}}, {"int16_t", 2, 2, {2}},
      {"uint16_t", 2, 2, {2}},       {"half", 2, 2, {2}},
      {"__half", 2, 2, {2}},         {"bfloat16", 2, 2, {2}},
      {"__nv_bfloat16", 2, 2, {2}},  {"int", 4, 4, {4}},
      {"unsigned", 4, 4, {4}},       {"unsigned int", 4, 4, {4}},
      {"int32_t", 4, 4, {4}},        {"uint32_t", 4, 4, {4}},
      {"float", 4, 4, {4}},          {"long", 8, 8, {8}},
      {"long long", 8, 8, {8}},      {"unsigned long long", 8, 8, {8}},
      {"int64_t", 8, 8, {8}},        {"uint64_t", 8, 8, {8}},
      {"double", 8, 8, {8}},         {"float2", 8, 8, {8}},
      {"int2", 8, 8, {8}},           {"uint2", 8, 8, {8}},
      {"float3", 12, 4, {4, 4, 4}},  {"int3", 12, 4, {4, 4, 4}},
      {"float4", 16, 16, {16}},      {"int4", 16, 16, {16}},
      {"uint4", 16, 16, {16}},       {"double2", 16, 16, {16}},
      {"char4", 4, 4, {4}},          {"uchar4", 4, 4, {4}},
      {"char2", 2, 2, {2}},          {"short2", 4, 4, {4}},
      {"short4", 8, 8, {8}},         {"double4", 32, 16, {16, 16}},
      {"double3", 24, 8, {8, 8, 8}}, {"half2", 4, 4, {4}},
      {"__nv_bfloat162", 4, 4, {4}}, {"longlong2", 16, 16, {16}},
  };
  for (const TypeCase& c : cases) {
    SCOPED_TRACE(c.type);
    const Decl d = parse_decl(std::string(c.type) + " a[4]");
    EXPECT_EQ(d.type_name, c.type);
    EXPECT_EQ(d.elem_size, c.size);
    EXPECT_EQ(d.elem_align, c.align);
    EXPECT_EQ(d.native_widths, c.widths);
    EXPECT_TRUE(d.members.empty());
  }
}

TEST(ExprDecl, IntegerSpecifiersInAnyOrder) {
  EXPECT_EQ(parse_decl("long unsigned int a").elem_size, 8);
  EXPECT_EQ(parse_decl("short int a").elem_size, 2);
  EXPECT_EQ(parse_decl("signed a").elem_size, 4);
  EXPECT_TRUE(contains(decl_error("signed unsigned a").message, "cannot be combined"));
  EXPECT_EQ(decl_error("signed unsigned a").column, 7);
  EXPECT_TRUE(contains(decl_error("long long long a").message, "long long long"));
  EXPECT_TRUE(contains(decl_error("short long a").message, "cannot be combined"));
}

TEST(ExprDecl, NameAndExtents) {
  const Decl d = parse_decl("float tile[32][33]");
  EXPECT_EQ(d.text, "float tile[32][33]");
  EXPECT_EQ(d.name, "tile");
  EXPECT_EQ(d.dims, (std::vector<std::int64_t>{32, 33}));
  EXPECT_EQ(d.row_pitch_elems(), 33);

  const Decl u = parse_decl("  extern __shared__ float smem[] ;");
  EXPECT_EQ(u.dims, (std::vector<std::int64_t>{-1}));
  EXPECT_EQ(u.row_pitch_elems(), 1);

  const Decl u2 = parse_decl("int a[][0x10]");
  EXPECT_EQ(u2.dims, (std::vector<std::int64_t>{-1, 16}));
  EXPECT_EQ(u2.row_pitch_elems(), 16);

  const Decl s = parse_decl("double x");
  EXPECT_TRUE(s.dims.empty());
  EXPECT_EQ(s.row_pitch_elems(), 1);
}

TEST(ExprDecl, StructLayouts) {
  const Decl xyz = parse_decl("struct {float x, y, z;} p[32]");
  EXPECT_EQ(xyz.type_name, "struct {float x, y, z;}");
  EXPECT_EQ(xyz.elem_size, 12);
  EXPECT_EQ(xyz.elem_align, 4);
  ASSERT_EQ(xyz.members.size(), 3u);
  EXPECT_EQ(xyz.members[0].name, "x");
  EXPECT_EQ(xyz.members[0].offset, 0);
  EXPECT_EQ(xyz.members[1].offset, 4);
  EXPECT_EQ(xyz.members[2].name, "z");
  EXPECT_EQ(xyz.members[2].offset, 8);
  EXPECT_EQ(xyz.native_widths, (std::vector<int>{4, 4, 4}));

  const Decl df = parse_decl("struct {double d; float f;} a[8]");
  EXPECT_EQ(df.elem_size, 16);
  EXPECT_EQ(df.elem_align, 8);
  EXPECT_EQ(df.members[1].offset, 8);
  EXPECT_EQ(df.members[1].size, 4);

  const Decl ci = parse_decl("struct {char c; int i;} a[8]");
  EXPECT_EQ(ci.elem_size, 8);
  EXPECT_EQ(ci.members[1].offset, 4);

  const Decl fc = parse_decl("struct { float f; int c; } q[4]");
  EXPECT_EQ(fc.type_name, "struct {float f; int c;}");
  EXPECT_EQ(fc.elem_size, 8);

  const Decl tagged = parse_decl("struct P { float3 pos; float w; char4 rgba; } particles[64]");
  EXPECT_EQ(tagged.type_name, "struct P {float3 pos; float w; char4 rgba;}");
  EXPECT_EQ(tagged.elem_size, 20);
  EXPECT_EQ(tagged.members[2].offset, 16);
  EXPECT_EQ(tagged.native_widths, (std::vector<int>{4, 4, 4, 4, 4}));

  const Decl v4 = parse_decl("struct {char c; float4 v;} a[2]");
  EXPECT_EQ(v4.elem_size, 32);
  EXPECT_EQ(v4.elem_align, 16);
  EXPECT_EQ(v4.members[1].offset, 16);

  // The canonical type name parses back to the same layout (the fixer relies on it).
  const Decl again = parse_decl(tagged.type_name + " particles[64]");
  EXPECT_EQ(again.elem_size, tagged.elem_size);
  EXPECT_EQ(again.native_widths, tagged.native_widths);
}

TEST(ExprDecl, Errors) {
  ParseError e = decl_error("flaot tile[32]");
  EXPECT_TRUE(contains(e.message, "unknown type 'flaot'")) << e.message;
  EXPECT_TRUE(contains(e.message, "did you mean 'float'")) << e.message;
  EXPECT_EQ(e.column, 0);

  e = decl_error("float tile[32");
  EXPECT_TRUE(contains(e.message, "expected ']'")) << e.message;
  EXPECT_EQ(e.column, 13);

  e = decl_error("float tile[32 + 1]");
  EXPECT_TRUE(contains(e.message, "expected ']'")) << e.message;
  EXPECT_EQ(e.column, 14);

  e = decl_error("float tile[0]");
  EXPECT_TRUE(contains(e.message, "positive")) << e.message;
  EXPECT_EQ(e.column, 11);

  e = decl_error("float tile[-4]");
  EXPECT_EQ(e.column, 11);

  e = decl_error("float tile[32][]");
  EXPECT_TRUE(contains(e.message, "outermost")) << e.message;
  EXPECT_EQ(e.column, 15);

  e = decl_error("float [32]");
  EXPECT_TRUE(contains(e.message, "expected a name")) << e.message;
  EXPECT_EQ(e.column, 6);

  e = decl_error("tile[32]");
  EXPECT_TRUE(contains(e.message, "missing type")) << e.message;

  e = decl_error("float* p");
  EXPECT_EQ(e.column, 5);

  e = decl_error("float tile[32] x");
  EXPECT_TRUE(contains(e.message, "unexpected 'x'")) << e.message;
  EXPECT_EQ(e.column, 15);

  e = decl_error("float lane[32]");
  EXPECT_TRUE(contains(e.message, "built-in")) << e.message;

  e = decl_error("struct {float x; float x;} p[4]");
  EXPECT_TRUE(contains(e.message, "duplicate member 'x'")) << e.message;
  EXPECT_EQ(e.column, 23);

  e = decl_error("struct {} p[4]");
  EXPECT_TRUE(contains(e.message, "at least one member")) << e.message;

  e = decl_error("struct {float x} p[4]");
  EXPECT_TRUE(contains(e.message, "expected ',' or ';'")) << e.message;
  EXPECT_EQ(e.column, 15);

  e = decl_error("float a[010]");
  EXPECT_TRUE(contains(e.message, "octal")) << e.message;

  e = decl_error("float a[32u]");
  EXPECT_EQ(e.column, 10);

  e = decl_error("float a[99999999999999999999]");
  EXPECT_TRUE(contains(e.message, "64-bit")) << e.message;

  // 2^62 elements of 4 bytes: 2^64 bytes.
  e = decl_error("float a[4611686018427387904]");
  EXPECT_TRUE(contains(e.message, "larger than 2^63")) << e.message;
  EXPECT_NO_THROW(parse_decl("char a[4611686018427387904]"));
  e = decl_error("double a[65536][65536][65536][65536]");
  EXPECT_TRUE(contains(e.message, "larger than 2^63")) << e.message;

  e = decl_error("");
  EXPECT_EQ(e.column, 0);
  EXPECT_TRUE(contains(e.message, "the end of the input")) << e.message;
}

TEST(ExprParseError, PrettyPutsTheCaretUnderTheColumn) {
  const ParseError e = access_error("tile[lane+][0]", "float tile[32][33]");
  EXPECT_EQ(e.column, 10);
  EXPECT_EQ(e.input, "tile[lane+][0]");
  const std::string p = e.pretty();
  EXPECT_EQ(p, e.message + " at column 11\n  tile[lane+][0]\n  " + std::string(10, ' ') + "^");
}

TEST(ExprParseError, PrettyCountsUtf8CharactersAndControlBytes) {
  // "é" is two bytes but one character on screen; the tab shows as one space.
  ParseError e = decl_error("float\t\xc3\xa9[3]");
  EXPECT_EQ(e.column, 6);
  EXPECT_TRUE(contains(e.message, "byte 0xc3")) << e.message;
  EXPECT_TRUE(contains(e.pretty(), "\n  float \xc3\xa9[3]\n        ^")) << e.pretty();

  e = decl_error("float \xc3\xa9 x");
  EXPECT_EQ(e.column, 6);
  e = decl_error("float a[3] \xc3\xa9");
  EXPECT_TRUE(contains(e.pretty(), "\n  float a[3] \xc3\xa9\n             ^")) << e.pretty();
}

TEST(ExprParseError, PrettyShowsAWindowOfALongInput) {
  const Decl d = parse_decl("int v[]");
  const std::string text = std::string(300, '(') + "1" + std::string(300, ')');
  const ParseError e = parse_error([&] { Access::parse(text, d); });
  ASSERT_EQ(e.column, 256);
  const std::string p = e.pretty();
  const std::size_t l1 = p.find('\n'), l2 = p.find('\n', l1 + 1);
  ASSERT_NE(l2, std::string::npos);
  const std::string shown = p.substr(l1 + 1, l2 - l1 - 1), caret = p.substr(l2 + 1);
  EXPECT_LT(shown.size(), 200u);
  EXPECT_EQ(shown.substr(0, 5), "  ...");
  EXPECT_EQ(shown.substr(shown.size() - 3), "...");
  ASSERT_EQ(caret.back(), '^');
  EXPECT_EQ(shown[caret.size() - 1], '(');
  EXPECT_EQ(caret.size() - 1 - 5 + (256 - 80), 256u);  // "  ..." then 80 characters
}

TEST(ExprAccess, TwoDimensionalTile) {
  const Decl d = parse_decl("float tile[32][33]");
  const Access a = Access::parse("tile[lane][k]", d);
  EXPECT_FALSE(a.bare());
  EXPECT_EQ(a.index_texts(), (std::vector<std::string>{"lane", "k"}));
  EXPECT_EQ(a.free_variables(), (std::vector<std::string>{"k"}));
  ASSERT_EQ(a.instructions().size(), 1u);
  EXPECT_EQ(a.instructions()[0].label, "");
  EXPECT_EQ(a.instructions()[0].offset_bytes, 0);
  EXPECT_EQ(a.instructions()[0].width_bytes, 4);
  Env env = lane_env(5);
  env.vars["k"] = 7;
  EXPECT_EQ(a.element_offset(env), (5 * 33 + 7) * 4);
}

TEST(ExprAccess, IndexTextsAreTrimmed) {
  const Decl d = parse_decl("float tile[32][33]");
  const Access a = Access::parse("  tile [ lane / 2 ] [ (k + 1) % 33 ]  ", d);
  EXPECT_EQ(a.index_texts(), (std::vector<std::string>{"lane / 2", "(k + 1) % 33"}));
}

TEST(ExprAccess, StructMemberAndWholeElement) {
  const Decl d = parse_decl("struct {float x, y, z;} p[64]");
  const Access y = Access::parse("p[lane].y", d);
  EXPECT_EQ(y.member(), "y");
  ASSERT_EQ(y.instructions().size(), 1u);
  EXPECT_EQ(y.instructions()[0].label, "y");
  EXPECT_EQ(y.instructions()[0].offset_bytes, 4);
  EXPECT_EQ(y.instructions()[0].width_bytes, 4);
  EXPECT_EQ(y.element_offset(lane_env(3)), 36);

  const Access whole = Access::parse("p[lane]", d);
  ASSERT_EQ(whole.instructions().size(), 3u);
  EXPECT_EQ(whole.instructions()[2].label, "z");
  EXPECT_EQ(whole.instructions()[2].offset_bytes, 8);

  const Decl mixed = parse_decl("struct {double d; float3 v;} q[8]");
  const Access v = Access::parse("q[lane].v", mixed);
  ASSERT_EQ(v.instructions().size(), 3u);
  EXPECT_EQ(v.instructions()[0].label, "v.x");
  EXPECT_EQ(v.instructions()[0].offset_bytes, 8);
  EXPECT_EQ(v.instructions()[2].label, "v.z");
  EXPECT_EQ(v.instructions()[2].offset_bytes, 16);
  EXPECT_EQ(Access::parse("q[lane]", mixed).instructions().size(), 4u);
}

TEST(ExprAccess, VectorPieces) {
  const Access f3 = Access::parse("a[lane]", parse_decl("float3 a[32]"));
  ASSERT_EQ(f3.instructions().size(), 3u);
  EXPECT_EQ(f3.instructions()[0].label, "x");
  EXPECT_EQ(f3.instructions()[1].label, "y");
  EXPECT_EQ(f3.instructions()[1].offset_bytes, 4);
  EXPECT_EQ(f3.instructions()[2].label, "z");
  EXPECT_EQ(f3.element_offset(lane_env(2)), 24);

  const Access f4 = Access::parse("a[lane]", parse_decl("float4 a[32]"));
  ASSERT_EQ(f4.instructions().size(), 1u);
  EXPECT_EQ(f4.instructions()[0].width_bytes, 16);

  const Access d4 = Access::parse("a[lane]", parse_decl("double4 a[32]"));
  ASSERT_EQ(d4.instructions().size(), 2u);
  EXPECT_EQ(d4.instructions()[1].offset_bytes, 16);
  EXPECT_EQ(d4.instructions()[1].width_bytes, 16);
}

TEST(ExprAccess, BareIndexIsTheFlattenedElement) {
  const Decl d = parse_decl("float tile[32][33]");
  const Access a = Access::parse("lane * 33 + 1", d);
  EXPECT_TRUE(a.bare());
  EXPECT_EQ(a.index_texts(), (std::vector<std::string>{"lane * 33 + 1"}));
  EXPECT_EQ(a.element_offset(lane_env(2)), (2 * 33 + 1) * 4);
  const EvalError e = eval_error([&] { a.element_offset(lane_env(32)); });
  EXPECT_TRUE(contains(e.message, "1057")) << e.message;
  EXPECT_TRUE(contains(e.message, "[0, 1056)")) << e.message;

  // A scalar declaration: the name alone, or element 0.
  const Decl s = parse_decl("float x");
  EXPECT_EQ(Access::parse("x", s).element_offset({}), 0);
  EXPECT_EQ(Access::parse("0", s).element_offset({}), 0);
}

TEST(ExprEval, PrecedenceAndAssociativity) {
  Env env = lane_env(5);
  EXPECT_EQ(value_of("1+2*3"), 7);
  EXPECT_EQ(value_of("(1+2)*3"), 9);
  EXPECT_EQ(value_of("lane<<1|1", env), 11);
  EXPECT_EQ(value_of("-lane%3 + 2", env), 0);  // -5 % 3 == -2 in C
  EXPECT_EQ(value_of("~0&7"), 7);
  EXPECT_EQ(value_of("10-3-2"), 5);
  EXPECT_EQ(value_of("64/4/2"), 8);
  EXPECT_EQ(value_of("1<<2+1"), 8);    // + binds tighter than <<
  EXPECT_EQ(value_of("6&3^1|8"), 11);  // & before ^ before |
  EXPECT_EQ(value_of("1|2^3&1"), 3);
  EXPECT_EQ(value_of("0x1F + 0X10"), 47);
  EXPECT_EQ(value_of("+ + 4"), 4);
  EXPECT_EQ(value_of("- -4 * 2"), 8);
  EXPECT_EQ(value_of("(-8 >> 1) + 4"), 0);  // arithmetic shift, as nvcc does
}

TEST(ExprEval, CDivisionSemantics) {
  Env env;
  env.vars["a"] = -7;
  env.vars["b"] = 2;
  env.vars["c"] = -2;
  EXPECT_EQ(value_of("a/b + 10", env), 7);  // -7/2 == -3
  EXPECT_EQ(value_of("a%b + 10", env), 9);  // -7%2 == -1
  EXPECT_EQ(value_of("7/c + 10", env), 7);  // 7/-2 == -3
  EXPECT_EQ(value_of("7%c", env), 1);       // 7%-2 == 1
  EXPECT_EQ(value_of("a/c", env), 3);
  EXPECT_EQ(value_of("a%c + 10", env), 9);
}

TEST(ExprEval, Builtins) {
  Env env;
  env.lane = 1;
  env.tx = 2;
  env.ty = 3;
  env.tz = 4;
  env.warp = 5;
  EXPECT_EQ(value_of("lane + 10*tx + 100*ty + 1000*tz + 10000*warp", env), 54321);
  EXPECT_EQ(value_of("threadIdx.x + threadIdx.y * 10", env), 32);
  const Access a = Access::parse("lane + threadIdx.z + k + j + k", parse_decl("int v[]"));
  EXPECT_EQ(a.free_variables(), (std::vector<std::string>{"j", "k"}));
}

TEST(ExprAccess, WrongNameIndexCountAndMember) {
  const std::string tile = "float tile[32][33]";
  ParseError e = access_error("tiel[lane][0]", tile);
  EXPECT_EQ(e.column, 0);
  EXPECT_TRUE(contains(e.message, "'tile'")) << e.message;
  EXPECT_TRUE(contains(e.message, "'tiel'")) << e.message;

  e = access_error("  tiel[lane][0]", tile);
  EXPECT_EQ(e.column, 2);

  e = access_error("tile[lane]", tile);
  EXPECT_EQ(e.column, 10);
  EXPECT_TRUE(contains(e.message, "2 dimensions")) << e.message;
  EXPECT_TRUE(contains(e.message, "1 index")) << e.message;

  e = access_error("tile[lane][0][1]", tile);
  EXPECT_EQ(e.column, 13);
  EXPECT_TRUE(contains(e.message, "too many indices")) << e.message;

  const std::string p = "struct {float x, y, z;} p[32]";
  e = access_error("p[lane].w", p);
  EXPECT_EQ(e.column, 8);
  EXPECT_TRUE(contains(e.message, "no member 'w'")) << e.message;
  EXPECT_TRUE(contains(e.message, "x, y, z")) << e.message;

  e = access_error("tile[lane][0].x", tile);
  EXPECT_EQ(e.column, 13);
  EXPECT_TRUE(contains(e.message, "struct")) << e.message;

  e = access_error("tile + 1", tile);
  EXPECT_EQ(e.column, 5);
}

TEST(ExprAccess, MalformedColumns) {
  const std::string tile = "float tile[32][33]";
  struct Case {
    const char* text;
    int column;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"tile[lane+][0]", 10, "expected a number, a variable or '('"},
      {"tile[lane][0", 12, "expected ']'"},
      {"tile[(lane][0]", 10, "expected ')'"},
      {"tile[][0]", 5, "expected an index expression"},
      {"tile[lane][0] junk", 14, "unexpected 'junk'"},
      {"tile[lane < 2][0]", 10, "comparisons"},
      {"tile[lane && 1][0]", 10, "'&&'"},
      {"tile[--lane][0]", 5, "'--'"},
      {"tile[lane][1.5]", 12, "floating-point"},
      {"tile[lane][2u]", 12, "suffixes"},
      {"tile[lane][0x]", 13, "hexadecimal"},
      {"tile[lane][07]", 11, "octal"},
      {"tile[min(lane,2)][0]", 8, "function calls"},
      {"tile[lane][blockIdx.x]", 11, "blockIdx.x"},
      {"tile[lane][$]", 11, "'$'"},
      {"lane )", 5, "unexpected ')'"},
      {"", 0, "the end of the input"},
      {"tile[lane][99999999999999999999]", 11, "64-bit"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    const ParseError e = access_error(c.text, tile);
    EXPECT_EQ(e.column, c.column) << e.message;
    EXPECT_TRUE(contains(e.message, c.message)) << e.message;
  }
}

TEST(ExprEval, OutOfBounds) {
  const Decl d = parse_decl("float tile[32][32]");
  const Access a = Access::parse("tile[k][lane + 1]", d);
  Env env = lane_env(31);
  env.vars["k"] = 0;
  EvalError e = eval_error([&] { a.element_offset(env); });
  EXPECT_TRUE(contains(e.message, "index 32")) << e.message;
  EXPECT_TRUE(contains(e.message, "second dimension [0, 32)")) << e.message;
  EXPECT_TRUE(contains(e.message, "lane 31")) << e.message;
  EXPECT_TRUE(contains(e.message, "'lane + 1'")) << e.message;

  env.vars["k"] = -1;
  e = eval_error([&] { a.element_offset(env); });
  EXPECT_TRUE(contains(e.message, "index -1")) << e.message;
  EXPECT_TRUE(contains(e.message, "first dimension")) << e.message;
  EXPECT_TRUE(contains(e.message, "k = -1")) << e.message;

  // "[]" only bounds from below.
  const Access u = Access::parse("s[lane * 1000000]", parse_decl("extern __shared__ int s[]"));
  EXPECT_EQ(u.element_offset(lane_env(31)), 31LL * 1000000 * 4);
  Env neg;
  neg.lane = -1;
  e = eval_error([&] { u.element_offset(neg); });
  EXPECT_TRUE(contains(e.message, "index -1")) << e.message;

  // Unsized but huge: the byte offset itself overflows.
  Env big;
  big.vars["n"] = std::numeric_limits<std::int64_t>::max() / 2;
  e = eval_error([&] { Access::parse("s[n]", parse_decl("int s[]")).element_offset(big); });
  EXPECT_TRUE(contains(e.message, "overflows")) << e.message;
}

TEST(ExprEval, ArithmeticErrors) {
  Env env = lane_env(3);
  env.vars["z"] = 0;
  EvalError e = eval_error([&] { value_of("lane / z", env); });
  EXPECT_TRUE(contains(e.message, "division by zero in 'lane / z'")) << e.message;
  EXPECT_TRUE(contains(e.message, "lane 3")) << e.message;
  e = eval_error([&] { value_of("lane % (z * 2)", env); });
  EXPECT_TRUE(contains(e.message, "modulo by zero in 'lane % (z * 2)'")) << e.message;
  e = eval_error([&] { value_of("1 << 64", env); });
  EXPECT_TRUE(contains(e.message, "shift by 64")) << e.message;
  e = eval_error([&] { value_of("1 >> -1", env); });
  EXPECT_TRUE(contains(e.message, "shift by -1")) << e.message;
  e = eval_error([&] { value_of("k + 1", env); });
  EXPECT_TRUE(contains(e.message, "unknown variable 'k'")) << e.message;

  const std::string max = std::to_string(std::numeric_limits<std::int64_t>::max());
  e = eval_error([&] { value_of(max + " + 1", env); });
  EXPECT_TRUE(contains(e.message, "overflow")) << e.message;
  e = eval_error([&] { value_of("0x4000000000000000 * 2", env); });
  EXPECT_TRUE(contains(e.message, "overflow")) << e.message;
  e = eval_error([&] { value_of("1 << 63", env); });
  EXPECT_TRUE(contains(e.message, "overflow")) << e.message;
  e = eval_error([&] { value_of("-" + max + " - 2", env); });
  EXPECT_TRUE(contains(e.message, "overflow")) << e.message;
  env.vars["m"] = std::numeric_limits<std::int64_t>::min();
  e = eval_error([&] { value_of("m / -1", env); });
  EXPECT_TRUE(contains(e.message, "overflow")) << e.message;
  e = eval_error([&] { value_of("-m", env); });
  EXPECT_TRUE(contains(e.message, "overflow")) << e.message;
  EXPECT_EQ(value_of("m % -1", env), 0);
  EXPECT_EQ(value_of("(m >> 62) + 2", env), 0);  // arithmetic shift: -2
  EXPECT_EQ(value_of("(-1 << 3) + 8", env), 0);
}

TEST(ExprLimits, DeepNestingAndLongInputAreRejected) {
  const Decl d = parse_decl("int v[]");
  EXPECT_EQ(
      Access::parse(std::string(256, '(') + "1" + std::string(256, ')'), d).element_offset({}), 4);
  ParseError e =
      parse_error([&] { Access::parse(std::string(257, '(') + "1" + std::string(257, ')'), d); });
  EXPECT_EQ(e.column, 256);
  EXPECT_TRUE(contains(e.message, "nested deeper than 256")) << e.message;

  e = parse_error([&] { Access::parse(std::string(300, '~') + "0", d); });
  EXPECT_TRUE(contains(e.message, "nested deeper")) << e.message;

  // 100000 parentheses would overflow a naive recursive parser's stack; here the length
  // limit answers first.
  e = parse_error([&] { Access::parse(std::string(100000, '(') + "1", d); });
  EXPECT_TRUE(contains(e.message, "the limit is 4096")) << e.message;
  EXPECT_EQ(e.column, 4096);

  e = decl_error("float a" + std::string(5000, ' '));
  EXPECT_TRUE(contains(e.message, "the limit is 4096")) << e.message;

  // A long flat chain is fine: it is long, not deep.
  std::string chain = "1";
  while (chain.size() < 4000) chain += "+1";
  EXPECT_EQ(Access::parse(chain, d).element_offset({}), 2001 * 4);
}

}  // namespace
}  // namespace memhier::model
