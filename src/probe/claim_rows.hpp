// The presenters' claim helpers: checks judged by the one judge and added to a section.
// Apart from common.hpp so the probes' CUDA files, which include that, do not recompile
// when a claim is added. Host-only.
#pragma once

#include <string>
#include <vector>

#include "common.hpp"
#include "memhier/claims/catalogue.hpp"
#include "memhier/claims/judge.hpp"

namespace memhier::probe {

/// One check of a probe: a catalogue id (ClaimId::bank_stride_33_free), what this card did,
/// and the judge's verdict (reproduced, refuted, not measurable here) with its text.
using ClaimRow = claims::Check;
using claims::Claimed;
using claims::ClaimId;
using claims::Judgement;
using claims::Tolerance;
using results::not_measurable;

/// The judge's verdict for one check (see claims/judge.hpp).
inline Judgement judged(double measured, const Claimed& claimed, const Tolerance& tolerance,
                        const std::string& unmeasured = "no figure was measured") {
  return claims::judge(measured, claimed, tolerance, unmeasured);
}

using claims::Figure;

/// The judge's verdict for a claim that every one of `figures` must meet.
inline Judgement judged_all(const std::vector<Figure>& figures,
                            const std::string& unmeasured = "no figure was measured") {
  return claims::judge_all(figures, unmeasured);
}

/// Adds a probe's checks to its section: Section::checks (what the report's Claims section
/// gathers) and the standard claims table (id "<probe>-claims").
void add_claims(report::Section& section, const std::string& probe_name,
                std::vector<ClaimRow> rows);

}  // namespace memhier::probe
