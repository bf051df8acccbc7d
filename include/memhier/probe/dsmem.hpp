// The "dsmem" probe's measurements as plain numbers: thread-block clusters and distributed
// shared memory on Hopper. Latency of ld.shared::cluster from rank 0 to every rank of a
// cluster (its own included) by cluster size, against plain ld.shared; bandwidth one-to-one
// and all-to-all by cluster size against local shared memory. measure_dsmem runs the GPU;
// present_dsmem makes the report section (host code only).
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "memhier/probe/probe.hpp"

namespace memhier::probe {

/// One cluster size: its latencies by target rank and its bandwidths, or why it did not run.
struct DsmemClusterSize {
  int size = 0;                     ///< blocks per cluster
  int active_clusters = 0;          ///< cudaOccupancyMaxActiveClusters at the probe's block
  std::string skipped;              ///< why this size was not measured; empty when it was
  std::vector<double> cycles;       ///< [rank]: cycles per ld.shared::cluster hop from rank 0
  std::vector<bool> reads_correct;  ///< [rank]: the chase ended where that rank's ring does
  double one_to_one_gbps = NAN;     ///< every block reads its neighbour's (rank + 1) buffer
  double all_to_all_gbps = NAN;     ///< every block reads every other rank's buffer in turn
  int blocks = 0;                   ///< blocks of the bandwidth launches (one per SM)
};

/// The "dsmem" probe.
struct DsmemResult {
  std::string declined;  ///< why nothing was measured (one sentence); empty when measured
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  double sm_clock_mhz = 0;
  double local_cycles = NAN;  ///< plain ld.shared chase in the block's own shared memory
  double local_gbps = NAN;    ///< ld.shared.v4 into the block's own buffer, one block per SM
  int local_blocks = 0;       ///< blocks of the local bandwidth launch
  std::vector<DsmemClusterSize> sizes;  ///< 2, 4, 8, 16, skipped ones included
  int steps = 0, reps = 0;              ///< timed hops per chase, chases per figure
  std::size_t ring_bytes = 0;           ///< the chased ring in each block
  std::size_t buffer_bytes = 0;         ///< each block's buffer read for bandwidth
  std::size_t smem_per_block = 0;       ///< dynamic shared memory asked (one block per SM)
  int threads = 0;                      ///< threads per block in the bandwidth launches
};

/// Chases rings across clusters of 2, 4, 8 and 16 blocks and times cluster-wide reads;
/// on a card without clusters (compute capability below 9.0) it only says why not.
DsmemResult measure_dsmem(Context& ctx);

/// The median cycles of every remote rank (not rank 0) of every measured size; NaN if none.
double dsmem_remote_median(const DsmemResult& m);

/// The "dsmem" section: latency by size and rank, bandwidth by size, chart, claims.
Result present_dsmem(const DsmemResult& m);

}  // namespace memhier::probe
