// The roofline of this card from one run's figures: the measured HBM and L2 bandwidth
// roofs, the measured fp32 and bf16 peaks, and every GEMM rung and every memory-bound
// ladder's best placed by its arithmetic intensity. Plain data in, a section out.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "memhier/report/document.hpp"
#include "memhier/report/summary.hpp"

namespace memhier::report {

/// One kernel on the roofline: FLOP per byte of the fewest bytes its problem must move.
struct RooflinePoint {
  std::string family, variant, shape;
  /// "fp32 GEMM", "bf16 GEMM", "other compute-bound", "vendor library", "other ladder's best"
  std::string group;
  model::NumberType number_type = model::NumberType::fp32;  ///< whose peak is its roof
  double intensity = NAN;    ///< FLOP/byte
  double gflops = NAN;       ///< measured
  double roof_gflops = NAN;  ///< min(HBM roof at its intensity, the peak of its number type)
};

/// The ceilings (NaN where the run did not measure them) and the points.
struct Roofline {
  double hbm_gbps = NAN, l2_gbps = NAN;
  double fp32_peak_gflops = NAN, bf16_peak_gflops = NAN;
  std::string fp32_peak_from, bf16_peak_from;  ///< "gemm best at 4096x4096x4096", ...
  std::vector<RooflinePoint> points;
  /// Where the HBM roof meets a peak: the FLOP per byte a kernel needs to be compute bound.
  double ridge_fp32() const { return fp32_peak_gflops / hbm_gbps; }
  double ridge_bf16() const { return bf16_peak_gflops / hbm_gbps; }
  /// The peak of `type`.
  double peak_gflops(model::NumberType type) const {
    return type == model::NumberType::bf16 ? bf16_peak_gflops : fp32_peak_gflops;
  }
};

/// The roofline from the summary's tiers (HBM and L2 bandwidth) and the ladders' records:
/// peaks are the fastest verified GEMM of each number type (rung or vendor; TF32 reference
/// lines excluded), each GEMM (family, variant) at its largest shape, each other ladder's
/// best at its largest shape with flops.
Roofline roofline(const SummaryInput& in);

/// The report section (id "roofline"): the chart, the ceilings and the points as tables.
Section roofline_section(const Roofline& r);

}  // namespace memhier::report
