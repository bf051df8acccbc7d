// A check of a claim as plain data: which claim, the verdict as an enum, what was measured,
// the verdict's detail and who checked it. Probes, ladders, profiles and the report produce
// them; the claims library renders and gathers them; nothing classifies text. Host-only.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

namespace memhier::results {

// Declared only: a Check holds an id without every file that holds checks depending on the
// list of claims (results/claim_id.hpp names them).
enum class ClaimId : std::uint16_t;

/// What a check found.
enum class Verdict {
  reproduced,        ///< the measurement lies inside the claim's band
  refuted,           ///< outside it
  not_measurable,    ///< the run lacks what the check needs, or nothing here measures it
  about_other_card,  ///< an absolute figure about another card: not judged by this one
};

/// "reproduced", "refuted", "not measurable here", "about another card".
constexpr const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::reproduced:
      return "reproduced";
    case Verdict::refuted:
      return "refuted";
    case Verdict::not_measurable:
      return "not measurable here";
    case Verdict::about_other_card:
      return "about another card";
  }
  return "refuted";
}

/// A verdict with the text a claims table shows for it ("reproduced (tolerance: ...)",
/// "refuted: ... (tolerance: ...)", "not measurable here: why").
struct Judgement {
  Verdict verdict = Verdict::not_measurable;
  std::string text;
};

/// "not measurable here: `why`".
inline Judgement not_measurable(const std::string& why) {
  return {Verdict::not_measurable, "not measurable here: " + why};
}

/// Who checked a claim: a probe ("latency"), a ladder's bench ("gemm"), a profile of a target
/// ("gemm", "global-stride") or the report itself ("roofline").
struct Checker {
  enum class Kind { probe, bench, profile, report };
  Kind kind = Kind::probe;
  std::string which;  ///< the probe's, family's or profile target's name; "roofline"

  static Checker probe(std::string name) { return {Kind::probe, std::move(name)}; }
  static Checker bench(std::string family) { return {Kind::bench, std::move(family)}; }
  static Checker profile(std::string target) { return {Kind::profile, std::move(target)}; }
  static Checker report(std::string part) { return {Kind::report, std::move(part)}; }

  /// "probe", "bench", "profile" or "report".
  const char* kind_name() const {
    switch (kind) {
      case Kind::probe:
        return "probe";
      case Kind::bench:
        return "bench";
      case Kind::profile:
        return "profile";
      case Kind::report:
        return "report";
    }
    return "probe";
  }
  /// "latency", "bench-gemm", "profile-gemm", "report-roofline": the claims table's id prefix
  /// and the name `memhier claims --json` lists.
  std::string owner() const {
    return kind == Kind::probe ? which : std::string(kind_name()) + "-" + which;
  }
  /// "probe latency", "bench gemm": how the checker reads in prose.
  std::string describe() const { return std::string(kind_name()) + " " + which; }

  friend bool operator==(const Checker& a, const Checker& b) {
    return a.kind == b.kind && a.which == b.which;
  }
  friend bool operator!=(const Checker& a, const Checker& b) { return !(a == b); }
};

/// What a check of a claim that is a share of its card's peak DRAM bandwidth measured, for
/// the judge to divide by the running card's datasheet peak (claims::on_card).
struct PeakShare {
  double gbps = NAN;  ///< the throughput measured here, GB/s; NaN: none
  /// The claim's share of its own card's peak, as a fraction: [lo, hi] (lo == hi for one).
  double claimed_lo = NAN, claimed_hi = NAN;
  std::string claim_peak;  ///< whose peak the claim's share is of: "the V100's 900 GB/s"

  bool measured() const { return std::isfinite(gbps) && gbps > 0; }
};

/// What one checker found for one claim on this card.
struct Check {
  ClaimId id{};
  Verdict verdict = Verdict::not_measurable;
  std::string measured;  ///< the figures, with units
  std::string detail;    ///< the verdict as the claims table states it, with the band or why
  Checker by;            ///< stamped when the check joins a section (claims::add_checks)
  /// Judged from the device's properties (the runtime's figures), not from a measurement.
  bool from_properties = false;
  /// For a claim that is a share of its card's peak: what the judge needs to take it as a
  /// share of this card's datasheet peak (unset: the checker judged it itself).
  PeakShare share;
  std::string judged_on;  ///< the card claims::on_card judged it for; "" before

  Check() = default;
  /// A check of `claim` with its measured figures and the judge's verdict.
  Check(ClaimId claim, std::string figures, Judgement j)
      : id(claim), verdict(j.verdict), measured(std::move(figures)), detail(std::move(j.text)) {}

  /// Takes the judge's verdict and its text.
  void set(Judgement j) {
    verdict = j.verdict;
    detail = std::move(j.text);
  }
};

}  // namespace memhier::results
