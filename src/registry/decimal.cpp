// The strict decimal reader shared by the CLI's options and the registry's shapes.
#include "memhier/registry/decimal.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
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

namespace {

// The length of the run of decimal digits at the start of `s`.
std::size_t digit_run(std::string_view s) {
  std::size_t n = 0;
  while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n;
  return n;
}

}  // namespace

DecimalReal read_decimal_real(std::string_view text) {
  DecimalReal r;
  std::string_view rest = text;
  if (!rest.empty() && rest[0] == '-') rest.remove_prefix(1);
  const std::size_t whole = digit_run(rest);
  if (text.empty()) {
    r.problem = "is empty";
    return r;
  }
  if (whole > 1 && rest[0] == '0') {
    r.problem = "has a leading zero";
    return r;
  }
  bool form = whole > 0;
  rest.remove_prefix(whole);
  if (form && !rest.empty() && rest[0] == '.') {
    const std::size_t fraction = digit_run(rest.substr(1));
    form = fraction > 0;
    rest.remove_prefix(1 + fraction);
  }
  if (form && !rest.empty() && (rest[0] == 'e' || rest[0] == 'E')) {
    rest.remove_prefix(1);
    if (!rest.empty() && (rest[0] == '-' || rest[0] == '+')) rest.remove_prefix(1);
    const std::size_t exponent = digit_run(rest);
    form = exponent > 0;
    rest.remove_prefix(exponent);
  }
  if (!form || !rest.empty()) {
    r.problem = "is not a decimal number";
    return r;
  }
  // The form is checked, so strtod reads all of it (the C locale's '.' is the point).
  const std::string copy(text);
  const double v = std::strtod(copy.c_str(), nullptr);
  if (!std::isfinite(v)) {
    r.problem = "is outside the finite doubles";
    return r;
  }
  r.value = v;
  return r;
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
