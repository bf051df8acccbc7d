#include "memhier/claims/judge.hpp"

#include <cmath>
#include <limits>
#include <utility>

#include "memhier/model/text.hpp"

namespace memhier::claims {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The accepted interval [lo, hi] the rule gives; `strict_lo` for Rule::above.
struct Accepted {
  double lo, hi;
  bool strict_lo = false;
};

Accepted accepted(const Claimed& c, const Tolerance& t) {
  switch (t.rule) {
    case Tolerance::Rule::factor:
      return {c.lo / t.amount, c.hi * t.amount};
    case Tolerance::Rule::percent:
      return {c.lo * (1 - t.amount / 100), c.hi * (1 + t.amount / 100)};
    case Tolerance::Rule::inside:
      return {c.lo, c.hi};
    case Tolerance::Rule::at_least:
      return {t.amount, kInf};
    case Tolerance::Rule::at_most:
      return {-kInf, t.amount};
    case Tolerance::Rule::above:
      return {t.amount, kInf, true};
    case Tolerance::Rule::gain:
      return {1 + (c.lo - 1) / t.amount, 1 + (c.hi - 1) * t.amount};
    case Tolerance::Rule::per_figure:
      break;  // a band of the figures, not of the claim: never judged as one
  }
  return {c.lo, c.hi};
}

bool admits(const Accepted& a, double v) {
  return (a.strict_lo ? v > a.lo : v >= a.lo) && v <= a.hi;
}

// "30 cycles", "1.25x", "57%".
// A figure in the claim's unit, with the claim's decimals when it sets them.
std::string in_unit(double v, const Claimed& c) {
  if (c.decimals < 0 || !std::isfinite(v)) return judge_number(v);
  return model::strf("%.*f", c.decimals, v);
}

std::string with_unit(double v, const Claimed& c) {
  const std::string n = in_unit(v, c);
  const std::string& unit = c.unit;
  if (unit.empty()) return n;
  // "1.5x", "57%", "0.9x cudaMemcpy": a ratio's unit sits against the number.
  if (unit == "x" || unit == "%" || unit.rfind("x ", 0) == 0 || unit.rfind("% ", 0) == 0)
    return n + unit;
  return n + " " + unit;
}

std::string claimed_text(const Claimed& c) {
  if (c.lo == c.hi) return with_unit(c.lo, c);
  if (std::isinf(c.hi)) return "at least " + with_unit(c.lo, c);
  return in_unit(c.lo, c) + ".." + with_unit(c.hi, c);
}

// How far outside a measurement is, for the relative rules: "1.70x the claim's high end".
std::string distance(double measured, const Claimed& c, const Tolerance& t) {
  if (t.rule != Tolerance::Rule::factor && t.rule != Tolerance::Rule::percent &&
      t.rule != Tolerance::Rule::gain)
    return "";
  const bool low = measured < c.lo;
  const double end = low ? c.lo : c.hi;
  if (end == 0) return "";
  const char* which = c.lo == c.hi ? "the claim"
                      : low        ? "the claim's low end"
                                   : "the claim's high end";
  return ", " + judge_number(measured / end) + "x " + which;
}

}  // namespace

std::string judge_number(double v) {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
  const double a = std::fabs(v);
  const int decimals = a >= 100 ? 0 : a >= 10 ? 1 : 2;
  std::string s = model::strf("%.*f", decimals, v);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

std::string describe_band(const Tolerance& t) {
  const std::string a = judge_number(t.amount);
  switch (t.rule) {
    case Tolerance::Rule::factor:
      return "×/÷" + a;
    case Tolerance::Rule::percent:
      return "±" + a + " %";
    case Tolerance::Rule::inside:
      return "inside the claim";
    case Tolerance::Rule::at_least:
      return "≥ " + a;
    case Tolerance::Rule::at_most:
      return "≤ " + a;
    case Tolerance::Rule::above:
      return "> " + a;
    case Tolerance::Rule::gain:
      return "gain ×/÷" + a;
    case Tolerance::Rule::per_figure:
      return "per figure";
  }
  return "";
}

std::pair<double, double> admitted(double lo, double hi, const Tolerance& tolerance) {
  const Accepted a = accepted(Claimed::range(lo, hi, ""), tolerance);
  return {a.lo, std::isinf(hi) && a.hi < kInf ? kInf : a.hi};
}

std::string describe(const Claimed& c, const Tolerance& t) {
  switch (t.rule) {
    case Tolerance::Rule::factor:
      return "within x" + judge_number(t.amount) + " of " + claimed_text(c);
    case Tolerance::Rule::percent:
      return "within ±" + judge_number(t.amount) + "% of " + claimed_text(c);
    case Tolerance::Rule::inside:
      return "inside " + claimed_text(c);
    case Tolerance::Rule::at_least:
      return "at least " + with_unit(t.amount, c);
    case Tolerance::Rule::at_most:
      return "at most " + with_unit(t.amount, c);
    case Tolerance::Rule::above:
      return "above " + with_unit(t.amount, c);
    case Tolerance::Rule::gain:
      return "within x" + judge_number(t.amount) + " of the gain over 1x of " + claimed_text(c);
    case Tolerance::Rule::per_figure:
      return "each figure within its own band";
  }
  return "";
}

Judgement judge(double measured, const Claimed& claimed, const Tolerance& tolerance,
                const std::string& unmeasured) {
  if (!std::isfinite(measured)) return results::not_measurable(unmeasured);
  const std::string tol = "(tolerance: " + describe(claimed, tolerance) + ")";
  if (admits(accepted(claimed, tolerance), measured))
    return {Verdict::reproduced, "reproduced " + tol};
  return {Verdict::refuted, "refuted: " + with_unit(measured, claimed) +
                                distance(measured, claimed, tolerance) + " " + tol};
}

Judgement judge_interval(double measured_lo, double measured_hi, const Claimed& claimed,
                         const Tolerance& tolerance, const std::string& unmeasured) {
  if (!std::isfinite(measured_lo) || !std::isfinite(measured_hi))
    return results::not_measurable(unmeasured);
  const Accepted a = accepted(claimed, tolerance);
  const std::string tol = "(tolerance: " + describe(claimed, tolerance) + ")";
  const bool meets =
      (a.strict_lo ? measured_hi > a.lo : measured_hi >= a.lo) && measured_lo <= a.hi;
  const std::string between =
      "between " + with_unit(measured_lo, claimed) + " and " + with_unit(measured_hi, claimed);
  if (meets) return {Verdict::reproduced, "reproduced " + tol};
  return {Verdict::refuted, "refuted: " + between + " " + tol};
}

Judgement judge_all(const std::vector<Figure>& figures, const std::string& unmeasured) {
  if (figures.empty()) return results::not_measurable(unmeasured);
  for (const Figure& f : figures)
    if (!std::isfinite(f.measured))
      return results::not_measurable(unmeasured + " (" + f.label + ")");
  // Many figures under one rule relative to each claim state it once; otherwise each figure's.
  bool shared = figures.size() > 1;
  for (const Figure& f : figures)
    shared =
        shared && f.tolerance.rule == figures[0].tolerance.rule &&
        f.tolerance.amount == figures[0].tolerance.amount &&
        (f.tolerance.rule != Tolerance::Rule::at_least &&
         f.tolerance.rule != Tolerance::Rule::at_most &&
         f.tolerance.rule != Tolerance::Rule::above && f.tolerance.rule != Tolerance::Rule::gain);
  std::string tol;
  if (shared) {
    const Tolerance& t = figures[0].tolerance;
    tol = "each of " + std::to_string(figures.size()) + " figures " +
          (t.rule == Tolerance::Rule::factor ? "within x" + judge_number(t.amount) + " of its claim"
           : t.rule == Tolerance::Rule::percent
               ? "within ±" + judge_number(t.amount) + "% of its claim"
               : std::string("inside its claim"));
  } else {
    for (const Figure& f : figures)
      tol += (tol.empty() ? "" : "; ") + f.label + " " + describe(f.claimed, f.tolerance);
  }
  std::string off;
  int n_off = 0;
  for (const Figure& f : figures) {
    if (admits(accepted(f.claimed, f.tolerance), f.measured)) continue;
    // At most six listed: a sweep of many strides would flood the table cell.
    if (++n_off <= 6)
      off += (off.empty() ? "" : ", ") + f.label + " " + with_unit(f.measured, f.claimed) +
             (shared ? " against " + claimed_text(f.claimed) : std::string());
  }
  if (n_off == 0) return {Verdict::reproduced, "reproduced (tolerance: " + tol + ")"};
  if (n_off > 6) off += ", ...";
  return {Verdict::refuted, "refuted: " + std::to_string(n_off) + " of " +
                                std::to_string(figures.size()) + " outside: " + off +
                                " (tolerance: " + tol + ")"};
}

}  // namespace memhier::claims
