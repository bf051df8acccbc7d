// Host-only helpers the probes' measure and present code share: sizes, number
// formatting, medians. No CUDA and no claims here (claim_rows.hpp has those), so the
// kernels' files do not depend on the list of claims.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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

}  // namespace memhier::probe
