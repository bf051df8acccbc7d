// The declaration parser: "float tile[32][33]", "struct {float x, y, z;} p[1024]" into
// a Decl (element size, alignment, extents, members, the widths one element moves in).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lexer.hpp"
#include "memhier/model/expr.hpp"

namespace memhier::model {

using namespace lexer;

namespace {

// ---------------------------------------------------------------------------------------
// Types

struct TypeInfo {
  std::string name;
  int size = 0;
  int align = 0;
  std::vector<int> pieces;  // native widths, in order
};

// CUDA's vector_types.h: n = 1, 2 align to their size; n = 3 to one component (moved
// piecewise); n = 4 to min(size, 16), 32-byte ones moved as two 16-byte halves.
void add_vectors(std::vector<TypeInfo>& t, const std::string& base, int comp) {
  for (int n = 1; n <= 4; ++n) {
    TypeInfo v;
    v.name = base + std::to_string(n);
    v.size = comp * n;
    if (n == 3) {
      v.align = comp;
      v.pieces = {comp, comp, comp};
    } else if (v.size <= 16) {
      v.align = v.size;
      v.pieces = {v.size};
    } else {
      v.align = 16;
      v.pieces = {16, 16};
    }
    t.push_back(v);
  }
}

const std::vector<TypeInfo>& named_types() {
  static const std::vector<TypeInfo> table = [] {
    std::vector<TypeInfo> t;
    auto scalar = [&t](const char* name, int size) { t.push_back({name, size, size, {size}}); };
    scalar("bool", 1);
    scalar("int8_t", 1);
    scalar("uint8_t", 1);
    scalar("int16_t", 2);
    scalar("uint16_t", 2);
    scalar("half", 2);
    scalar("__half", 2);
    scalar("bfloat16", 2);
    scalar("__nv_bfloat16", 2);
    scalar("int32_t", 4);
    scalar("uint32_t", 4);
    scalar("float", 4);
    scalar("half2", 4);
    scalar("__half2", 4);
    scalar("bfloat162", 4);
    scalar("__nv_bfloat162", 4);
    scalar("int64_t", 8);
    scalar("uint64_t", 8);
    scalar("size_t", 8);
    scalar("ptrdiff_t", 8);
    scalar("double", 8);
    add_vectors(t, "char", 1);
    add_vectors(t, "uchar", 1);
    add_vectors(t, "short", 2);
    add_vectors(t, "ushort", 2);
    add_vectors(t, "int", 4);
    add_vectors(t, "uint", 4);
    add_vectors(t, "float", 4);
    add_vectors(t, "long", 8);
    add_vectors(t, "ulong", 8);
    add_vectors(t, "longlong", 8);
    add_vectors(t, "ulonglong", 8);
    add_vectors(t, "double", 8);
    return t;
  }();
  return table;
}

const TypeInfo* find_named_type(const std::string& name) {
  for (const TypeInfo& t : named_types())
    if (t.name == name) return &t;
  return nullptr;
}

bool is_int_specifier(const std::string& w) {
  return w == "signed" || w == "unsigned" || w == "char" || w == "short" || w == "int" ||
         w == "long";
}

// Storage words a declaration may carry; they do not change the layout.
bool is_qualifier(const std::string& w) {
  return w == "const" || w == "volatile" || w == "__shared__" || w == "__device__" ||
         w == "__constant__" || w == "__managed__" || w == "extern" || w == "static";
}

bool is_type_word(const std::string& w) {
  return is_int_specifier(w) || is_qualifier(w) || w == "struct" || find_named_type(w) != nullptr;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0u : 1u)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The closest known type name, for "did you mean"; empty when nothing is close.
std::string suggest_type(const std::string& word) {
  if (word.size() > 32) return {};
  std::vector<std::string> names = {"char", "short", "int", "long", "unsigned", "signed", "struct"};
  for (const TypeInfo& t : named_types()) names.push_back(t.name);
  std::string best;
  std::size_t best_d = 3;
  for (const std::string& n : names) {
    const std::size_t d = edit_distance(word, n);
    if (d < best_d) {
      best_d = d;
      best = n;
    }
  }
  return best;
}

void skip_qualifiers(Cursor& c) {
  for (;;) {
    c.skip_ws();
    const std::string w = c.peek_ident();
    if (w.empty() || !is_qualifier(w)) return;
    c.pos += w.size();
  }
}

// signed/unsigned/char/short/int/long in any order, as C allows; LP64 sizes.
TypeInfo parse_int_specifiers(Cursor& c) {
  int n_signed = 0, n_unsigned = 0, n_char = 0, n_short = 0, n_int = 0, n_long = 0;
  std::vector<std::string> words;
  for (;;) {
    c.skip_ws();
    const std::size_t at = c.pos;
    const std::string w = c.peek_ident();
    if (w == "double" && n_long > 0) c.fail(at, "'long double' is not supported on the GPU");
    if (w.empty() || !is_int_specifier(w)) break;
    if (w == "signed") ++n_signed;
    if (w == "unsigned") ++n_unsigned;
    if (w == "char") ++n_char;
    if (w == "short") ++n_short;
    if (w == "int") ++n_int;
    if (w == "long") ++n_long;
    if (n_signed + n_unsigned > 1)
      c.fail(at, n_signed && n_unsigned ? "'signed' and 'unsigned' cannot be combined"
                                        : "'" + w + "' is repeated");
    if (n_char > 1 || n_short > 1 || n_int > 1) c.fail(at, "'" + w + "' is repeated");
    if (n_long > 2) c.fail(at, "'long long long' is not a type");
    if (n_char && (n_short || n_int || n_long))
      c.fail(at, "'char' cannot be combined with 'short', 'int' or 'long'");
    if (n_short && n_long) c.fail(at, "'short' and 'long' cannot be combined");
    words.push_back(w);
    c.pos += w.size();
  }
  TypeInfo t;
  t.name = join(words, " ");
  t.size = n_char ? 1 : n_short ? 2 : n_long ? 8 : 4;
  t.align = t.size;
  t.pieces = {t.size};
  return t;
}

// A scalar or vector type (not a struct).
TypeInfo parse_basic_type(Cursor& c) {
  c.skip_ws();
  const std::size_t start = c.pos;
  const std::string word = c.peek_ident();
  if (word.empty())
    c.fail(start,
           "expected a type such as float, int4 or struct {...} but found " + c.describe_here());
  if (is_int_specifier(word)) return parse_int_specifiers(c);
  if (const TypeInfo* t = find_named_type(word)) {
    c.pos += word.size();
    return *t;
  }
  if (word == "struct") c.fail(start, "nested structs are not supported; flatten the members");
  const std::size_t after = c.skip_ws_from(start + word.size());
  if (after < c.text().size() && c.text()[after] == '[')
    c.fail(start, "missing type before " + quote(word) + ": write e.g. 'float " + word + "[32]'");
  std::string msg = "unknown type " + quote(word);
  const std::string s = suggest_type(word);
  if (!s.empty()) msg += " (did you mean '" + s + "'?)";
  c.fail(start, msg);
}

int align_up(int v, int a) {
  return a <= 1 ? v : (v + a - 1) / a * a;
}

// struct [tag] { T a, b; U c; }: C layout, natural alignment, tail padding.
void parse_struct(Cursor& c, Decl& d) {
  c.pos += 6;  // "struct"
  c.skip_ws();
  std::string tag;
  if (!c.peek_ident().empty()) {
    const std::size_t at = c.pos;
    tag = c.ident();
    if (is_type_word(tag)) c.fail(at, quote(tag) + " is a type, not a struct tag");
    c.skip_ws();
  }
  if (!c.at('{'))
    c.fail(c.pos, "expected '{' after '" + std::string(tag.empty() ? "struct" : "struct " + tag) +
                      "' (the struct must be defined inline) but found " + c.describe_here());
  ++c.pos;
  std::string canon = "struct " + (tag.empty() ? std::string() : tag + " ") + "{";
  int offset = 0, max_align = 1;
  for (;;) {
    c.skip_ws();
    if (c.at('}')) {
      if (d.members.empty()) c.fail(c.pos, "a struct needs at least one member");
      ++c.pos;
      break;
    }
    if (c.at_end()) c.fail(c.pos, "expected '}' to close the struct");
    const TypeInfo t = parse_basic_type(c);
    canon += (d.members.empty() ? "" : " ") + t.name + " ";
    for (;;) {
      c.skip_ws();
      const std::size_t at = c.pos;
      const std::string m = c.peek_ident();
      if (m.empty())
        c.fail(at, "expected a member name after '" + t.name + "' but found " + c.describe_here());
      if (is_type_word(m)) c.fail(at, quote(m) + " is a type, not a member name");
      for (const Member& prev : d.members)
        if (prev.name == m) c.fail(at, "duplicate member " + quote(m));
      c.pos += m.size();
      offset = align_up(offset, t.align);
      d.members.push_back({m, offset, t.size});
      d.native_widths.insert(d.native_widths.end(), t.pieces.begin(), t.pieces.end());
      offset += t.size;
      max_align = std::max(max_align, t.align);
      canon += m;
      c.skip_ws();
      if (c.at('[')) c.fail(c.pos, "array members are not supported; flatten them into names");
      if (c.at(',')) {
        ++c.pos;
        canon += ", ";
        continue;
      }
      if (c.at(';')) {
        ++c.pos;
        canon += ";";
        break;
      }
      c.fail(c.pos,
             "expected ',' or ';' after member " + quote(m) + " but found " + c.describe_here());
    }
  }
  d.type_name = canon + "}";
  d.elem_align = max_align;
  d.elem_size = align_up(offset, max_align);
}

}  // namespace

std::int64_t Decl::row_pitch_elems() const {
  if (dims.empty() || dims.back() < 0) return 1;
  return dims.back();
}

Decl parse_decl(const std::string& text) {
  Cursor c(text);
  check_length(c, "declaration");
  Decl d;
  d.text = text;
  skip_qualifiers(c);
  c.skip_ws();
  if (c.peek_ident() == "struct") {
    parse_struct(c, d);
  } else {
    const TypeInfo t = parse_basic_type(c);
    d.type_name = t.name;
    d.elem_size = t.size;
    d.elem_align = t.align;
    d.native_widths = t.pieces;
  }
  skip_qualifiers(c);
  c.skip_ws();
  if (c.at('*') || c.at('&'))
    c.fail(c.pos,
           "pointers and references are not supported: declare the array, e.g. "
           "'float p[1024]'");
  const std::size_t name_at = c.pos;
  d.name = c.ident();
  if (d.name.empty())
    c.fail(name_at,
           "expected a name after the type '" + d.type_name + "' but found " + c.describe(name_at));
  if (is_builtin(d.name))
    c.fail(name_at, quote(d.name) + " is a built-in variable; give the array another name");
  if (is_type_word(d.name)) c.fail(name_at, quote(d.name) + " is a type, not a name");

  for (;;) {
    c.skip_ws();
    if (!c.at('[')) break;
    const std::size_t open = c.pos;
    ++c.pos;
    c.skip_ws();
    if (c.at(']')) {
      if (!d.dims.empty()) c.fail(c.pos, "only the outermost extent may be left empty '[]'");
      ++c.pos;
      d.dims.push_back(-1);
      continue;
    }
    const std::size_t num_at = c.pos;
    if (c.at_end() || !is_digit(c.peek()))
      c.fail(num_at, "expected a positive integer extent but found " + c.describe_here());
    const i64 extent = parse_integer_literal(c);
    if (extent <= 0) c.fail(num_at, "extents must be positive; got " + std::to_string(extent));
    c.skip_ws();
    if (!c.at(']'))
      c.fail(c.pos, "expected ']' to close the '[' at column " + std::to_string(open + 1) +
                        " but found " + c.describe_here() +
                        (c.at_end() ? "" : " (extents are integer literals)"));
    ++c.pos;
    d.dims.push_back(extent);
  }
  c.skip_ws();
  if (c.at(';')) ++c.pos;
  c.skip_ws();
  if (!c.at_end()) c.fail(c.pos, "unexpected " + c.describe_here() + " after the declaration");

  i64 bytes = d.elem_size;
  for (const i64 e : d.dims)
    if (e > 0 && __builtin_mul_overflow(bytes, e, &bytes))
      c.fail(name_at, "the array " + d.name + dims_text(d.dims) + " of " +
                          std::to_string(d.elem_size) + "-byte elements is larger than 2^63 bytes");
  return d;
}

}  // namespace memhier::model
