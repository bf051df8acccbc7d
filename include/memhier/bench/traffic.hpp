// The memory-system model against Nsight Compute: each profiled kernel of a family replayed
// by `memhier simulate` beside the DRAM bytes and hit rates ncu measured, with the issue's
// bars (DRAM bytes within 5 %, hit rates within 5 points) counted.
#pragma once

#include <cmath>
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
  /// "dram_read_bytes", "dram_write_bytes", "l1_hit_rate", "l2_hit_rate", "dram_bytes"
  std::string field;
  double simulated = 0;
  double measured = 0;  ///< NaN when ncu gave none
  /// Held to a bar: DRAM bytes are judged as the total read + written (dram_bytes), the
  /// read and written parts only shown.
  bool judged = true;
  bool within() const;
};

/// What one kernel launch adds to the counters by itself, measured on the empty marker
/// kernel launched before the item in the same profile run: L2 lookups that are no
/// kernel's (the floor under lts__t_sector_hit_rate) and DRAM bytes. NaN where absent.
struct LaunchFloor {
  double l2_hits = NAN, l2_lookups = NAN;
  double dram_read_bytes = NAN, dram_write_bytes = NAN;
};

/// The floor of `item` (its marker's counters).
LaunchFloor launch_floor(const ProfileItem& item);

/// The checks of one profiled item (a modeled family variant that ran), or nullopt. The
/// simulated L2 hit rate is (model hits + floor hits) / (model lookups + floor lookups), its
/// lookups counting the fabric's as ncu does; the simulated DRAM bytes add the floor's once
/// per kernel the item launched.
std::optional<std::vector<TrafficCheck>> traffic_checks(const ProfileItem& item,
                                                        const model::Card& card);

/// traffic_checks of each item, in order, the replays run on every core (replay_each).
std::vector<std::optional<std::vector<TrafficCheck>>> traffic_checks_each(
    const std::vector<ProfileItem>& items, const model::Card& card);

/// The "simulated against measured" table and the chart of predicted against measured DRAM
/// bytes for a family's profiled items; nothing for a pattern set or a family without a
/// stream model.
void add_traffic_comparison(report::Section& section, const std::vector<ProfileItem>& items,
                            const model::Card& card);

}  // namespace memhier::bench
