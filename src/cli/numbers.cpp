// The command's own strict readers: --set and --sweep (see numbers.hpp).
#include "numbers.hpp"

#include <cctype>
#include <limits>

#include "common.hpp"

namespace memhier::cli {
namespace {

using model::Decimal;
using model::quote_for_message;
using model::read_decimal;

constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

std::string range_text(std::int64_t lo, std::int64_t hi) {
  return std::to_string(lo) + ".." + std::to_string(hi);
}

// A variable a user may set: an identifier that the thread layout does not already define.
void check_name(const std::string& name, const std::string& option, const std::string& text) {
  static const char* reserved[] = {"lane", "tx", "ty", "tz", "warp"};
  const std::string head = option + " " + quote_for_message(text);
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    throw UsageError(head + " does not start with a variable name.");
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
      throw UsageError(head + ": " + quote_for_message(name) + " is not a valid variable name.");
  for (const char* r : reserved)
    if (name == r)
      throw UsageError(head + ": '" + name +
                       "' is set by the thread layout; use --block or --warp instead.");
}

// A 64-bit value inside an assignment or a sweep, named by `part` ("the value", "the start").
std::int64_t any_int64(const std::string& text, const std::string& option, const std::string& part,
                       const std::string& number) {
  const Decimal d = read_decimal(number);
  if (!d.ok())
    throw UsageError(option + " " + quote_for_message(text) + ": " + part + " " +
                     quote_for_message(number) + " " + d.problem + "; give a decimal integer in " +
                     range_text(kInt64Min, kInt64Max) + ".");
  return d.value;
}

}  // namespace

std::pair<std::string, std::int64_t> parse_assignment(const std::string& text,
                                                      const std::string& option) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos)
    throw UsageError(option + " " + quote_for_message(text) + " is not of the form NAME=VALUE.");
  const std::string name = text.substr(0, eq);
  check_name(name, option, text);
  return {name, any_int64(text, option, "the value", text.substr(eq + 1))};
}

Sweep parse_sweep(const std::string& text, const std::string& option) {
  const std::string head = option + " " + quote_for_message(text);
  const std::size_t eq = text.find('=');
  const std::size_t dots = text.find("..");
  if (eq == std::string::npos || dots == std::string::npos || dots < eq)
    throw UsageError(head + " is not of the form NAME=FROM..TO[:STEP].");
  Sweep s;
  s.name = text.substr(0, eq);
  check_name(s.name, option, text);
  s.from = any_int64(text, option, "the start", text.substr(eq + 1, dots - eq - 1));
  std::string rest = text.substr(dots + 2);
  const std::size_t colon = rest.find(':');
  if (colon != std::string::npos) {
    const std::string step = rest.substr(colon + 1);
    const Decimal d = read_decimal(step);
    if (!d.ok() || d.value < 1)
      throw UsageError(head + ": the step " + quote_for_message(step) +
                       " is not a decimal integer in " + range_text(1, kInt64Max) + ".");
    s.step = d.value;
    rest = rest.substr(0, colon);
  }
  s.to = any_int64(text, option, "the end", rest);
  if (s.to < s.from) throw UsageError(head + " ends before it starts.");
  // Counted in unsigned arithmetic: to - from may exceed int64 (e.g. -2^63..2^63-1).
  const std::uint64_t steps =
      (static_cast<std::uint64_t>(s.to) - static_cast<std::uint64_t>(s.from)) /
      static_cast<std::uint64_t>(s.step);
  if (steps >= static_cast<std::uint64_t>(kMaxSweepValues))
    throw UsageError(head + " has " +
                     (steps == std::numeric_limits<std::uint64_t>::max()
                          ? std::string("18446744073709551616")
                          : std::to_string(steps + 1)) +
                     " values; a sweep takes at most " + std::to_string(kMaxSweepValues) + ".");
  return s;
}

std::int64_t Sweep::count() const {
  return static_cast<std::int64_t>(
             (static_cast<std::uint64_t>(to) - static_cast<std::uint64_t>(from)) /
             static_cast<std::uint64_t>(step)) +
         1;
}

std::int64_t Sweep::value(std::int64_t i) const {
  // from + i * step <= to, so the unsigned sum is the exact value modulo 2^64.
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(from) +
                                   static_cast<std::uint64_t>(i) *
                                       static_cast<std::uint64_t>(step));
}

}  // namespace memhier::cli
