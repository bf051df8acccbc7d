// A ladder run as plain data: one measured variant (or a ceiling, or the vendor baseline) at
// one shape, and a profiled family's counters. The bench makes them; the claims, the report
// writers and the CPU tests read them (and build them by hand). Host-only.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <string>

#include "memhier/model/arch.hpp"

namespace memhier::results {

/// What bounds a ladder's rungs: memory (their figure of merit is GB/s) or compute (a GEMM:
/// GFLOP/s against the peak of its number type, the roofline's roofs).
enum class Bound { memory, compute };

/// The spread of a paired ratio: the 10th and 90th percentiles of its per-pair ratios.
struct Spread {
  double p10 = NAN, p90 = NAN;
};

/// One measured variant (or a ceiling, or the vendor baseline) at one shape. The ratios
/// against a reference are paired: the reference's repetitions alternate with this row's,
/// each pair under the same L2 flush, and the figure is the median of the per-pair ratios.
struct BenchRecord {
  std::string family, variant, shape;
  /// The family's facts (registry::Family), so that readers of records need not know families.
  model::NumberType number_type = model::NumberType::fp32;
  Bound bound = Bound::memory;
  bool sets_peak = false;  ///< a dense matrix product: the roofline's measured peak
  int rung = 0;          ///< 0: a ceiling or the vendor baseline
  bool ceiling = false;  ///< cudaMemcpy D2D, the read-only or the write-only ceiling
  bool verified = false;
  std::string declined;  ///< why the variant does not run at this shape; "" when it ran
  /// Why a failure (out of GPU memory, a CUDA error) left this row without figures; "" when
  /// it was measured. The row's note says the same to the reader.
  std::string not_measured;
  double rel_error = NAN, tolerance = NAN;
  /// Elements beyond their own bound or not finite (0 passes); rel_error is over every element.
  std::uint64_t bad_elements = 0;
  /// The largest |out - ref| / bound over the finite elements (at most 1 passes).
  double worst_ratio = NAN;
  double ms = NAN;        ///< median, L2 flushed before each repetition
  double spread = NAN;    ///< (p90 - p10) / median
  double gbps = NAN;      ///< work.bytes / time
  double gflops = NAN;    ///< work.flops / time
  double peak_pct = NAN;  ///< gflops over the peak of peak_kind's number type, %
  /// The number type peak_pct is quoted in: "fp32" (FMA pipes: SMs x lanes x 2 x max clock)
  /// or "bf16" (tensor cores, dense: SMs x FLOP/clk/SM x max clock); "" with no flops.
  std::string peak_kind;
  double frac_memcpy = NAN;  ///< paired: cudaMemcpy D2D time for the same bytes / this time
  Spread frac_memcpy_spread;
  double x_vendor = NAN;  ///< paired: vendor time / this time (above 1: faster than the vendor)
  Spread x_vendor_spread;
  double x_read_only = NAN;  ///< paired: read-only ceiling's time / this time (read-dominated)
  Spread x_read_only_spread;
  double x_prev = NAN;  ///< previous rung's median time / this median time
  /// Not paired: PyTorch's median time (timed in another process) / this median time.
  double x_torch = NAN;
  /// "pytorch" for PyTorch's call timed as a reference line (rung 0); "" otherwise.
  std::string reference;
  int regs = 0, local_bytes = 0, static_smem = 0, dynamic_smem = 0;
  int blocks_per_sm = 0;
  double occupancy = NAN;  ///< active warps / max warps, 0..1
  std::string note;        ///< why a variant failed verification; how a ceiling was measured
  /// For a variant that picks a kernel per shape (`best`): the rung it ran; "" otherwise.
  std::string config;
};

/// What a tuned `best` decided at one shape (`memhier tune`) and what deciding cost.
struct TuneRecord {
  std::string family, shape;
  std::string config;   ///< the rung `best` runs at this shape on this card
  bool cached = false;  ///< known before (this process or the cache on disk): nothing timed
  bool tuned = false;   ///< timed now; neither: not worth tuning (launch-bound), or no scratch
  int candidates = 0;   ///< best's candidates in the family's table
  int timed = 0;        ///< those the model kept and that ran
  int launches = 0;     ///< kernel launches, warm-ups included
  double ms = 0;        ///< wall time of the decision, ms
  double gpu_ms = 0;    ///< GPU time of its launches (event-timed, warm-ups included), ms
};

/// A profiled family's counters: variant -> ncu key (profile::Metric::key) -> value summed
/// over the variant's kernels (rates and shares as ncu gave them for its one kernel).
using ProfiledCounters = std::map<std::string, std::map<std::string, double>>;

}  // namespace memhier::results
