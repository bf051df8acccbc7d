// The cards the memory-system model can replay a kernel on: the per-card figures the
// architecture table does not hold (SM count, L2 size, bandwidths), each marked as a
// datasheet figure or a measurement, and how a device's name finds its entry.
#pragma once

#include <string>
#include <vector>

#include "memhier/model/arch.hpp"

namespace memhier::model {

/// Where a card's figure comes from.
enum class Provenance {
  datasheet,  ///< the vendor's datasheet or whitepaper
  measured,   ///< memhier's probe on that card (docs/results/<card>/, or this run)
};

/// "datasheet" or "measured".
const char* to_string(Provenance p);

/// One card: its compute capability's ArchSpec plus what differs between cards of it.
struct Card {
  std::string name;  ///< "H100 SXM"
  std::string key;   ///< what --card takes and docs/results/<key>/ is named by: "h100-sxm"
  int cc_major = 0, cc_minor = 0;
  int sms = 0;             ///< streaming multiprocessors
  long long l2_bytes = 0;  ///< L2 capacity
  double dram_gbps = 0;    ///< DRAM bandwidth the time bound uses, GB/s
  Provenance dram_from = Provenance::datasheet;
  std::string dram_source;  ///< the figure's source in words
  double l2_gbps = 0;       ///< L2 -> SM bandwidth, GB/s; 0 when memhier has no figure
  Provenance l2_from = Provenance::datasheet;
  std::string l2_source;  ///< where l2_gbps comes from, or why there is none
  /// L2 slices (Nsight Compute's device__attribute_l2s_count), which every GPU-scope fence
  /// reaches; 0 when unknown (fences then cost no L2 lookup in the model).
  int l2_slices = 0;
  /// Whether an SM's GPU-scope fences within one wave of blocks reach the slices as one
  /// broadcast; false: every fence is one. Set per card where Nsight Compute's membar counts
  /// were measured (card.cpp).
  bool fences_merge_per_sm = false;
  /// The share of one-sector loads looked up a second time, a hit, when the SM's previous
  /// request asked the other sector of their 64-byte pair (MemorySystem::access): measured
  /// per card where Nsight Compute's srcunit tex read hits were counted (card.cpp); 0 on a card
  /// not measured, whose replay counts no such second lookup.
  double l2_pair_replay_share = 0;
  /// Words of the device name (CUDA's, lower case, split at spaces and dashes) that all name
  /// this card: {"h100", "hbm3"} for "NVIDIA H100 80GB HBM3". Empty: found by key only.
  std::vector<std::string> name_words;

  /// The architecture table's entry for this card's compute capability.
  const ArchSpec& arch() const;
};

/// Every card memhier knows, ascending by compute capability; the first of a compute
/// capability is its default.
const std::vector<Card>& all_cards();

/// The card for "h100-sxm", "h100", "H200", "9.0", "sm_90" (a compute capability picks its
/// default card); nullptr when unknown.
const Card* find_card(const std::string& name_or_cc);

/// The default card of a compute capability (nullptr when none).
const Card* card_for(int cc_major, int cc_minor);

/// The table's entry for a device by its CUDA name and compute capability: the entry of
/// that capability whose name words all appear in the name (the most words wins); nullptr
/// when the table has no such card, never another card's entry.
const Card* card_for_device(const std::string& device_name, int cc_major, int cc_minor);

/// A device name's words in lower case, split at anything not a letter or digit:
/// "NVIDIA A100-SXM4-80GB" is {"nvidia", "a100", "sxm4", "80gb"}.
std::vector<std::string> name_words(const std::string& name);

/// The folder name of a device's record: its table key ("h100-sxm") when the table knows it,
/// else its name in lower case with runs of other characters as '-' ("nvidia-l40s").
std::string card_slug(const std::string& device_name, int cc_major, int cc_minor);

}  // namespace memhier::model

namespace memhier::model {

/// What memhier's probe measured of one card: the figures the model's Card takes, with the
/// device's own properties. NaN (or 0 for counts) where the probe did not measure it.
struct CardRecord {
  std::string device_name;  ///< CUDA's name: "NVIDIA H200"
  int cc_major = 0, cc_minor = 0;
  int sms = 0;
  long long l2_bytes = 0;
  double peak_dram_gbps = 0;  ///< the device's own datasheet figure: 2 x memory clock x bus
  double dram_gbps = 0;       ///< measured: the best of the probe's DRAM methods; 0: none
  double dram_copy_gbps = 0;  ///< measured: its fastest copy (read + written); 0: none
  double l2_gbps = 0;         ///< measured: L2 re-reads; 0: none
  double shared_gbps = 0;     ///< measured: conflict-free shared-memory loads; 0: none
  double dram_latency_cycles = 0, l2_latency_cycles = 0;  ///< 0: not measured
  double sm_clock_mhz = 0;    ///< the SM clock the probe ran at
  std::string when;           ///< the memhier commit and UTC date of the measurement
};

/// The card a device is, for the models: its table entry when the table knows it (else its
/// own SM count, L2 size and datasheet DRAM bandwidth, never another card's figures), with
/// the record's measured bandwidths over the table's where `record` has them. `record` may
/// be null.
Card card_of_device(const std::string& device_name, int cc_major, int cc_minor, int sms,
                    long long l2_bytes, double peak_dram_gbps, const CardRecord* record);

}  // namespace memhier::model
