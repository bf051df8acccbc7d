// Helpers for GPU tests: skip cleanly without a device, find figures in probe tables.
#pragma once

#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "memhier/core/device.hpp"
#include "memhier/core/timing.hpp"
#include "memhier/probe/probe.hpp"
#include "memhier/registry/registry.hpp"

namespace memhier::testing {

/// Random bf16 in [-1, 1) on the host.
inline std::vector<__nv_bfloat16> random_bf16(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<__nv_bfloat16> v(n);
  for (auto& x : v) x = __float2bfloat16_rn(u(gen));
  return v;
}

/// The device, or nullopt with the reason (the caller GTEST_SKIPs with it).
inline std::optional<core::DeviceInfo> gpu_or_reason(std::string* why) {
  return core::query_device(0, why);
}

#define MEMHIER_REQUIRE_GPU(dev_var)                               \
  std::string memhier_why_;                                        \
  auto dev_var = ::memhier::testing::gpu_or_reason(&memhier_why_); \
  if (!dev_var) GTEST_SKIP() << "no GPU: " << memhier_why_

/// A quick-mode context for `dev` (measures the SM clock once per process).
/// For one test: MEMHIER_CACHE_DIR set to a fresh folder named `name` (the tuning cache on
/// disk starts empty) and MEMHIER_NO_TUNE_CACHE unset; both restored, and the folder removed,
/// at the end.
class ScopedCacheDir {
 public:
  explicit ScopedCacheDir(const std::string& name)
      : dir_(std::filesystem::temp_directory_path() /
             (name + "-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()))) {
    std::filesystem::remove_all(dir_);
    save("MEMHIER_CACHE_DIR", &old_dir_);
    save("MEMHIER_NO_TUNE_CACHE", &old_off_);
    ::setenv("MEMHIER_CACHE_DIR", dir_.c_str(), 1);
    ::unsetenv("MEMHIER_NO_TUNE_CACHE");
  }
  ScopedCacheDir(const ScopedCacheDir&) = delete;
  ScopedCacheDir& operator=(const ScopedCacheDir&) = delete;
  ~ScopedCacheDir() {
    restore("MEMHIER_CACHE_DIR", old_dir_);
    restore("MEMHIER_NO_TUNE_CACHE", old_off_);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  static void save(const char* var, std::optional<std::string>* out) {
    if (const char* v = std::getenv(var)) *out = v;
  }
  static void restore(const char* var, const std::optional<std::string>& v) {
    if (v)
      ::setenv(var, v->c_str(), 1);
    else
      ::unsetenv(var);
  }
  std::filesystem::path dir_;
  std::optional<std::string> old_dir_, old_off_;
};

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

/// What an every-variant test saw of one variant: its runs, and its documented declines (a
/// std::invalid_argument with a sentence, such as the tma rung refusing a 1x1 transpose).
struct VariantRuns {
  int ran = 0;
  std::set<std::string> declines;

  /// Runs `f`, one shape of the variant; a std::invalid_argument is a decline, not a failure.
  template <class F>
  void attempt(F&& f) {
    try {
      f();
      ++ran;
    } catch (const std::invalid_argument& e) {
      declines.insert(e.what());
    }
  }
  /// It ran one of the shapes at least, or declined every one for a single reason (the
  /// device lacks what it needs, as a Hopper-only rung elsewhere: not a matter of shape).
  bool ran_where_supported() const { return ran > 0 || declines.size() == 1; }
  /// The reasons it gave, for a failure message.
  std::string why() const {
    std::string s;
    for (const std::string& d : declines) s += (s.empty() ? "" : "; ") + d;
    return s.empty() ? "no shape was tried" : s;
  }
};

/// A comparison of measured times or rates, reported rather than asserted: another process
/// on the GPU, a clock change or a test running beside this one can reverse any of them, so
/// the figure goes to the test's output and XML (`key`, an XML name) with what the hierarchy
/// leads one to expect, and a line says when it did not hold; the test does not fail on it.
inline void report_figure(const std::string& key, double value, const std::string& expected,
                          bool holds) {
  ::testing::Test::RecordProperty(key, std::to_string(value));
  std::printf("[  FIGURE  ] %s = %.4g (expected %s)%s\n", key.c_str(), value, expected.c_str(),
              holds ? "" : ": NOT SO in this run (reported, not asserted)");
}

}  // namespace memhier::testing
