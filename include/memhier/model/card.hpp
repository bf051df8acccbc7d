// The cards the memory-system model can replay a kernel on: the per-card figures the
// architecture table does not hold (SM count, L2 size, bandwidths), one default card per
// compute capability, each figure with its source.
#pragma once

#include <string>
#include <vector>

#include "memhier/model/arch.hpp"

namespace memhier::model {

/// One card: its compute capability's ArchSpec plus what differs between cards of it.
struct Card {
  std::string name;  ///< "H100 SXM"
  std::string key;   ///< what --card takes besides the compute capability: "h100"
  int cc_major = 0, cc_minor = 0;
  int sms = 0;              ///< streaming multiprocessors
  long long l2_bytes = 0;   ///< L2 capacity
  double dram_gbps = 0;     ///< DRAM bandwidth the time bound uses, GB/s
  std::string dram_source;  ///< "measured: ..." or "datasheet: ..."
  double l2_gbps = 0;       ///< L2 -> SM bandwidth, GB/s; 0 when memhier has no figure
  std::string l2_source;    ///< where l2_gbps comes from, or why there is none
  /// L2 slices (Nsight Compute's device__attribute_l2s_count), which every GPU-scope fence
  /// reaches; 0 when unknown (fences then cost no L2 lookup in the model).
  int l2_slices = 0;

  /// The architecture table's entry for this card's compute capability.
  const ArchSpec& arch() const;
};

/// Every card memhier knows, one per compute capability of the architecture table, ascending.
const std::vector<Card>& all_cards();

/// The card for "h100", "A100", "9.0", "sm_90" (a compute capability picks its default card);
/// nullptr when unknown.
const Card* find_card(const std::string& name_or_cc);

/// The card memhier assumes for a device of this compute capability (nullptr when none).
const Card* card_for(int cc_major, int cc_minor);

}  // namespace memhier::model
