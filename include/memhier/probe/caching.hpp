// The caching probe's measurement as plain numbers: time and bandwidth of each cache
// operator on the reuse, stream and scatter patterns, and of a 5x5 box filter through a
// texture against plain global loads. measure_caching runs the GPU; present_caching makes
// the report section.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "memhier/probe/probe.hpp"

namespace memhier::probe {

/// One (pattern, load path) timing.
struct CachingRow {
  std::string experiment;            ///< "reuse", "stream", "scatter", "stencil-5x5"
  std::string variant;               ///< "ld.ca", "ld.cg", "ld.cs", "ld.nc"; "global", "texture"
  double ms = NAN;                   ///< median time
  double gbps = NAN;                 ///< bytes counted over the time (see the section's text)
  double relative = NAN;             ///< the experiment's first row's time over this row's
  double sectors_per_request = NAN;  ///< model, for the pattern's first warp instruction
  double max_rel_diff = NAN;         ///< texture row only: max |texture - global| / |global|
};

/// The "caching" probe.
struct CachingResult {
  std::vector<CachingRow> rows;  ///< by experiment, in report order
  unsigned grid = 0;             ///< blocks of the reuse and stream launches
  int window_bytes = 0;          ///< each block's reuse window
  int reps = 0;                  ///< re-reads of the window
  std::size_t buffer_bytes = 0;  ///< the stream and scatter buffer
  std::size_t l2_bytes = 0;
  int scatter_per_thread = 0;    ///< random loads per thread
  int image_side = 0;            ///< the box filter's square image
  double util_caching = NAN;     ///< scatter's bus utilization with 128-byte lines (model)
  double util_noncaching = NAN;  ///< ... with 32-byte sectors (model)
  double max_rel_diff = NAN;     ///< texture against global outputs, every pixel

  /// The time of (experiment, variant); NaN when absent.
  double ms_of(const std::string& experiment, const std::string& variant) const;
};

/// Times every cache operator on each pattern, and the texture against global loads.
CachingResult measure_caching(Context& ctx);

/// The "caching" section: the table, the chart and the claims.
Result present_caching(const CachingResult& m);

}  // namespace memhier::probe
