// Helpers for GPU tests: skip cleanly without a device, find figures in probe tables.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>

#include "memhier/core/device.hpp"
#include "memhier/core/timing.hpp"
#include "memhier/probe/probe.hpp"
#include "memhier/registry/registry.hpp"

namespace memhier::testing {

/// The device, or nullopt with the reason (the caller GTEST_SKIPs with it).
inline std::optional<core::DeviceInfo> gpu_or_reason(std::string* why) {
  return core::query_device(0, why);
}

#define MEMHIER_REQUIRE_GPU(dev_var)                               \
  std::string memhier_why_;                                        \
  auto dev_var = ::memhier::testing::gpu_or_reason(&memhier_why_); \
  if (!dev_var) GTEST_SKIP() << "no GPU: " << memhier_why_

/// A quick-mode context for `dev` (measures the SM clock once per process).
inline probe::Context quick_context(const core::DeviceInfo& dev) {
  static double mhz = core::measure_sm_clock_mhz();
  probe::Context c;
  c.device = dev;
  c.sm_clock_mhz = mhz;
  c.quick = true;
  return c;
}

/// The table of `s` with this id, or nullptr.
inline const report::Table* find_table(const report::Section& s, const std::string& id) {
  for (const report::Table& t : s.tables)
    if (t.id == id) return &t;
  return nullptr;
}

/// A physical ceiling for anything served by L1 or shared memory: 128 bytes per clock
/// per SM (32 banks of 4 bytes) at the measured clock, with 25% slack. A figure above it
/// means loads were optimized away or bytes were miscounted.
inline double l1_ceiling_gbps(const probe::Context& ctx) {
  return 1.25 * 128.0 * ctx.device.sm_count * ctx.sm_clock_mhz * 1e6 / 1e9;
}

/// Every number in the table is finite and positive (empty and text cells are skipped).
inline void expect_all_positive(const report::Table& t) {
  for (const auto& row : t.rows)
    for (std::size_t i = 0; i < row.size(); ++i)
      if (row[i].kind == report::Value::Kind::number) {
        EXPECT_TRUE(std::isfinite(row[i].number) && row[i].number > 0)
            << t.id << " column " << t.columns[i].name << " = " << row[i].number;
      }
}

}  // namespace memhier::testing
