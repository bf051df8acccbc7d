// The strict decimal reader shared by the CLI's options and the registry's shapes.
#include "memhier/registry/decimal.hpp"

#include <cstdio>
#include <limits>

namespace memhier::registry {

Decimal read_decimal(std::string_view text) {
  Decimal d;
  const bool negative = !text.empty() && text[0] == '-';
  const std::string_view digits = negative ? text.substr(1) : text;
  if (digits.empty()) {
    d.problem = text.empty() ? "is empty" : "is not a decimal integer";
    return d;
  }
  for (char c : digits)
    if (c < '0' || c > '9') {
      d.problem = "is not a decimal integer";
      return d;
    }
  if (digits.size() > 1 && digits[0] == '0') {
    d.problem = "has a leading zero";
    return d;
  }
  // Accumulate downwards: INT64_MIN has no positive counterpart.
  std::int64_t v = 0;
  for (char c : digits) {
    const int digit = c - '0';
    if (v < (std::numeric_limits<std::int64_t>::min() + digit) / 10) {
      d.problem = "is outside the 64-bit integers";
      return d;
    }
    v = v * 10 - digit;
  }
  if (!negative) {
    if (v == std::numeric_limits<std::int64_t>::min()) {
      d.problem = "is outside the 64-bit integers";
      return d;
    }
    v = -v;
  }
  d.value = v;
  return d;
}

std::string quote_for_message(std::string_view text) {
  constexpr std::size_t kShown = 64;
  std::string s = "'";
  for (std::size_t i = 0; i < text.size() && i < kShown; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      s += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      s += buf;
    }
  }
  if (text.size() > kShown) s += "...";
  return s + "'";
}

}  // namespace memhier::registry
