// The memory-system model against Nsight Compute: each profiled kernel of a family replayed
// by `memhier simulate` beside the DRAM bytes and hit rates ncu measured, with the issue's
// bars (DRAM bytes within 5 %, hit rates within 5 points) counted.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "memhier/bench/profile.hpp"
#include "memhier/model/card.hpp"

namespace memhier::bench {

/// The bars: relative DRAM-byte error, absolute hit-rate error in points, and the floor
/// under which two DRAM figures count as equal whatever their ratio (near-zero writes).
inline constexpr double kDramTolerance = 0.05;
inline constexpr double kHitRatePoints = 5.0;
inline constexpr double kDramFloorBytes = 64.0 * 1024;

/// One figure simulated and measured, and whether it is within its bar.
struct TrafficCheck {
  std::string field;  ///< "dram_read_bytes", "dram_write_bytes", "l1_hit_rate", "l2_hit_rate"
  double simulated = 0;
  double measured = 0;  ///< NaN when ncu gave none
  bool within() const;
};

/// The checks of one profiled item (a modeled family variant that ran), or nullopt.
std::optional<std::vector<TrafficCheck>> traffic_checks(const ProfileItem& item,
                                                        const model::Card& card);

/// The card the profiled device is: the table's card of its compute capability with the
/// device's own SM count and L2 size; the H100 entry when no device answers.
model::Card profiled_card();

/// The "simulated against measured" table and the chart of predicted against measured DRAM
/// bytes for a family's profiled items; nothing for a pattern set or a family without a
/// stream model.
void add_traffic_comparison(report::Section& section, const std::vector<ProfileItem>& items,
                            const model::Card& card);

}  // namespace memhier::bench
