// The one reader of what a user types (input.hpp): the command's options and the Python
// package's arguments both call these.
#include "memhier/model/input.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>

namespace memhier::model {
namespace {

constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

// The length of the run of decimal digits at the start of `s`.
std::size_t digit_run(std::string_view s) {
  std::size_t n = 0;
  while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n;
  return n;
}

std::string range_text(std::int64_t lo, std::int64_t hi) {
  return std::to_string(lo) + ".." + std::to_string(hi);
}

bool ends_with_ci(const std::string& s, const std::string& suffix) {
  if (s.size() < suffix.size()) return false;
  for (std::size_t i = 0; i < suffix.size(); ++i)
    if (std::toupper(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) !=
        std::toupper(static_cast<unsigned char>(suffix[i])))
      return false;
  return true;
}

// A run of digits that starts with '0' and has more digits after it ("09.0", "sm_090").
bool has_leading_zero(const std::string& text) {
  for (std::size_t i = 0; i + 1 < text.size(); ++i)
    if (text[i] == '0' && std::isdigit(static_cast<unsigned char>(text[i + 1])) &&
        (i == 0 || !std::isdigit(static_cast<unsigned char>(text[i - 1]))))
      return true;
  return false;
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

Decimal read_decimal(std::string_view text) {
  Decimal d;
  const bool negative = !text.empty() && text[0] == '-';
  const std::string_view digits = negative ? text.substr(1) : text;
  if (digits.empty()) {
    d.problem = text.empty() ? "is empty" : "is not a decimal integer";
    return d;
  }
  if (digit_run(digits) != digits.size()) {
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
    if (v < (kInt64Min + digit) / 10) {
      d.problem = "is outside the 64-bit integers";
      return d;
    }
    v = v * 10 - digit;
  }
  if (!negative) {
    if (v == kInt64Min) {
      d.problem = "is outside the 64-bit integers";
      return d;
    }
    v = -v;
  }
  d.value = v;
  return d;
}

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
  static const char* const kHex = "0123456789abcdef";
  std::string s = "'";
  for (std::size_t i = 0; i < text.size() && i < kShown; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f)
      s += static_cast<char>(c);
    else
      s += std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
  }
  if (text.size() > kShown) s += "...";
  return s + "'";
}

std::string input_name(const std::string& python_name, Face face) {
  if (face == Face::python) return python_name;
  std::string s = "--";
  for (char c : python_name) s += c == '_' ? '-' : c;
  return s;
}

std::vector<std::string> split_list(const std::string& text, const std::string& what) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    out.push_back(text.substr(start, comma == std::string::npos ? comma : comma - start));
    if (out.back().empty())
      throw InputError(what + " " + quote_for_message(text) + " has an empty item; give items "
                       "separated by single commas.");
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

std::int64_t parse_int(const std::string& text, const std::string& what, std::int64_t lo,
                       std::int64_t hi, const std::string& why) {
  const Decimal d = read_decimal(text);
  if (!d.ok())
    throw InputError(what + " " + quote_for_message(text) + " " + d.problem +
                     "; give a decimal integer in " + range_text(lo, hi) + why + ".");
  if (d.value < lo || d.value > hi)
    throw InputError(what + " " + std::to_string(d.value) + " is outside " + range_text(lo, hi) +
                     why + ".");
  return d.value;
}

std::int64_t parse_size(const std::string& text, const std::string& what, std::int64_t hi,
                        const std::string& why) {
  std::string digits = text;
  std::int64_t unit = 1;
  // Longest suffix first: "KiB" before "B".
  for (const auto& [suffix, mult] : {std::pair<const char*, std::int64_t>{"KiB", 1024},
                                     {"KB", 1024},
                                     {"K", 1024},
                                     {"MiB", 1 << 20},
                                     {"MB", 1 << 20},
                                     {"M", 1 << 20},
                                     {"GiB", 1 << 30},
                                     {"GB", 1 << 30},
                                     {"G", 1 << 30},
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
    throw InputError(what + " " + quote_for_message(text) + " " +
                     (d.ok() ? std::string("is negative") : d.problem) +
                     "; give decimal bytes, optionally with a K, M or G suffix (times 1024, "
                     "1024^2 or 1024^3), in " +
                     range + ".");
  if (d.value > hi / unit)
    throw InputError(what + " " + quote_for_message(text) + " is outside " + range + ".");
  return d.value * unit;
}

std::uint32_t parse_mask(const std::string& text, const std::string& what) {
  constexpr std::int64_t kAll = 0xffffffffLL;
  const std::string range = " (a mask of 32 lanes, e.g. 0xffff)";
  if (text.size() < 2 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X'))
    return static_cast<std::uint32_t>(parse_int(text, what, 0, kAll, range));
  const std::string hex = text.substr(2);
  const std::string head = what + " " + quote_for_message(text);
  if (hex.empty() || hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    throw InputError(head + " is not a hexadecimal or decimal integer; give one in 0..0xffffffff" +
                     range + ".");
  std::int64_t v = 0;
  for (char c : hex) {
    v = v * 16 + (std::isdigit(static_cast<unsigned char>(c))
                      ? c - '0'
                      : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
    if (v > kAll) throw InputError(head + " is outside 0..0xffffffff" + range + ".");
  }
  return static_cast<std::uint32_t>(v);
}

std::array<int, 3> parse_block(const std::string& text, const std::string& what, int max_threads) {
  const std::string head = what + " " + quote_for_message(text);
  std::array<int, 3> dims = {1, 1, 1};
  std::size_t n = 0, start = 0;
  while (true) {
    const std::size_t x = text.find_first_of("xX,", start);
    const std::string part = text.substr(start, x == std::string::npos ? x : x - start);
    const Decimal d = read_decimal(part);
    if (!d.ok())
      throw InputError(head + " is not 1 to 3 decimal extents joined by 'x' (extent " +
                       quote_for_message(part) + " " + d.problem + ").");
    if (d.value < 1 || d.value > 1024)
      throw InputError(head + " has extent " + std::to_string(d.value) + ", outside 1..1024.");
    if (n == 3) throw InputError(head + " has more than 3 extents (XxYxZ).");
    dims[n++] = static_cast<int>(d.value);
    if (x == std::string::npos) break;
    start = x + 1;
  }
  const std::int64_t threads = std::int64_t{dims[0]} * dims[1] * dims[2];
  if (threads > max_threads)
    throw InputError(head + " has " + std::to_string(threads) + " threads, more than the " +
                     std::to_string(max_threads) + " a block may have.");
  return dims;
}

std::vector<std::int64_t> parse_shape(const std::string& text, std::size_t expected_dims,
                                      const std::string& what, double max_product) {
  const std::string head = what + " shape " + quote_for_message(text);
  const std::string form = " is not " + std::to_string(expected_dims) +
                           " positive decimal integers (no leading zeros) joined by 'x'";
  std::vector<std::int64_t> dims;
  std::size_t start = 0;
  while (true) {
    const std::size_t x = text.find_first_of("xX", start);
    const std::string part = text.substr(start, x == std::string::npos ? x : x - start);
    const Decimal d = read_decimal(part);
    if (!d.ok())
      throw InputError(head + form + " (extent " + quote_for_message(part) + " " + d.problem +
                       ").");
    if (d.value < 1)
      throw InputError(head + form + " (extent " + std::to_string(d.value) + " is not positive).");
    dims.push_back(d.value);
    if (x == std::string::npos) break;
    start = x + 1;
  }
  if (dims.size() != expected_dims)
    throw InputError(head + " needs " + std::to_string(expected_dims) + " extents joined by 'x'.");
  // The element count, checked for overflow; an unbounded family (GEMM's m*n*k is work,
  // not storage) checks its own sizes.
  if (max_product < static_cast<double>(std::numeric_limits<std::int64_t>::max())) {
    std::int64_t total = 1;
    bool overflow = false;
    for (std::int64_t d : dims) overflow = overflow || __builtin_mul_overflow(total, d, &total);
    const auto limit = static_cast<std::int64_t>(max_product);
    if (overflow || total > limit)
      throw InputError(head + " has " +
                       (overflow ? std::string("more than 2^63-1") : std::to_string(total)) +
                       " elements; at most " + std::to_string(limit) + " are allowed.");
  }
  return dims;
}

const ArchSpec& parse_arch(const std::string& text, const std::string& what) {
  // Strict like every number: "09.0" is refused, not read as 9.0.
  const ArchSpec* arch = has_leading_zero(text) ? nullptr : find_arch(text);
  if (arch) return *arch;
  std::vector<std::string> known;
  for (const ArchSpec& a : all_archs()) known.push_back(a.cc());
  throw InputError(what + " " + quote_for_message(text) +
                   " is not a known compute capability; known: " + joined(known) + ".");
}

const Card& parse_card(const std::string& text, const std::string& what,
                       const std::vector<std::string>& also) {
  if (const Card* c = has_leading_zero(text) ? nullptr : find_card(text)) return *c;
  std::vector<std::string> known = also;
  for (const Card& c : all_cards()) known.push_back(c.key + " (" + c.arch().cc() + ")");
  throw InputError(what + " " + quote_for_message(text) +
                   " is neither a known card nor a compute capability; choose one of " +
                   joined(known) + ".");
}

std::size_t parse_choice(const std::string& text, const std::string& what,
                         const std::vector<std::string>& known) {
  for (std::size_t i = 0; i < known.size(); ++i)
    if (text == known[i]) return i;
  throw InputError("unknown " + what + " " + quote_for_message(text) + "; known: " + joined(known) +
                   ".");
}

OccupancyInput read_occupancy(const OccupancyText& text, Face face) {
  const auto name = [face](const char* n) { return input_name(n, face); };
  OccupancyInput in;
  const ArchSpec& arch = parse_arch(text.cc, name("cc"));
  in.arch = &arch;
  const std::string on_arch = " on compute capability " + arch.cc();
  const std::array<int, 3> b = parse_block(text.block, name("block"), arch.max_threads_per_block);
  LaunchResources& r = in.resources;
  r.block_threads = b[0] * b[1] * b[2];
  r.regs_per_thread =
      static_cast<int>(parse_int(text.regs, name("regs"), 1, arch.max_regs_per_thread,
                                 " (registers per thread" + on_arch + ")"));
  r.dynamic_smem_bytes =
      static_cast<int>(parse_size(text.smem, name("smem"), arch.smem_per_block_optin,
                                  " (the most a block may use" + on_arch + ")"));
  // Static __shared__ arrays are capped below the opt-in size (ptxas refuses more).
  r.static_smem_bytes = static_cast<int>(
      parse_size(text.static_smem, name("static_smem"), arch.smem_per_block_default,
                 " (the most static shared memory a block may declare" + on_arch + ")"));
  r.carveout_percent =
      text.carveout
          ? static_cast<int>(parse_int(*text.carveout, name("carveout"), 0, 100, " (percent)"))
          : -1;
  return in;
}

WarpContext read_warp_context(const WarpText& text, Face face) {
  const auto name = [face](const char* n) { return input_name(n, face); };
  WarpContext ctx;
  const std::array<int, 3> b = parse_block(text.block, name("block"));
  ctx.block_x = b[0];
  ctx.block_y = b[1];
  ctx.block_z = b[2];
  const int warps = (ctx.block_threads() + 31) / 32;
  ctx.warp = static_cast<int>(parse_int(text.warp, name("warp"), 0, warps - 1,
                                        " (a block of " + std::to_string(ctx.block_threads()) +
                                            " threads has " + std::to_string(warps) +
                                            (warps > 1 ? " warps)" : " warp)")));
  ctx.offset_bytes =
      parse_int(text.offset_bytes, name("offset_bytes"), 0, kMaxOffsetBytes, " (1 TiB)");
  ctx.active_mask = parse_mask(text.active, name("active"));
  return ctx;
}

}  // namespace memhier::model
