// The tests' own reading of a decimal, written independently of memhier's reader: the
// oracle the CLI's and the model's readers are checked against.
#pragma once

#include <cstdint>
#include <regex>
#include <stdexcept>
#include <string>

namespace memhier::testing {

/// Canonical digits (an optional '-', no leading zero) inside int64, into *v.
inline bool decimal(const std::string& s, std::int64_t* v) {
  static const std::regex form("-?(0|[1-9][0-9]*)");
  if (!std::regex_match(s, form)) return false;
  try {
    *v = std::stoll(s);
  } catch (const std::out_of_range&) {
    return false;
  }
  return true;
}

}  // namespace memhier::testing
