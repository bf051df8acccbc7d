// The shared lexer and message helpers of the two parsers, and ParseError's rendering.
#include "lexer.hpp"

#include <cstdio>
#include <limits>

namespace memhier::model {

namespace lexer {
namespace {

int hex_value(char ch) {
  if (is_digit(ch)) return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

}  // namespace

bool is_builtin(const std::string& n) {
  return n == "lane" || n == "tx" || n == "ty" || n == "tz" || n == "warp";
}

std::string quote(const std::string& s) {
  constexpr std::size_t kMax = 60;
  if (s.size() <= kMax) return "'" + s + "'";
  return "'" + s.substr(0, kMax) + "...'";
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

std::string dims_text(const std::vector<i64>& dims) {
  std::string s;
  for (const i64 e : dims) s += e < 0 ? "[]" : "[" + std::to_string(e) + "]";
  return s;
}

std::string Cursor::describe(std::size_t p) const {
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

void check_length(const Cursor& c, const char* what) {
  if (c.text().size() > kMaxInputChars)
    c.fail(kMaxInputChars, std::string("the ") + what + " is " + std::to_string(c.text().size()) +
                               " characters long; the limit is " + std::to_string(kMaxInputChars));
}

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

}  // namespace lexer

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

}  // namespace memhier::model
