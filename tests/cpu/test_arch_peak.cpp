// The peaks of the architecture table against NVIDIA's published figures: one function
// turns (architecture, number type, SMs, clock) into GFLOP/s for every family.
#include <gtest/gtest.h>

#include <cmath>

#include "memhier/model/arch.hpp"

namespace {

using memhier::model::find_arch;
using memhier::model::NumberType;
using memhier::model::peak_gflops;

TEST(ArchPeak, Bf16MatchesTheDatasheets) {
  // H100 SXM5: 132 SMs at its 1830 MHz tensor boost clock, 989.4 TFLOP/s dense bf16.
  EXPECT_NEAR(peak_gflops(*find_arch(9, 0), NumberType::bf16, 132, 1830.0) / 1e3, 989.4, 0.1);
  // H100 PCIe: 114 SMs at 1620 MHz, 756 TFLOP/s.
  EXPECT_NEAR(peak_gflops(*find_arch(9, 0), NumberType::bf16, 114, 1620.0) / 1e3, 756.0, 0.5);
  // A100: 108 SMs at 1410 MHz, 312 TFLOP/s.
  EXPECT_NEAR(peak_gflops(*find_arch(8, 0), NumberType::bf16, 108, 1410.0) / 1e3, 312.0, 0.5);
}

TEST(ArchPeak, Fp32IsTwoFlopsPerLanePerClock) {
  // H100 SXM5: 132 SMs x 128 lanes x 2 at 1980 MHz = the whitepaper's 66.9 TFLOP/s.
  EXPECT_NEAR(peak_gflops(*find_arch(9, 0), NumberType::fp32, 132, 1980.0) / 1e3, 66.9, 0.05);
  // A100: 108 SMs x 64 lanes x 2 at 1410 MHz = 19.5 TFLOP/s.
  EXPECT_NEAR(peak_gflops(*find_arch(8, 0), NumberType::fp32, 108, 1410.0) / 1e3, 19.5, 0.05);
}

TEST(ArchPeak, NoRateOrNoClockIsNoPeak) {
  // Volta and Turing have no bf16 path; the rows without a confirmed figure have none either.
  for (const auto& cc : {std::make_pair(7, 0), std::make_pair(7, 5), std::make_pair(8, 6),
                         std::make_pair(8, 9), std::make_pair(10, 0), std::make_pair(12, 0)}) {
    const auto* a = find_arch(cc.first, cc.second);
    ASSERT_NE(a, nullptr);
    EXPECT_TRUE(std::isnan(peak_gflops(*a, NumberType::bf16, 80, 1500.0))) << a->cc();
    EXPECT_GT(peak_gflops(*a, NumberType::fp32, 80, 1500.0), 0.0) << a->cc();
  }
  EXPECT_TRUE(std::isnan(peak_gflops(*find_arch(9, 0), NumberType::bf16, 132, 0.0)));
  EXPECT_TRUE(std::isnan(peak_gflops(*find_arch(9, 0), NumberType::fp32, 0, 1830.0)));
  EXPECT_STREQ(memhier::model::to_string(NumberType::bf16), "bf16");
  EXPECT_STREQ(memhier::model::to_string(NumberType::fp32), "fp32");
}

TEST(ArchPeak, EveryBf16RateIsAboveTheFp32Rate) {
  // A tensor rate below the FMA pipes' would be a typo in the table.
  for (const auto& a : memhier::model::all_archs()) {
    if (a.bf16_tensor_flops_per_clk == 0) continue;
    EXPECT_GT(a.bf16_tensor_flops_per_clk, 2 * a.cuda_cores_per_sm) << a.cc();
  }
}

}  // namespace
