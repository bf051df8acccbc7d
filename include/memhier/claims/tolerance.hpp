// The tolerance band of a claim: which measurements still reproduce it. The catalogue
// states one per claim (with its reason); the judge applies it. No CUDA here.
#pragma once

namespace memhier::claims {

/// The stated tolerance: which measurements still reproduce the claim.
struct Tolerance {
  enum class Rule {
    factor,      ///< [lo / amount, hi * amount]
    percent,     ///< [lo * (1 - amount/100), hi * (1 + amount/100)]
    inside,      ///< [lo, hi]: the claim's own range is the tolerance
    at_least,    ///< measured >= amount
    at_most,     ///< measured <= amount
    above,       ///< measured > amount (strict: an ordering "a slower than b by more than ...")
    gain,        ///< a speedup's gain (x - 1) within a factor `amount`: [1 + (lo-1)/a, 1 + (hi-1)a]
    per_figure,  ///< several figures, each with its own band (stated in the verdict)
  };
  Rule rule = Rule::inside;
  double amount = 0;

  /// Within a factor `f` (> 1) of the claim, either way.
  static Tolerance within_factor(double f) { return {Rule::factor, f}; }
  /// Within ±`p` percent of the claim.
  static Tolerance within_percent(double p) { return {Rule::percent, p}; }
  /// Inside the claimed range itself.
  static Tolerance inside_range() { return {Rule::inside, 0}; }
  /// At least `floor`, whatever the claimed value.
  static Tolerance at_least(double floor) { return {Rule::at_least, floor}; }
  /// At most `ceiling`.
  static Tolerance at_most(double ceiling) { return {Rule::at_most, ceiling}; }
  /// Strictly above `floor`.
  static Tolerance above(double floor) { return {Rule::above, floor}; }
  /// A speedup's gain over 1 within a factor `f` either way (1.25x, f = 2: 1.125..1.5x).
  static Tolerance within_gain_factor(double f) { return {Rule::gain, f}; }
  /// Figures judged together, each with its own band (judge_all).
  static Tolerance per_figure() { return {Rule::per_figure, 0}; }
};

}  // namespace memhier::claims
