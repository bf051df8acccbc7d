// Strict decimal integers: the one reader behind every number the CLI takes and every
// extent of a shape, so that "010" never means 8 and a huge number never wraps.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace memhier::registry {

/// A decimal integer as read from text, or why the text is not one.
struct Decimal {
  std::int64_t value = 0;
  /// Empty on success, else a phrase completing "'TEXT' ...": "has a leading zero".
  std::string problem;
  bool ok() const { return problem.empty(); }
};

/// Reads an optional '-' then decimal digits, nothing else (no spaces, '+', hex, exponent
/// or suffix). A leading zero ("010") is refused rather than read as octal 8 or decimal 10.
Decimal read_decimal(std::string_view text);

/// A finite decimal real as read from text, or why the text is not one.
struct DecimalReal {
  double value = 0;
  std::string problem;  ///< as Decimal::problem: "is not a decimal number"
  bool ok() const { return problem.empty(); }
};

/// Reads "-1.5", "0.25", "2e-3": an optional '-', an integer part as read_decimal reads it
/// (no leading zero), an optional ".DIGITS" and an optional exponent "e[+-]DIGITS".
/// Refuses spaces, a leading '+', hex, "inf", "nan" and a value that overflows a double.
DecimalReal read_decimal_real(std::string_view text);

/// `text` for a message: quoted, non-printable bytes as \xNN, cut to 64 characters,
/// so that a message about it stays one line.
std::string quote_for_message(std::string_view text);

}  // namespace memhier::registry
