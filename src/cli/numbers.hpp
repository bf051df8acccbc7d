// The command's own readers, for what only the command takes (--set NAME=VALUE, --sweep
// NAME=FROM..TO:STEP), strict as the model's: decimal only (a leading zero is an error,
// never octal), sweeps checked for overflow. Each violation is a UsageError whose message
// is one sentence naming the option, the value and what is allowed (exit 2).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "memhier/model/input.hpp"

namespace memhier::cli {

/// The most values one --sweep may take (each is a full analysis and an output row).
inline constexpr std::int64_t kMaxSweepValues = 1'000'000;

// Numbers, sizes, masks and block shapes are read by the model's readers, which the Python
// package calls too (memhier/model/input.hpp); a refusal there is a model::InputError.
using model::parse_block;
using model::parse_int;
using model::parse_mask;
using model::parse_size;

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
