// The catalogue's building blocks: how a claim states its band, the two kinds of entry,
// and the bands many claims share. Included by the catalogue's files only.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "memhier/claims/catalogue.hpp"

namespace memhier::claims {

// A claim's band as the catalogue states it: the rule and why that rule.
struct Stated {
  Tolerance band;
  std::string reason;
};

// A claim some probe or ladder checks, with the band every check of it uses.
inline Claim checked(ClaimId id, std::string source, std::string text,
                     std::vector<Checker> checkers, Stated b) {
  return {
      id, std::move(source), std::move(text), std::move(checkers), {}, b.band, std::move(b.reason),
      {}};
}

// A claim nothing here measures, with the reason.
inline Claim unmeasured(ClaimId id, std::string source, std::string text, std::string why) {
  return {id, std::move(source), std::move(text), {}, std::move(why), {}, {}, {}};
}

// The checkers as the catalogue's lines name them.
inline Checker probe(std::string name) {
  return Checker::probe(std::move(name));
}
inline Checker bench(std::string family) {
  return Checker::bench(std::move(family));
}
inline Checker profile(std::string target) {
  return Checker::profile(std::move(target));
}
inline Checker report(std::string part) {
  return Checker::report(std::move(part));
}

// Bands many claims share: ratios and fractions ±25 % by default; a wider band says why.
inline const Stated kRatio{
    Tolerance::within_percent(25),
    "the default for a ratio: noise and another card's balance, short of the "
    "neighbouring claim"};
inline const Stated kFraction{
    Tolerance::within_percent(25),
    "the default for a fraction (of cuBLAS, cudaMemcpy, peak): another card's "
    "balance moves it"};
inline const Stated kGain{
    Tolerance::within_gain_factor(2),
    "a gain under 2x: ±25 % would admit a slowdown, so the gain itself is halved "
    "or doubled (1.25x: 1.125..1.5x)"};
inline const Stated kLatency{
    Tolerance::within_percent(50),
    "a latency rounded or from another card: wider than the default, yet a "
    "figure a tier off is refuted"};
inline const Stated kKnee{
    Tolerance::within_percent(50),
    "a knee between two sizes of a power-of-two sweep: wider than the default, "
    "the sweep's own resolution"};
inline const Stated kTierBandwidth{
    Tolerance::within_factor(1.5),
    "a bandwidth from another card or rounded: wider than the default, "
    "a card generation apart; a tier off is refuted"};
inline const Stated kL2Curve{
    Tolerance::within_percent(50),
    "an A100 (40 MB L2) figure at a fraction of its L2: another L2's size and "
    "hit rate make it wider than the default"};
inline const Stated kModelBand{
    Tolerance::within_percent(35),
    "the probe's model tolerance (in its section), wider than the default: a "
    "slowdown within it matches the model"};
inline const Stated kExact{Tolerance::inside_range(), "a count or a hardware limit: exact"};

// The card claim `id` speaks of (src/claims/subjects.cpp); any card when it names none.
Subject subject_of(ClaimId id);

// The Hopper tiers' claims (TMA, clusters and distributed shared memory, the L2 halves,
// tensor cores), kept apart from the older tiers': src/claims/catalogue_hopper.cpp.
std::vector<Claim> hopper_claims();
// The tiers beyond the card (host memory, peer GPUs): src/claims/catalogue_outer.cpp.
std::vector<Claim> outer_claims();

}  // namespace memhier::claims
