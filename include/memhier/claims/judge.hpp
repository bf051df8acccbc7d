// The one judge of claim verdicts: a measured number, what the claim says (a value or a
// range, in a unit) and the tolerance the checker states give the verdict (an enum) and its
// text, the tolerance written into it. Probes and ladders call it; no CUDA here.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "memhier/claims/catalogue.hpp"
#include "memhier/claims/tolerance.hpp"

namespace memhier::claims {

/// What a claim says, as numbers: lo == hi for a single value ("400 cycles").
struct Claimed {
  double lo = 0, hi = 0;
  std::string unit;  ///< "cycles", "GB/s"; "x", "x <of what>" and "%" sit against the number
  /// Decimals for the figures in this unit; -1: judge_number's rule. A checker whose close
  /// figures must read apart (1.116x against 1.125x) sets 3.
  int decimals = -1;

  /// A claim of one value.
  static Claimed value(double v, std::string unit) { return {v, v, std::move(unit), -1}; }
  /// A claim of a range ("20-30 cycles").
  static Claimed range(double lo, double hi, std::string unit) {
    return {lo, hi, std::move(unit), -1};
  }
  /// This claim with its figures written to `d` decimals.
  Claimed with_decimals(int d) const {
    Claimed c = *this;
    c.decimals = d;
    return c;
  }
};

/// Judges one measured value; a NaN or infinite value is "not measurable here: `unmeasured`".
Judgement judge(double measured, const Claimed& claimed, const Tolerance& tolerance,
                const std::string& unmeasured = "no figure was measured");

/// Judges a measurement known only to lie in [measured_lo, measured_hi] (a step between two
/// sizes of a sweep): reproduced when that interval meets the tolerated one.
Judgement judge_interval(double measured_lo, double measured_hi, const Claimed& claimed,
                         const Tolerance& tolerance,
                         const std::string& unmeasured = "no figure was measured");

/// One figure of a claim that several figures test together: what it is ("stride 4"), the
/// measured value, what the claim says of it and the tolerance that figure gets.
struct Figure {
  std::string label;
  double measured = 0;
  Claimed claimed;
  Tolerance tolerance;
};

/// Judges a claim that holds only if every figure does (strides 4 and 8, each stride's bank
/// degree, an ordering of two builds): reproduced when each is admitted by its tolerance,
/// refuted naming those that are not; not measurable when there is no figure or one is NaN.
Judgement judge_all(const std::vector<Figure>& figures,
                    const std::string& unmeasured = "no figure was measured");

/// The tolerance in words, as verdicts state it: "within ±50% of 20..30 cycles".
std::string describe(const Claimed& claimed, const Tolerance& tolerance);

/// The band alone, as the claims tables' "band" column shows it: "±25 %", "×/÷1.5",
/// "≥ 0.9", "> 1.05", "≤ 0", "inside the claim", "gain ×/÷2", "per figure".
std::string describe_band(const Tolerance& tolerance);

/// The interval of measurements `tolerance` admits around a claimed [lo, hi] (hi may be
/// infinite: "x or more"); the low end is exclusive for Rule::above.
std::pair<double, double> admitted(double lo, double hi, const Tolerance& tolerance);

/// A number as verdicts write it: no decimals from 100 up, one from 10, two below,
/// trailing zeros dropped ("3000", "29.5", "0.8").
std::string judge_number(double v);

}  // namespace memhier::claims
