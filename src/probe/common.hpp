// Host-only helpers the probes' measure and present code share: sizes, number
// formatting, medians, claim rows judged by the one judge. No CUDA here, so the
// presenters (*_present.cpp) build with the host compiler alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memhier/claims/catalogue.hpp"
#include "memhier/claims/judge.hpp"
#include "memhier/probe/probe.hpp"
#include "memhier/report/document.hpp"

namespace memhier::probe {

constexpr std::uint64_t KiB = 1024, MiB = KiB * KiB, GiB = MiB * KiB;

/// `v` with `precision` decimals, as printf writes it (a NaN reads "nan").
std::string fixed(double v, int precision);

/// `v` with `precision` decimals, or "n/a" when it is not finite (a figure not measured).
std::string fmt(double v, int precision = 0);

/// Bytes in the largest binary unit that keeps them >= 1 ("16 KiB", "37.5 MiB"); "n/a" if not
/// finite.
std::string fmt_bytes(double bytes);

/// Bytes in whole KiB, MiB or GiB ("50 MiB"), as printf rounds them.
std::string kib(double bytes);
std::string mib(double bytes);  ///< whole MiB
std::string gib(double bytes);  ///< whole GiB

/// Bytes in MiB, one decimal under 10 MiB ("5.0 MiB", "250 MiB"); "n/a" if not finite.
std::string fmt_mib(double bytes);

/// Bytes over milliseconds, in GB/s (10^9 bytes per second); 0 without a time.
inline double gbps(double bytes, double ms) {
  return ms > 0 ? bytes / (ms * 1e6) : 0.0;
}

/// The median of the finite values of `v`; NaN when there are none.
double median(std::vector<double> v);

/// Cycles at `sm_clock_mhz` in nanoseconds; NaN without a clock or a figure.
double cycles_to_ns(double cycles, double sm_clock_mhz);

using report::strf;

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
