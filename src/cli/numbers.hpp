// Every number the memhier command takes, read strictly: decimal only (a leading zero is
// an error, never octal), a range per option, products and sweeps checked for overflow.
// Each violation is a UsageError whose message is one sentence naming the option, the
// value and what is allowed (exit 2).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace memhier::cli {

/// The most values one --sweep may take (each is a full analysis and an output row).
inline constexpr std::int64_t kMaxSweepValues = 1'000'000;

/// The largest --offset-bytes: 1 TiB, far past any alignment question the model answers.
inline constexpr std::int64_t kMaxOffsetBytes = std::int64_t{1} << 40;

/// `text` as a decimal integer in lo..hi, or UsageError naming `option`; `why` (if any)
/// is appended to the range in messages, e.g. " (registers per thread on 9.0)".
std::int64_t parse_int(const std::string& text, const std::string& option, std::int64_t lo,
                       std::int64_t hi, const std::string& why = "");

/// Bytes from "48K", "48KB", "48KiB", "1M", "49152" (K = 1024, decimal digits), in 0..hi.
std::int64_t parse_size(const std::string& text, const std::string& option, std::int64_t hi,
                        const std::string& why = "");

/// A 32-bit lane mask: "0xffff" (hex, as masks are written) or decimal, in 0..0xffffffff.
std::uint32_t parse_mask(const std::string& text, const std::string& option);

/// "32x8", "32x8x2", "256" -> {x, y, z}: each 1..1024, at most `max_threads` in all.
std::vector<int> parse_block(const std::string& text, const std::string& option,
                             int max_threads = 1024);

/// "k=3" -> {"k", 3}: a variable name and any 64-bit value.
std::pair<std::string, std::int64_t> parse_assignment(const std::string& text,
                                                      const std::string& option);

/// A swept variable: "s=1..33" or "s=0..64:4", at most kMaxSweepValues values.
struct Sweep {
  std::string name;
  std::int64_t from = 0, to = 0, step = 1;
  std::int64_t count() const;                ///< how many values
  std::int64_t value(std::int64_t i) const;  ///< the i-th value, 0 <= i < count()
};
Sweep parse_sweep(const std::string& text, const std::string& option);

}  // namespace memhier::cli
