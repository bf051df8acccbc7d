// The lexer and the message helpers the declaration parser (decl.cpp) and the
// expression parser (expr.cpp) share: a cursor over the text that throws ParseError
// with exact columns, character classes, integer literals, quoting for messages.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "memhier/model/expr.hpp"

namespace memhier::model::lexer {

using i64 = std::int64_t;

/// Longest declaration or access accepted: bounds the work and the messages.
constexpr std::size_t kMaxInputChars = 4096;

/// C's whitespace.
inline bool is_space(char ch) {
  return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v';
}
/// A decimal digit.
inline bool is_digit(char ch) {
  return ch >= '0' && ch <= '9';
}
/// A character that may start an identifier.
inline bool is_alpha(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}
/// A character that may continue an identifier.
inline bool is_alnum(char ch) {
  return is_alpha(ch) || is_digit(ch);
}

/// lane, tx, ty, tz or warp: the variables every thread has.
bool is_builtin(const std::string& n);
/// Quoted source text for a message, shortened so a 4 KB input cannot flood it.
std::string quote(const std::string& s);
/// The parts with `sep` between them.
std::string join(const std::vector<std::string>& parts, const char* sep);
/// "[32][33]", "[]" for an unsized extent.
std::string dims_text(const std::vector<i64>& dims);

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
  std::string describe(std::size_t p) const;
  std::string describe_here() const { return describe(pos); }

  [[noreturn]] void fail(std::size_t column, std::string message) const {
    throw ParseError{std::move(message), static_cast<int>(std::min(column, text_.size())), text_};
  }

  std::size_t pos = 0;

 private:
  const std::string& text_;
};

/// Fails when the text is longer than kMaxInputChars; `what` names it in the message.
void check_length(const Cursor& c, const char* what);

/// Decimal or 0x-hex literal at the cursor into int64, consuming it. Leading zeros are
/// refused because C reads them as octal, and a silently different number is worse
/// than an error.
i64 parse_integer_literal(Cursor& c);

}  // namespace memhier::model::lexer
