// Declarations ("float tile[32][33]") and access expressions ("tile[lane][k]"): a
// recursive-descent parser that reports exact columns, and a checked int64 evaluator.
#include "memhier/model/expr.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace memhier::model {

enum class Op {
  literal,
  var,
  neg,
  bit_not,
  mul,
  div,
  mod,
  add,
  sub,
  shl,
  shr,
  bit_and,
  bit_xor,
  bit_or
};

/// One node of an index expression. begin/end index the access text, for messages.
class ExprNode {
 public:
  Op op = Op::literal;
  std::int64_t value = 0;  // literal
  std::string name;        // variable (builtins canonical: lane, tx, ty, tz, warp)
  std::shared_ptr<const ExprNode> lhs, rhs;
  std::size_t begin = 0, end = 0;
};

namespace {

using i64 = std::int64_t;
using NodePtr = std::shared_ptr<const ExprNode>;

constexpr std::size_t kMaxInputChars = 4096;
constexpr int kMaxNesting = 256;

bool is_space(char ch) {
  return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v';
}
bool is_digit(char ch) {
  return ch >= '0' && ch <= '9';
}
bool is_alpha(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}
bool is_alnum(char ch) {
  return is_alpha(ch) || is_digit(ch);
}
int hex_value(char ch) {
  if (is_digit(ch)) return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

bool is_builtin(const std::string& n) {
  return n == "lane" || n == "tx" || n == "ty" || n == "tz" || n == "warp";
}

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

// Quoted source text for a message, shortened so a 4 KB input cannot flood it.
std::string quote(const std::string& s) {
  constexpr std::size_t kMax = 60;
  if (s.size() <= kMax) return "'" + s + "'";
  return "'" + s.substr(0, kMax) + "...'";
}

// "second dimension" for index 1; "dimension 12" past the tenth.
std::string dimension_name(std::size_t i) {
  static const char* const kNames[] = {"first", "second",  "third",  "fourth", "fifth",
                                       "sixth", "seventh", "eighth", "ninth",  "tenth"};
  if (i < 10) return std::string(kNames[i]) + " dimension";
  return "dimension " + std::to_string(i + 1);
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

/// A position in the text being parsed, with the error helpers every rule uses.
class Cursor {
 public:
  explicit Cursor(const std::string& text) : text_(text) {}

  const std::string& text() const { return text_; }
  bool at_end() const { return pos >= text_.size(); }
  // '\0' past the end; callers test at_end() where a real NUL byte could matter.
  char peek(std::size_t ahead = 0) const {
    return pos + ahead < text_.size() ? text_[pos + ahead] : '\0';
  }
  bool at(char ch) const { return !at_end() && text_[pos] == ch; }
  void skip_ws() {
    while (!at_end() && is_space(text_[pos])) ++pos;
  }
  std::size_t skip_ws_from(std::size_t p) const {
    while (p < text_.size() && is_space(text_[p])) ++p;
    return p;
  }
  /// The identifier starting at pos (empty if none), without consuming it.
  std::string peek_ident() const {
    if (at_end() || !is_alpha(text_[pos])) return {};
    std::size_t e = pos;
    while (e < text_.size() && is_alnum(text_[e])) ++e;
    return text_.substr(pos, e - pos);
  }
  std::string ident() {
    std::string w = peek_ident();
    pos += w.size();
    return w;
  }
  /// "'x'", "the end of the input" or "byte 0x07": what stands at column p.
  std::string describe(std::size_t p) const {
    if (p >= text_.size()) return "the end of the input";
    const auto ch = static_cast<unsigned char>(text_[p]);
    if (ch >= 0x20 && ch < 0x7f) {
      if (is_alpha(text_[p])) {
        std::size_t e = p;
        while (e < text_.size() && is_alnum(text_[e])) ++e;
        return quote(text_.substr(p, e - p));
      }
      return std::string("'") + text_[p] + "'";
    }
    char buf[16];
    std::snprintf(buf, sizeof buf, "byte 0x%02x", static_cast<unsigned>(ch));
    return buf;
  }
  std::string describe_here() const { return describe(pos); }

  [[noreturn]] void fail(std::size_t column, std::string message) const {
    throw ParseError{std::move(message), static_cast<int>(std::min(column, text_.size())), text_};
  }

  std::size_t pos = 0;

 private:
  const std::string& text_;
};

void check_length(const Cursor& c, const char* what) {
  if (c.text().size() > kMaxInputChars)
    c.fail(kMaxInputChars, std::string("the ") + what + " is " + std::to_string(c.text().size()) +
                               " characters long; the limit is " + std::to_string(kMaxInputChars));
}

// Decimal or 0x-hex literal into int64. Leading zeros are refused because C reads them
// as octal, and a silently different number is worse than an error.
i64 parse_integer_literal(Cursor& c) {
  const std::size_t start = c.pos;
  i64 value = 0;
  const bool hex = c.peek() == '0' && (c.peek(1) == 'x' || c.peek(1) == 'X');
  if (hex) {
    c.pos += 2;
    if (hex_value(c.peek()) < 0 || c.at_end())
      c.fail(c.pos, "expected hexadecimal digits after '0x' but found " + c.describe_here());
    while (!c.at_end() && hex_value(c.peek()) >= 0) {
      if (value > (std::numeric_limits<i64>::max() >> 4))
        c.fail(start, "the number " + quote(c.text().substr(start, c.pos - start + 1)) +
                          "... does not fit in a 64-bit signed integer");
      value = value * 16 + hex_value(c.peek());
      ++c.pos;
    }
  } else {
    if (c.peek() == '0' && is_digit(c.peek(1)))
      c.fail(start,
             "leading zeros are not accepted (C would read the number as octal); write "
             "it without them, or in hex as 0x...");
    while (!c.at_end() && is_digit(c.peek())) {
      const int d = c.peek() - '0';
      if (value > (std::numeric_limits<i64>::max() - d) / 10)
        c.fail(start, "the number " + quote(c.text().substr(start, c.pos - start + 1)) +
                          "... does not fit in a 64-bit signed integer");
      value = value * 10 + d;
      ++c.pos;
    }
  }
  if (c.at('.')) c.fail(c.pos, "floating-point numbers are not supported; indices are integers");
  if (!c.at_end() && is_alnum(c.peek()))
    c.fail(c.pos, "unexpected " + c.describe_here() + " after the number " +
                      quote(c.text().substr(start, c.pos - start)) +
                      " (integer suffixes are not supported)");
  return value;
}

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

// ---------------------------------------------------------------------------------------
// Index expressions

NodePtr make_node(Op op, NodePtr lhs, NodePtr rhs, std::size_t begin, std::size_t end) {
  auto n = std::make_shared<ExprNode>();
  n->op = op;
  n->lhs = std::move(lhs);
  n->rhs = std::move(rhs);
  n->begin = begin;
  n->end = end;
  return n;
}

/// C precedence, lowest first: | ^ & (<< >>) (+ -) (* / %), then unary - ~ +.
class ExprParser {
 public:
  explicit ExprParser(Cursor& c) : c_(c) {}
  NodePtr parse() { return parse_level(0); }

 private:
  static constexpr int kUnaryLevel = 6;

  NodePtr parse_level(int level) {
    if (level == kUnaryLevel) return parse_unary();
    NodePtr lhs = parse_level(level + 1);
    for (;;) {
      c_.skip_ws();
      Op op;
      std::size_t width = 0;
      if (!match_op(level, &op, &width)) return lhs;
      c_.pos += width;
      NodePtr rhs = parse_level(level + 1);
      const std::size_t begin = lhs->begin, end = rhs->end;
      lhs = make_node(op, std::move(lhs), std::move(rhs), begin, end);
    }
  }

  bool match_op(int level, Op* op, std::size_t* width) {
    if (c_.at_end()) return false;
    const char a = c_.peek(), b = c_.peek(1);
    *width = 1;
    switch (level) {
      case 0:
        if (a != '|') return false;
        if (b == '|') c_.fail(c_.pos, "'||' is not supported (only + - * / % & | ^ << >> ~)");
        *op = Op::bit_or;
        return true;
      case 1:
        if (a != '^') return false;
        *op = Op::bit_xor;
        return true;
      case 2:
        if (a != '&') return false;
        if (b == '&') c_.fail(c_.pos, "'&&' is not supported (only + - * / % & | ^ << >> ~)");
        *op = Op::bit_and;
        return true;
      case 3:
        if (a != '<' && a != '>') return false;
        if (b != a) c_.fail(c_.pos, "comparisons are not supported (only + - * / % & | ^ << >> ~)");
        *op = a == '<' ? Op::shl : Op::shr;
        *width = 2;
        return true;
      case 4:
        if (a != '+' && a != '-') return false;
        reject_increment();
        *op = a == '+' ? Op::add : Op::sub;
        return true;
      default:
        if (a != '*' && a != '/' && a != '%') return false;
        *op = a == '*' ? Op::mul : a == '/' ? Op::div : Op::mod;
        return true;
    }
  }

  // "--x" is a decrement in C, not a double negation: refuse it rather than differ.
  void reject_increment() {
    if (c_.peek(1) == c_.peek())
      c_.fail(c_.pos, std::string("'") + c_.peek() + c_.peek() +
                          "' is not supported; put a space or parentheses between the signs");
  }

  void enter(std::size_t at) {
    if (++depth_ > kMaxNesting)
      c_.fail(at,
              "the expression is nested deeper than " + std::to_string(kMaxNesting) + " levels");
  }

  NodePtr parse_unary() {
    c_.skip_ws();
    const std::size_t at = c_.pos;
    const char ch = c_.peek();
    if (!c_.at_end() && (ch == '-' || ch == '~' || ch == '+')) {
      if (ch != '~') reject_increment();
      enter(at);
      ++c_.pos;
      NodePtr operand = parse_unary();
      --depth_;
      if (ch == '+') return operand;
      const std::size_t end = operand->end;
      return make_node(ch == '-' ? Op::neg : Op::bit_not, std::move(operand), nullptr, at, end);
    }
    if (!c_.at_end() && ch == '!')
      c_.fail(at, "'!' is not supported (only + - * / % & | ^ << >> ~)");
    return parse_primary();
  }

  NodePtr parse_primary() {
    c_.skip_ws();
    const std::size_t at = c_.pos;
    if (!c_.at_end() && is_digit(c_.peek())) {
      const i64 v = parse_integer_literal(c_);
      auto n = std::make_shared<ExprNode>();
      n->op = Op::literal;
      n->value = v;
      n->begin = at;
      n->end = c_.pos;
      return n;
    }
    if (!c_.at_end() && is_alpha(c_.peek())) return parse_variable();
    if (c_.at('(')) {
      enter(at);
      ++c_.pos;
      NodePtr inner = parse_level(0);
      c_.skip_ws();
      if (!c_.at(')'))
        c_.fail(c_.pos, "expected ')' to close the '(' at column " + std::to_string(at + 1) +
                            " but found " + c_.describe_here());
      ++c_.pos;
      --depth_;
      // A shallow copy whose span takes in the parentheses, so messages quote them.
      auto wrapped = std::make_shared<ExprNode>(*inner);
      wrapped->begin = at;
      wrapped->end = c_.pos;
      return wrapped;
    }
    c_.fail(at, "expected a number, a variable or '(' but found " + c_.describe_here());
  }

  NodePtr parse_variable() {
    const std::size_t at = c_.pos;
    std::string name = c_.ident();
    if (c_.at('.')) {
      // threadIdx.x is what kernels say; it means tx here.
      const std::size_t comp_at = c_.pos + 1;
      Cursor probe = c_;
      probe.pos = comp_at;
      const std::string comp = probe.peek_ident();
      if (name == "threadIdx" && (comp == "x" || comp == "y" || comp == "z")) {
        name = "t" + comp;
        c_.pos = comp_at + 1;
      } else {
        c_.fail(at, quote(name + "." + comp) +
                        " is not a variable here; use a plain name (threadIdx.x is tx) and "
                        "give it a value");
      }
    }
    const std::size_t next = c_.skip_ws_from(c_.pos);
    if (next < c_.text().size() && c_.text()[next] == '(')
      c_.fail(next, "function calls are not supported in index expressions");
    if (next < c_.text().size() && c_.text()[next] == '[')
      c_.fail(next, "an index expression cannot index another array");
    auto n = std::make_shared<ExprNode>();
    n->op = Op::var;
    n->name = std::move(name);
    n->begin = at;
    n->end = c_.pos;
    return n;
  }

  Cursor& c_;
  int depth_ = 0;
};

// ---------------------------------------------------------------------------------------
// Evaluation

struct EvalContext {
  const Env& env;
  const std::string& text;
};

std::string span_text(const EvalContext& cx, const ExprNode& n) {
  if (n.begin >= n.end || n.end > cx.text.size()) return "''";
  return quote(cx.text.substr(n.begin, n.end - n.begin));
}

[[noreturn]] void overflow(const EvalContext& cx, const ExprNode& n, i64 a, const char* op, i64 b) {
  throw EvalError{"integer overflow in " + span_text(cx, n) + ": " + std::to_string(a) + " " + op +
                  " " + std::to_string(b) + " does not fit in 64 bits"};
}

i64 lookup(const EvalContext& cx, const ExprNode& n) {
  const std::string& v = n.name;
  if (v == "lane") return cx.env.lane;
  if (v == "tx") return cx.env.tx;
  if (v == "ty") return cx.env.ty;
  if (v == "tz") return cx.env.tz;
  if (v == "warp") return cx.env.warp;
  const auto it = cx.env.vars.find(v);
  if (it == cx.env.vars.end())
    throw EvalError{"unknown variable " + quote(v) + " in " + quote(cx.text) +
                    ": give it a value (e.g. --set " + v + "=0)"};
  return it->second;
}

i64 eval(const EvalContext& cx, const ExprNode& n) {
  switch (n.op) {
    case Op::literal:
      return n.value;
    case Op::var:
      return lookup(cx, n);
    case Op::neg: {
      const i64 a = eval(cx, *n.lhs);
      if (a == std::numeric_limits<i64>::min())
        throw EvalError{"integer overflow in " + span_text(cx, n) + ": -(" + std::to_string(a) +
                        ") does not fit in 64 bits"};
      return -a;
    }
    case Op::bit_not:
      return ~eval(cx, *n.lhs);
    default:
      break;
  }
  const i64 a = eval(cx, *n.lhs);
  const i64 b = eval(cx, *n.rhs);
  i64 r = 0;
  switch (n.op) {
    case Op::add:
      if (__builtin_add_overflow(a, b, &r)) overflow(cx, n, a, "+", b);
      return r;
    case Op::sub:
      if (__builtin_sub_overflow(a, b, &r)) overflow(cx, n, a, "-", b);
      return r;
    case Op::mul:
      if (__builtin_mul_overflow(a, b, &r)) overflow(cx, n, a, "*", b);
      return r;
    case Op::div:
    case Op::mod: {
      const bool is_div = n.op == Op::div;
      if (b == 0)
        throw EvalError{std::string(is_div ? "division" : "modulo") + " by zero in " +
                        span_text(cx, n)};
      if (a == std::numeric_limits<i64>::min() && b == -1) {
        if (is_div) overflow(cx, n, a, "/", b);
        return 0;  // mathematically exact; only the C operator's quotient overflows
      }
      return is_div ? a / b : a % b;
    }
    case Op::shl:
    case Op::shr: {
      if (b < 0 || b >= 64)
        throw EvalError{"shift by " + std::to_string(b) + " in " + span_text(cx, n) +
                        " (the amount must be in [0, 64))"};
      if (n.op == Op::shr) return a >> b;  // arithmetic, as nvcc and gcc do
      // Shift the bits as unsigned (no UB), then require that shifting back restores a.
      r = static_cast<i64>(static_cast<std::uint64_t>(a) << b);
      if ((r >> b) != a) overflow(cx, n, a, "<<", b);
      return r;
    }
    case Op::bit_and:
      return a & b;
    case Op::bit_xor:
      return a ^ b;
    case Op::bit_or:
      return a | b;
    default:
      return 0;
  }
}

void collect_vars(const ExprNode& root, std::set<std::string>* out) {
  std::vector<const ExprNode*> stack = {&root};
  while (!stack.empty()) {
    const ExprNode* n = stack.back();
    stack.pop_back();
    if (n->op == Op::var && !is_builtin(n->name)) out->insert(n->name);
    if (n->lhs) stack.push_back(n->lhs.get());
    if (n->rhs) stack.push_back(n->rhs.get());
  }
}

// ---------------------------------------------------------------------------------------
// Instructions

// Labels for the pieces of one vector: float3 -> x, y, z; double4 -> xy, zw.
std::string piece_label(std::size_t i, std::size_t count) {
  static const char* const kThree[] = {"x", "y", "z"};
  static const char* const kTwo[] = {"xy", "zw"};
  static const char* const kFour[] = {"x", "y", "z", "w"};
  if (count == 3) return kThree[i];
  if (count == 2) return kTwo[i];
  if (count == 4) return kFour[i];
  return std::to_string(i);
}

void append_pieces(std::vector<Instruction>* out, const std::string& label, int offset, int size,
                   const std::vector<int>& widths) {
  if (widths.size() <= 1) {
    out->push_back({label, offset, widths.empty() ? size : widths[0]});
    return;
  }
  int at = offset;
  for (std::size_t i = 0; i < widths.size(); ++i) {
    const std::string comp = piece_label(i, widths.size());
    out->push_back({label.empty() ? comp : label + "." + comp, at, widths[i]});
    at += widths[i];
  }
}

// native_widths split per member; one piece of the member's size where a hand-built
// Decl's widths do not add up.
std::vector<std::vector<int>> member_widths(const Decl& d) {
  std::vector<std::vector<int>> out(d.members.size());
  std::size_t w = 0;
  bool ok = true;
  for (std::size_t i = 0; i < d.members.size(); ++i) {
    long sum = 0;
    while (sum < d.members[i].size && w < d.native_widths.size()) {
      sum += d.native_widths[w];
      out[i].push_back(d.native_widths[w++]);
    }
    ok = ok && sum == d.members[i].size;
  }
  if (!ok || w != d.native_widths.size())
    for (std::size_t i = 0; i < d.members.size(); ++i) out[i] = {d.members[i].size};
  return out;
}

std::string dims_text(const std::vector<i64>& dims) {
  std::string s;
  for (const i64 e : dims) s += e < 0 ? "[]" : "[" + std::to_string(e) + "]";
  return s;
}

}  // namespace

// ---------------------------------------------------------------------------------------

std::string ParseError::pretty() const {
  const std::size_t col = std::min<std::size_t>(column < 0 ? 0 : column, input.size());
  // A long input is shown as a window around the column, so the caret stays on screen.
  constexpr std::size_t kShown = 160;
  std::size_t from = 0, to = input.size();
  if (input.size() > kShown) {
    from = col > kShown / 2 ? col - kShown / 2 : 0;
    while (from > 0 && (static_cast<unsigned char>(input[from]) & 0xC0) == 0x80) --from;
    to = std::min(input.size(), from + kShown);
  }
  std::string shown = from > 0 ? "..." : "", caret(shown.size(), ' ');
  for (std::size_t i = from; i < to; ++i) {
    const auto ch = static_cast<unsigned char>(input[i]);
    // Control bytes become spaces so the caret stays under its character.
    shown += ch < 0x20 || ch == 0x7f ? ' ' : input[i];
    if (i < col && (ch & 0xC0) != 0x80) caret += ' ';  // one per UTF-8 character
  }
  if (to < input.size()) shown += "...";
  return message + " at column " + std::to_string(col + 1) + "\n  " + shown + "\n  " + caret + "^";
}

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

Access Access::parse(const std::string& text, const Decl& decl) {
  Cursor c(text);
  check_length(c, "access expression");
  Access a;
  a.decl_ = decl;
  a.text_ = text;

  c.skip_ws();
  const std::size_t start = c.pos;
  const std::string first = c.peek_ident();
  bool named = false;
  if (!first.empty()) {
    const std::size_t look = c.skip_ws_from(start + first.size());
    const bool more = look < text.size();
    named = (more && text[look] == '[') || (first == decl.name && (!more || text[look] == '.'));
    if (first == decl.name && !named)
      c.fail(look, quote(first) + " is the array; index it as " + first +
                       "[...] or give a bare element index");
  }

  if (!named) {
    ExprParser p(c);
    a.indices_.push_back(p.parse());
    c.skip_ws();
    if (!c.at_end()) c.fail(c.pos, "unexpected " + c.describe_here() + " after the element index");
    a.index_texts_.push_back(trim(text));
    a.bare_ = true;
  } else {
    if (first != decl.name)
      c.fail(start,
             "expected the declared array " + quote(decl.name) + " but found " + quote(first));
    c.pos = start + first.size();
    for (;;) {
      c.skip_ws();
      if (!c.at('[')) break;
      const std::size_t open = c.pos;
      if (a.indices_.size() == decl.dims.size())
        c.fail(open, "too many indices: " + decl.name + dims_text(decl.dims) + " has " +
                         std::to_string(decl.dims.size()) +
                         (decl.dims.size() == 1 ? " dimension" : " dimensions"));
      ++c.pos;
      c.skip_ws();
      if (c.at(']')) c.fail(c.pos, "expected an index expression inside '[]'");
      ExprParser p(c);
      a.indices_.push_back(p.parse());
      c.skip_ws();
      if (!c.at(']'))
        c.fail(c.pos, "expected ']' to close the '[' at column " + std::to_string(open + 1) +
                          " but found " + c.describe_here());
      a.index_texts_.push_back(trim(text.substr(open + 1, c.pos - open - 1)));
      ++c.pos;
    }
    if (a.indices_.size() != decl.dims.size())
      c.fail(c.pos, decl.name + dims_text(decl.dims) + " has " + std::to_string(decl.dims.size()) +
                        (decl.dims.size() == 1 ? " dimension" : " dimensions") +
                        " but the access gives " + std::to_string(a.indices_.size()) +
                        (a.indices_.size() == 1 ? " index" : " indices"));
    if (c.at('.')) {
      const std::size_t dot = c.pos;
      ++c.pos;
      c.skip_ws();
      if (decl.members.empty())
        c.fail(dot, "'.member' needs a struct element, but " + decl.name + " holds '" +
                        decl.type_name + "'");
      const std::size_t at = c.pos;
      const std::string m = c.ident();
      std::vector<std::string> names;
      for (const Member& mem : decl.members) names.push_back(mem.name);
      if (m.empty())
        c.fail(at, "expected a member name after '.' but found " + c.describe(at) +
                       "; the members are " + join(names, ", "));
      if (std::find(names.begin(), names.end(), m) == names.end())
        c.fail(at,
               decl.name + " has no member " + quote(m) + "; the members are " + join(names, ", "));
      a.member_ = m;
      c.skip_ws();
    }
    if (!c.at_end()) c.fail(c.pos, "unexpected " + c.describe_here() + " after the access");
  }

  // The instructions: a member's pieces, or every piece of the whole element.
  if (decl.members.empty()) {
    append_pieces(&a.instructions_, "", 0, decl.elem_size, decl.native_widths);
  } else {
    const std::vector<std::vector<int>> widths = member_widths(decl);
    for (std::size_t i = 0; i < decl.members.size(); ++i) {
      const Member& m = decl.members[i];
      if (!a.member_.empty() && m.name != a.member_) continue;
      append_pieces(&a.instructions_, m.name, m.offset, m.size, widths[i]);
    }
  }
  return a;
}

std::int64_t Access::element_offset(const Env& env) const {
  const EvalContext cx{env, text_};
  // Names the thread and the values of the user variables the access reads.
  auto who = [&]() {
    std::string s = " for lane " + std::to_string(env.lane);
    for (const std::string& v : free_variables()) {
      const auto it = env.vars.find(v);
      if (it != env.vars.end()) s += ", " + v + " = " + std::to_string(it->second);
    }
    return s;
  };
  try {
    i64 flat = 0;
    if (bare_) {
      const i64 v = eval(cx, *indices_.at(0));
      i64 total = 1;
      bool bounded = true;
      for (const i64 e : decl_.dims)
        if (e < 0 || __builtin_mul_overflow(total, e, &total)) bounded = false;
      if (v < 0 || (bounded && v >= total))
        throw EvalError{
            "element index " + std::to_string(v) + " (" + quote(index_texts_.at(0)) +
            ") is outside " + decl_.name + "'s " +
            (bounded ? std::to_string(total) + " elements [0, " + std::to_string(total) + ")"
                     : std::string("elements [0, unbounded)"))};
      flat = v;
    } else {
      for (std::size_t i = 0; i < indices_.size(); ++i) {
        const i64 v = eval(cx, *indices_[i]);
        const i64 extent = i < decl_.dims.size() ? decl_.dims[i] : 1;
        if (v < 0 || (extent >= 0 && v >= extent)) {
          const std::string where = decl_.dims.size() == 1 ? "bounds" : dimension_name(i);
          const std::string range =
              extent >= 0 ? "[0, " + std::to_string(extent) + ")" : "[0, unbounded)";
          throw EvalError{"index " + std::to_string(v) + " (" + quote(index_texts_.at(i)) +
                          ") is outside " + decl_.name + "'s " + where + " " + range};
        }
        if (i > 0 && __builtin_mul_overflow(flat, extent, &flat))
          throw EvalError{"the element index of " + quote(text_) + " overflows 64 bits"};
        if (__builtin_add_overflow(flat, v, &flat))
          throw EvalError{"the element index of " + quote(text_) + " overflows 64 bits"};
      }
    }
    i64 bytes = 0;
    if (__builtin_mul_overflow(flat, static_cast<i64>(decl_.elem_size), &bytes))
      throw EvalError{"the byte offset of element " + std::to_string(flat) + " overflows 64 bits"};
    return bytes;
  } catch (EvalError& e) {
    // Every error names the thread it happened for, added once here; a missing
    // variable is missing for all threads alike.
    if (e.message.rfind("unknown variable", 0) != 0) e.message += who();
    throw;
  }
}

std::vector<std::string> Access::free_variables() const {
  std::set<std::string> names;
  for (const auto& idx : indices_)
    if (idx) collect_vars(*idx, &names);
  return {names.begin(), names.end()};
}

}  // namespace memhier::model
