// The "tma" probe's measurements as plain numbers: global -> shared bandwidth of each copy
// method (registers, cp.async, cp.async.bulk, cp.async.bulk.tensor) by transfer size and
// stages in flight, one SM alone and every SM at once; shared -> global stores; TMA
// multicast to the blocks of a cluster against separate loads; and what TMA does at a
// tensor's edges and with the 128-byte swizzle. measure_tma runs the GPU (Hopper and newer);
// present_tma makes the section.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "memhier/core/device.hpp"
#include "memhier/probe/probe.hpp"

namespace memhier::probe {

/// One copy method at one transfer size and stage count.
struct TmaRate {
  std::string method;      ///< "ld.global.v4+st.shared", "cp.async 16B", "cp.async.bulk", ...
  int chunk_bytes = 0;     ///< bytes a block moves per stage (one bulk or tensor op for TMA)
  int stages = 0;          ///< stages in flight per block
  double sm_gbps = NAN;    ///< one block on one SM, the rest idle
  double chip_gbps = NAN;  ///< one block on every SM
  bool verified = false;   ///< the sampled words of every block arrived (or were stored) right
};

/// TMA multicast against separate loads, for one cluster size.
struct TmaMulticast {
  int cluster = 0;               ///< blocks per cluster (2 or 4)
  int blocks = 0;                ///< blocks launched (whole clusters, all resident)
  double working_set_bytes = 0;  ///< the L2-resident tiles the clusters stream through
  double separate_gbps = NAN;    ///< bytes landing in shared memory per second, summed
  double multicast_gbps = NAN;   ///< the same with each tile read once per cluster
  bool verified = false;
};

/// The "tma" probe.
struct TmaResult {
  core::DeviceInfo device;
  std::string unsupported;  ///< why nothing was measured (not Hopper, no driver entry); "" if ran
  std::vector<TmaRate> loads;   ///< global -> shared, method-major, then size, then stages
  std::vector<TmaRate> stores;  ///< shared -> global
  std::vector<TmaMulticast> multicast;
  double chip_bytes = 0;      ///< bytes one chip-wide launch moves
  double sm_bytes = 0;        ///< bytes the one-SM launch moves
  double profile_chunks = 0;  ///< 16 KiB chunks each launch in the "tma issue slots" range moves
  // The edge and swizzle checks: elements of a box straddling a 37 x 53 tensor's corner.
  std::uint64_t oob_checked = 0;        ///< elements checked (inside and outside the tensor)
  std::uint64_t oob_load_wrong = 0;     ///< loaded elements not equal to the tensor's or zero
  std::uint64_t oob_store_checked = 0;  ///< global elements checked after the store
  std::uint64_t oob_store_wrong = 0;    ///< global elements a store wrote outside its box or wrong
  /// Elements past the tensor's last column a store wrote within that row's last 16-byte
  /// chunk (the pitch's padding): not counted in oob_store_wrong.
  std::uint64_t oob_store_chunk_spill = 0;
  std::uint64_t swizzle_checked = 0;  ///< shared words checked against the 128-byte swizzle
  std::uint64_t swizzle_wrong = 0;
};

/// Runs the probe (on a device below compute capability 9.0 it measures nothing and says
/// why in `unsupported`).
TmaResult measure_tma(Context& ctx);

/// The "tma" section: the bandwidth tables and charts, the edge checks and the claims.
Result present_tma(const TmaResult& m);

/// The methods in the order measure_tma reports them (loads, then stores).
const std::vector<std::string>& tma_load_methods();
const std::vector<std::string>& tma_store_methods();  ///< shared -> global methods

}  // namespace memhier::probe
