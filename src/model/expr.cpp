// The access-expression parser ("tile[lane][k]", "p[lane].y", "lane*2"): a recursive-descent
// parser that reports exact columns, a checked int64 evaluator, the instructions an access
// compiles to. Declarations are parsed in decl.cpp.
#include "memhier/model/expr.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lexer.hpp"

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

using namespace lexer;

namespace {

using NodePtr = std::shared_ptr<const ExprNode>;
constexpr int kMaxNesting = 256;

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

// "second dimension" for index 1; "dimension 12" past the tenth.
std::string dimension_name(std::size_t i) {
  static const char* const kNames[] = {"first", "second",  "third",  "fourth", "fifth",
                                       "sixth", "seventh", "eighth", "ninth",  "tenth"};
  if (i < 10) return std::string(kNames[i]) + " dimension";
  return "dimension " + std::to_string(i + 1);
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

}  // namespace

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
