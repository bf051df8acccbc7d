// The card table: a device's CUDA name finds its own entry (never another card's), records
// are named by card, and a card the table lacks is modeled from its own figures.
#include <gtest/gtest.h>

#include <stdexcept>

#include "memhier/model/card.hpp"

namespace {

using namespace memhier::model;

TEST(Card, DeviceNamesFindTheirOwnEntry) {
  const struct {
    const char* device;
    int major, minor;
    const char* key;
  } cases[] = {{"NVIDIA H100 80GB HBM3", 9, 0, "h100-sxm"},
               {"NVIDIA H100 PCIe", 9, 0, "h100-pcie"},
               {"NVIDIA H100 NVL", 9, 0, "h100-nvl"},
               {"NVIDIA H200", 9, 0, "h200"},
               {"NVIDIA A100-SXM4-40GB", 8, 0, "a100-40gb"},
               {"NVIDIA A100-SXM4-80GB", 8, 0, "a100-80gb"},
               {"NVIDIA A100 80GB PCIe", 8, 0, "a100-80gb"},
               {"NVIDIA L4", 8, 9, "l4"},
               {"NVIDIA GeForce RTX 4090", 8, 9, "rtx4090"},
               {"NVIDIA B200", 10, 0, "b200"},
               {"NVIDIA GeForce RTX 5090", 12, 0, "rtx5090"}};
  for (const auto& c : cases) {
    const Card* card = card_for_device(c.device, c.major, c.minor);
    ASSERT_NE(card, nullptr) << c.device;
    EXPECT_EQ(card->key, c.key) << c.device;
    EXPECT_EQ(card_slug(c.device, c.major, c.minor), c.key);
  }
}

TEST(Card, UnknownDevicesGetNoOtherCardsEntry) {
  // An L40S is Ada like the L4 but not an L4; a future Hopper part is not an H100.
  EXPECT_EQ(card_for_device("NVIDIA L40S", 8, 9), nullptr);
  EXPECT_EQ(card_slug("NVIDIA L40S", 8, 9), "nvidia-l40s");
  EXPECT_EQ(card_for_device("NVIDIA GH200 480GB", 9, 0), nullptr);
  // The name alone is not enough: the compute capability must agree too.
  EXPECT_EQ(card_for_device("NVIDIA H100 80GB HBM3", 8, 0), nullptr);
}

TEST(Card, EveryEntrySaysWhereItsFiguresComeFrom) {
  for (const Card& c : all_cards()) {
    EXPECT_GT(c.dram_gbps, 0) << c.name;
    const std::string want = c.dram_from == Provenance::measured ? "measured: " : "datasheet: ";
    EXPECT_EQ(c.dram_source.rfind(want, 0), 0u) << c.name << ": " << c.dram_source;
    if (c.l2_gbps > 0) {
      EXPECT_EQ(c.l2_from, Provenance::measured) << c.name;
    }
  }
  EXPECT_EQ(find_card("h200")->l2_slices, 96);
  EXPECT_EQ(find_card("h100-pcie")->dram_from, Provenance::datasheet);
  EXPECT_EQ(find_card("h100")->key, "h100-sxm");
  EXPECT_EQ(find_card("H100 SXM")->key, "h100-sxm");
  EXPECT_EQ(find_card("rtx"), nullptr);
}

TEST(Card, ThisCardTakesTheRecordOverTheTable) {
  CardRecord r;
  r.device_name = "NVIDIA H200";
  r.cc_major = 9;
  r.dram_gbps = 4600;
  r.l2_gbps = 10100;
  r.when = "memhier abc, 2026-11-28";
  const Card c = card_of_device("NVIDIA H200", 9, 0, 132, 60LL << 20, 4800, &r);
  EXPECT_EQ(c.key, "h200");
  EXPECT_EQ(c.name, "NVIDIA H200");
  EXPECT_EQ(c.dram_gbps, 4600);
  EXPECT_EQ(c.dram_from, Provenance::measured);
  EXPECT_EQ(c.l2_gbps, 10100);
  // Without a record, the H200's table entry: never the H100's 3046 GB/s nor its 80 slices.
  const Card bare = card_of_device("NVIDIA H200", 9, 0, 132, 60LL << 20, 4800, nullptr);
  EXPECT_EQ(bare.dram_gbps, find_card("h200")->dram_gbps);
  EXPECT_NE(bare.dram_gbps, find_card("h100")->dram_gbps);
  EXPECT_EQ(bare.l2_slices, 96);
}

TEST(Card, AnUnknownCardIsModeledFromItsOwnFigures) {
  const Card c = card_of_device("NVIDIA L40S", 8, 9, 142, 96LL << 20, 864, nullptr);
  EXPECT_EQ(c.key, "nvidia-l40s");
  EXPECT_EQ(c.sms, 142);
  EXPECT_EQ(c.l2_bytes, 96LL << 20);
  EXPECT_EQ(c.dram_gbps, 864);
  EXPECT_EQ(c.l2_gbps, 0);
  EXPECT_THROW(card_of_device("NVIDIA Future", 15, 0, 200, 1LL << 30, 9000, nullptr),
               std::invalid_argument);
}

}  // namespace
