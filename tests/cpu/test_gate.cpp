// The gate every architecture-specific launch passes: the decision from a kernel's attributes
// and the device's limits given as data, for cards no machine here has.
#include <gtest/gtest.h>

#include "memhier/model/gate.hpp"

namespace {

using memhier::model::DeviceLimits;
using memhier::model::KernelImage;
using memhier::model::KernelNeeds;
using memhier::model::kernel_declines;

const DeviceLimits kH100{9, 0, 227 * 1024, 8};
const DeviceLimits kA100{8, 0, 163 * 1024, 0};
const DeviceLimits kRtx5090{12, 0, 99 * 1024, 8};
const DeviceLimits kB200{10, 0, 227 * 1024, 8};

KernelImage built_for(int arch, int smem = 0) {
  return {true, arch, arch, smem};
}

bool says(const std::string& sentence, const std::string& part) {
  return sentence.find(part) != std::string::npos;
}

TEST(Gate, RunsWhereBuiltAndAllowed) {
  EXPECT_EQ(kernel_declines("tma", {90, false, 64 * 1024, 0}, built_for(90), kH100), "");
  EXPECT_EQ(kernel_declines("plain", {}, built_for(80), kA100), "");
  // A newer card JIT-compiles the newest PTX: compute_120 code has the sm_90 features.
  EXPECT_EQ(kernel_declines("tma", {90, false, 0, 0}, {true, 120, 120, 0}, kRtx5090), "");
}

TEST(Gate, Sm90aCodeDeclinesOnOtherCards) {
  const KernelNeeds wgmma{90, true, 0, 0};
  for (const DeviceLimits& d : {kA100, kB200, kRtx5090}) {
    const std::string why = kernel_declines("wgmma_tma", wgmma, {}, d);
    EXPECT_TRUE(says(why, "needs sm_90a")) << why;
    EXPECT_TRUE(says(why, "this card is sm_" + std::to_string(d.cc_major * 10 + d.cc_minor)))
        << why;
  }
  EXPECT_EQ(kernel_declines("wgmma_tma", wgmma, built_for(90), kH100), "");
}

TEST(Gate, OlderCardsDeclineNewerFeatures) {
  const std::string why = kernel_declines("transpose tma", {90, false, 0, 0}, built_for(80), kA100);
  EXPECT_TRUE(says(why, "compute capability 9.0 or newer")) << why;
  EXPECT_TRUE(says(why, "sm_80")) << why;
}

TEST(Gate, NoImageForThisCardSaysHowToRebuild) {
  const std::string why = kernel_declines("softmax", {}, {}, kRtx5090);
  EXPECT_TRUE(says(why, "no code for this card")) << why;
  EXPECT_TRUE(says(why, "CUDAARCHS=120")) << why;
}

TEST(Gate, CodeCompiledBelowTheFeaturesDeclines) {
  // A build for compute_80 only, JIT-compiled on an H100: cluster and TMA code compiled to
  // nothing there, so the launch must not run.
  const std::string why =
      kernel_declines("softmax cluster_per_row", {90, false, 0, 2}, {true, 80, 90, 0}, kH100);
  EXPECT_TRUE(says(why, "compiled for compute_80")) << why;
}

TEST(Gate, SharedMemoryBeyondTheCardsLimitDeclines) {
  const KernelNeeds tma_probe{90, false, 128 * 1024, 0};
  EXPECT_EQ(kernel_declines("tma probe", tma_probe, built_for(90), kH100), "");
  const std::string why = kernel_declines("tma probe", tma_probe, built_for(120), kRtx5090);
  EXPECT_TRUE(says(why, "128 KiB")) << why;
  EXPECT_TRUE(says(why, "99 KiB")) << why;
  // Static shared memory counts too.
  EXPECT_NE(kernel_declines("k", {0, false, 98 * 1024, 0}, built_for(120, 2048), kRtx5090), "");
}

TEST(Gate, ClustersNeedACardWithThem) {
  const DeviceLimits no_clusters{9, 0, 227 * 1024, 0};
  EXPECT_TRUE(says(kernel_declines("dsmem", {90, false, 0, 2}, built_for(90), no_clusters),
                   "has none"));
  EXPECT_TRUE(says(kernel_declines("dsmem", {90, false, 0, 16}, built_for(90), kH100),
                   "clusters of 16"));
}

}  // namespace
