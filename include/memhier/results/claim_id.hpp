// Claim ids as a compile-time enum generated from the one list (claim_ids.inc): code names a
// claim as ClaimId::padding_3x_matmul, so an id the catalogue lacks fails to compile. Plain
// data, host-only: probes, kernels, bench, claims and report can all include it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace memhier::results {

/// One claim of the catalogue (src/claims/catalogue*.cpp holds its text, source and band).
enum class ClaimId : std::uint16_t {
#define MEMHIER_CLAIM(name, text) name,
#include "memhier/results/claim_ids.inc"
};

/// How many claims the list holds.
inline constexpr std::size_t kClaimCount = 0
#define MEMHIER_CLAIM(name, text) +1
#include "memhier/results/claim_ids.inc"
    ;

namespace detail {

inline constexpr std::string_view kClaimText[] = {
#define MEMHIER_CLAIM(name, text) text,
#include "memhier/results/claim_ids.inc"
};

// Whether `text` is `name` with each '_' written '-': the two spellings cannot drift apart.
constexpr bool same_spelling(std::string_view name, std::string_view text) {
  if (name.size() != text.size()) return false;
  for (std::size_t i = 0; i < name.size(); ++i)
    if (name[i] != (text[i] == '-' ? '_' : text[i])) return false;
  return true;
}

#define MEMHIER_CLAIM(name, text) \
  static_assert(same_spelling(#name, text), "claim_ids.inc: " #name " is not " text);
#include "memhier/results/claim_ids.inc"

}  // namespace detail

/// The id as reports and docs write it: "padding-3x-matmul".
constexpr std::string_view name(ClaimId id) {
  return detail::kClaimText[static_cast<std::size_t>(id)];
}

/// The claim a user named ("memhier claims padding-3x-matmul"), or nothing.
constexpr std::optional<ClaimId> parse_claim_id(std::string_view text) {
  for (std::size_t i = 0; i < kClaimCount; ++i)
    if (detail::kClaimText[i] == text) return static_cast<ClaimId>(i);
  return std::nullopt;
}

}  // namespace memhier::results
