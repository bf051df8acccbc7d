// The layout probe's measurement as plain numbers: time and useful bandwidth of each
// layout variant (AoS/SoA, 12-byte structs, load width, alignment) with the sector
// model's prediction. measure_layout runs the GPU; present_layout makes the section.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "memhier/probe/probe.hpp"

namespace memhier::probe {

/// One variant of one layout experiment.
struct LayoutRow {
  std::string experiment;   ///< "aos-soa-xyz", "aos-soa-x", "struct12", "copy-width", "alignment"
  std::string variant;      ///< "aos", "soa", "float4", "misaligned", ...
  std::string description;  ///< what the kernel does, in words
  double ms = NAN;          ///< median time
  double gbps = NAN;        ///< useful bytes over the time
  double relative = NAN;    ///< the experiment's first row's time over this row's
  double sectors_per_request = NAN;  ///< model: average over the kernel's loads
  double predicted = NAN;  ///< model: relative speed of a DRAM-bound kernel from sectors moved
};

/// The "layout" probe.
struct LayoutResult {
  std::vector<LayoutRow> rows;   ///< by experiment, in report order
  std::size_t buffer_bytes = 0;  ///< each of the two buffers
  std::size_t l2_bytes = 0;

  /// The row of (experiment, variant), or nullptr.
  const LayoutRow* find(const std::string& experiment, const std::string& variant) const;
};

/// Times every layout variant over buffers many times the L2.
LayoutResult measure_layout(Context& ctx);

/// The "layout" section: the table, the chart and the claims.
Result present_layout(const LayoutResult& m);

}  // namespace memhier::probe
