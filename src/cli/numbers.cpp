// The strict readers behind every numeric option (see numbers.hpp).
#include "numbers.hpp"

#include <cctype>
#include <limits>

#include "common.hpp"
#include "memhier/registry/decimal.hpp"

namespace memhier::cli {
namespace {

using registry::Decimal;
using registry::quote_for_message;
using registry::read_decimal;

constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

std::string range_text(std::int64_t lo, std::int64_t hi) {
  return std::to_string(lo) + ".." + std::to_string(hi);
}

// "OPTION 'TEXT' PROBLEM; give a decimal integer in LO..HI WHY."
[[noreturn]] void not_decimal(const std::string& option, const std::string& text, const Decimal& d,
                              std::int64_t lo, std::int64_t hi, const std::string& why) {
  throw UsageError(option + " " + quote_for_message(text) + " " + d.problem +
                   "; give a decimal integer in " + range_text(lo, hi) + why + ".");
}

bool ends_with_ci(const std::string& s, const std::string& suffix) {
  if (s.size() < suffix.size()) return false;
  for (std::size_t i = 0; i < suffix.size(); ++i)
    if (std::toupper(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) !=
        std::toupper(static_cast<unsigned char>(suffix[i])))
      return false;
  return true;
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

std::int64_t parse_int(const std::string& text, const std::string& option, std::int64_t lo,
                       std::int64_t hi, const std::string& why) {
  const Decimal d = read_decimal(text);
  if (!d.ok()) not_decimal(option, text, d, lo, hi, why);
  if (d.value < lo || d.value > hi)
    throw UsageError(option + " " + std::to_string(d.value) + " is outside " + range_text(lo, hi) +
                     why + ".");
  return d.value;
}

std::int64_t parse_size(const std::string& text, const std::string& option, std::int64_t hi,
                        const std::string& why) {
  std::string digits = text;
  std::int64_t unit = 1;
  for (const auto& [suffix, mult] : {std::pair<const char*, std::int64_t>{"KiB", 1024},
                                     {"KB", 1024},
                                     {"K", 1024},
                                     {"MiB", 1 << 20},
                                     {"MB", 1 << 20},
                                     {"M", 1 << 20},
                                     {"B", 1}}) {
    if (ends_with_ci(digits, suffix)) {
      digits.resize(digits.size() - std::string(suffix).size());
      unit = mult;
      break;
    }
  }
  const std::string range = "0.." + std::to_string(hi) + " bytes" + why;
  const Decimal d = read_decimal(digits);
  if (!d.ok() || d.value < 0)
    throw UsageError(option + " " + quote_for_message(text) + " " +
                     (d.ok() ? std::string("is negative") : d.problem) +
                     "; give decimal bytes, optionally with a K or M suffix (1024 or 1048576 "
                     "bytes), in " +
                     range + ".");
  if (d.value > hi / unit)
    throw UsageError(option + " " + quote_for_message(text) + " is outside " + range + ".");
  return d.value * unit;
}

std::uint32_t parse_mask(const std::string& text, const std::string& option) {
  constexpr std::int64_t kAll = 0xffffffffLL;
  const std::string range = " (a mask of 32 lanes, e.g. 0xffff)";
  if (text.size() < 2 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X'))
    return static_cast<std::uint32_t>(parse_int(text, option, 0, kAll, range));
  const std::string hex = text.substr(2);
  const std::string head = option + " " + quote_for_message(text);
  if (hex.empty() || hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    throw UsageError(head + " is not a hexadecimal or decimal integer; give one in 0..0xffffffff" +
                     range + ".");
  std::int64_t v = 0;
  for (char c : hex) {
    v = v * 16 + (std::isdigit(static_cast<unsigned char>(c))
                      ? c - '0'
                      : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
    if (v > kAll) throw UsageError(head + " is outside 0..0xffffffff" + range + ".");
  }
  return static_cast<std::uint32_t>(v);
}

std::vector<int> parse_block(const std::string& text, const std::string& option, int max_threads) {
  const std::string head = option + " " + quote_for_message(text);
  std::vector<int> dims;
  std::size_t start = 0;
  while (true) {
    const std::size_t x = text.find_first_of("xX,", start);
    const std::string part = text.substr(start, x == std::string::npos ? x : x - start);
    const Decimal d = read_decimal(part);
    if (!d.ok())
      throw UsageError(head + " is not 1 to 3 decimal extents joined by 'x' (extent " +
                       quote_for_message(part) + " " + d.problem + ").");
    if (d.value < 1 || d.value > 1024)
      throw UsageError(head + " has extent " + std::to_string(d.value) + ", outside 1..1024.");
    dims.push_back(static_cast<int>(d.value));
    if (dims.size() > 3) throw UsageError(head + " has more than 3 extents (XxYxZ).");
    if (x == std::string::npos) break;
    start = x + 1;
  }
  while (dims.size() < 3) dims.push_back(1);
  const std::int64_t threads = std::int64_t{dims[0]} * dims[1] * dims[2];
  if (threads > max_threads)
    throw UsageError(head + " has " + std::to_string(threads) + " threads, more than the " +
                     std::to_string(max_threads) + " a block may have.");
  return dims;
}

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
