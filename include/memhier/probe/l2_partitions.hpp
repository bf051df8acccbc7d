// The "l2-partitions" probe's measurements as plain numbers: L2-hit latency from every SM to
// every 4 KiB page of a region well inside L2 (the map), its split into a near and a far
// cluster, and L2 read bandwidth with reads confined to each SM's near pages against reads
// spread over all of them. measure_l2_partitions runs the GPU; classify_l2_partitions and
// present_l2_partitions are host code, testable from made-up maps.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "memhier/probe/probe.hpp"

namespace memhier::probe {

/// The map's split into two clusters of latencies, and what it says of the SMs.
struct L2Split {
  bool split = false;        ///< two clusters found (the rule in classify_l2_partitions)
  std::string why_not;       ///< why the latencies are one cluster; empty when split
  double threshold = NAN;    ///< cycles: above it a cell is far
  double near_cycles = NAN;  ///< median of the near cells (of every cell when not split)
  double far_cycles = NAN;   ///< median of the far cells
  /// Cells in the middle half between the two medians, over all cells: near 0 for two
  /// clusters with a gap, large for latencies spread evenly.
  double between_fraction = NAN;
  std::vector<signed char> far;  ///< per cell: 1 far, 0 near, -1 not measured
  double far_fraction = NAN;     ///< far cells over measured cells
  /// SMs whose far pages agree with the first measured SM's on most pages, and the others.
  int side_a_sms = 0, side_b_sms = 0;
  std::vector<signed char> side;  ///< per row: 0 the first SM's side, 1 the other, -1 none
  /// Cells that match their side's majority (side B's majority is side A's complement when
  /// the halves mirror each other): how cleanly the pages split by SM side.
  double consistency = NAN;
};

/// The rule: all measured cell latencies sorted, the threshold is the split with the largest
/// between-group variance (Otsu's rule). It counts as two clusters only if each group holds
/// at least 5 % of the cells, the far median is at least 1.15x the near median, and fewer
/// than 20 % of the cells lie in the middle half between the two medians (a gap; an even
/// spread puts 25 % there). `cycles` is
/// rows x cols, row-major; NaN marks a cell not measured.
L2Split classify_l2_partitions(const std::vector<double>& cycles, int rows, int cols);

/// The "l2-partitions" probe.
struct L2PartitionsResult {
  std::string declined;  ///< why nothing was measured (one sentence); empty when measured
  int cc_major = 0, cc_minor = 0;
  double sm_clock_mhz = 0;
  std::vector<int> smids;  ///< the map's rows: the SM (%smid) each row was measured from
  int pages = 0;           ///< the map's columns, in address order
  std::uint64_t page_bytes = 4096;
  int lines_per_cell = 0;      ///< lines of a page each SM times (its cell is their median)
  int rounds = 0;              ///< launches the SMs took turns in, the region rewritten before each
  std::vector<double> cycles;  ///< [row * pages + page]: first-read L2-hit cycles, NaN if none
  std::vector<double> reread_cycles;  ///< [row * pages + page]: the same SM's second read
  L2Split split;
  std::uint64_t l2_bytes = 0;
  double near_gbps = NAN;       ///< every SM reads only its near pages
  double spread_gbps = NAN;     ///< every SM reads every page
  double bytes_per_launch = 0;  ///< what one bandwidth launch reads, the same for both
  std::string near_unmeasured;  ///< why near_gbps is NaN
};

/// Maps first-read L2-hit latency by SM and page, classifies it, and times near-only reads
/// against spread reads; on a card below compute capability 9.0 it only says why not.
L2PartitionsResult measure_l2_partitions(Context& ctx);

/// The "l2-partitions" section: the heat map, the near and far figures, bandwidths, claims.
Result present_l2_partitions(const L2PartitionsResult& m);

}  // namespace memhier::probe
