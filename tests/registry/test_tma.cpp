// The TMA layer and the "tma" probe's presentation without a GPU: which tensors a tensor
// map can describe (one sentence naming the rule otherwise), which devices can run TMA, and
// the section the probe's numbers become (tables, charts, verdicts from the edge checks).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "memhier/core/tma.hpp"
#include "memhier/model/gate.hpp"
#include "memhier/probe/tma.hpp"

namespace {

using memhier::core::Tensor2d;
using memhier::core::TmaSwizzle;

Tensor2d floats(std::uint64_t rows, std::uint64_t cols) {
  Tensor2d t;
  t.base = reinterpret_cast<const void*>(std::uintptr_t{1} << 20);
  t.rows = rows;
  t.cols = cols;
  t.pitch_bytes = cols * 4;
  t.box_cols = 32;
  t.box_rows = 64;
  return t;
}

TEST(TmaTensorMap, DescribesAlignedRowsAndNamesTheRuleOtherwise) {
  using memhier::core::tma_unsupported;
  EXPECT_EQ(tma_unsupported(floats(8192, 8192)), "");
  EXPECT_EQ(tma_unsupported(floats(1, 4)), "");  // one row of 16 bytes
  EXPECT_NE(tma_unsupported(floats(64, 33)).find("16-byte boundary"), std::string::npos);
  Tensor2d t = floats(64, 64);
  t.base = reinterpret_cast<const void*>((std::uintptr_t{1} << 20) + 4);
  EXPECT_NE(tma_unsupported(t).find("base address 16-byte aligned"), std::string::npos);
  t = floats(64, 64);
  t.base = nullptr;
  EXPECT_NE(tma_unsupported(t).find("null"), std::string::npos);
  t = floats(64, 64);
  t.pitch_bytes = 128;  // shorter than a row of 256 bytes
  EXPECT_NE(tma_unsupported(t).find("shorter than a row"), std::string::npos);
  t = floats(64, 64);
  t.box_rows = 257;
  EXPECT_NE(tma_unsupported(t).find("1 to 256"), std::string::npos);
  t = floats(64, 64);
  t.box_cols = 3;  // 12 bytes across
  EXPECT_NE(tma_unsupported(t).find("multiple of 16 bytes"), std::string::npos);
  t = floats(64, 64);
  t.box_cols = 64;  // 256 bytes across: fine unswizzled, too wide for the 128-byte swizzle
  EXPECT_EQ(tma_unsupported(t), "");
  t.swizzle = TmaSwizzle::b128;
  EXPECT_NE(tma_unsupported(t).find("at most 128 bytes"), std::string::npos);
  t.box_cols = 16;  // 64 bytes across: the 64-byte swizzle's widest row
  t.swizzle = TmaSwizzle::b64;
  EXPECT_EQ(tma_unsupported(t), "");
  t.box_cols = 32;
  EXPECT_NE(tma_unsupported(t).find("at most 64 bytes"), std::string::npos);
  t = floats(64, 64);
  t.elem_bytes = 3;
  EXPECT_NE(tma_unsupported(t).find("1, 2, 4 or 8 bytes"), std::string::npos);
  t = floats(std::uint64_t{1} << 33, 64);
  EXPECT_NE(tma_unsupported(t).find("2^32"), std::string::npos);
}

// A stack of layers (a [batch, seq, ...] tensor): the plane's rules first, then the layers'.
TEST(TmaTensorMap, LayersNeedAlignedPitchesAtLeastAPlaneApart) {
  using memhier::core::tma_unsupported;
  memhier::core::Tensor3d t;
  t.plane = floats(37, 64);
  t.layers = 4;
  t.layer_pitch_bytes = 37 * 64 * 4;
  EXPECT_EQ(tma_unsupported(t), "");
  t.layer_pitch_bytes += 8;
  EXPECT_NE(tma_unsupported(t).find("layer pitch"), std::string::npos);
  t.layer_pitch_bytes = 36 * 64 * 4;  // the layers would overlap
  EXPECT_NE(tma_unsupported(t).find("shorter than a layer"), std::string::npos);
  t.layer_pitch_bytes = 37 * 64 * 4;
  t.layers = 0;
  EXPECT_NE(tma_unsupported(t).find("layers"), std::string::npos);
  t.layers = 4;
  t.plane.box_rows = 257;
  EXPECT_NE(tma_unsupported(t).find("1 to 256"), std::string::npos);
}

using namespace memhier::probe;

TmaResult measured() {
  TmaResult m;
  m.sm_bytes = 8 << 20;
  m.chip_bytes = 256 << 20;
  int i = 0;
  for (const std::string& method : tma_load_methods())
    for (int stages : {1, 4}) {
      TmaRate r;
      r.method = method;
      r.chunk_bytes = 16384;
      r.stages = stages;
      r.sm_gbps = 20.0 * stages;
      r.chip_gbps = 2000.0 + 100.0 * i++;  // the tensor method last, fastest
      r.verified = true;
      m.loads.push_back(r);
    }
  TmaRate s;
  s.method = tma_store_methods()[1];
  s.chunk_bytes = 16384;
  s.stages = 2;
  s.sm_gbps = 30;
  s.chip_gbps = 2500;
  s.verified = true;
  m.stores.push_back(s);
  TmaMulticast mc;
  mc.cluster = 2;
  mc.blocks = 264;
  mc.working_set_bytes = 16 << 20;
  mc.separate_gbps = 5000;
  mc.multicast_gbps = 7500;
  mc.verified = true;
  m.multicast.push_back(mc);
  m.oob_checked = 1024;
  m.oob_store_checked = 4736;
  m.swizzle_checked = 512;
  return m;
}

const memhier::report::Table& table(const Result& r, const std::string& id) {
  for (const auto& t : r.section.tables)
    if (t.id == id) return t;
  throw std::runtime_error("no table " + id);
}

std::string verdict(const Result& r, const std::string& claim) {
  const auto& t = table(r, "tma-claims");
  for (const auto& row : t.rows)
    if (row[0].text == claim) return row[static_cast<std::size_t>(t.column("verdict"))].text;
  return "absent";
}

TEST(TmaPresent, TablesChartsAndVerdictsFollowTheNumbers) {
  TmaResult m = measured();
  Result r = present_tma(m);
  EXPECT_EQ(table(r, "tma-loads").rows.size(), m.loads.size());
  EXPECT_EQ(table(r, "tma-stores").rows.size(), 1u);
  const auto& mc = table(r, "tma-multicast");
  ASSERT_EQ(mc.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(mc.rows[0][mc.column("ratio")].number, 1.5);
  ASSERT_EQ(r.section.charts.size(), 2u);
  EXPECT_EQ(r.section.charts[0].series.size(), tma_load_methods().size());
  // Bytes in flight: 16 KiB and 64 KiB, the best of each for every method.
  EXPECT_EQ(r.section.charts[0].series[0].x, (std::vector<double>{16384, 65536}));
  EXPECT_EQ(verdict(r, "tma-hopper-adds-bulk-copies").rfind("reproduced", 0), 0u);
  // The tensor boxes' best (2700) over the threads' best (2100): at least 0.9.
  EXPECT_EQ(verdict(r, "tma-offloads-addressing").rfind("reproduced", 0), 0u);
  EXPECT_EQ(verdict(r, "tma-tile-one-instruction-bounds").rfind("reproduced", 0), 0u);
  EXPECT_EQ(verdict(r, "tma-swizzle-oob-in-hardware").rfind("reproduced", 0), 0u);
  // Writes inside the last 16-byte chunk of a row are padding by the pitch rule: no fault.
  m.oob_store_chunk_spill = 51;
  r = present_tma(m);
  EXPECT_EQ(verdict(r, "tma-tile-one-instruction-bounds").rfind("reproduced", 0), 0u);

  m.oob_store_wrong = 3;  // a store that wrote past the tensor's edge
  m.swizzle_wrong = 1;
  m.loads[2].verified = false;  // cp.async 16B failed once
  r = present_tma(m);
  EXPECT_EQ(verdict(r, "tma-tile-one-instruction-bounds").rfind("refuted", 0), 0u);
  EXPECT_EQ(verdict(r, "tma-swizzle-oob-in-hardware").rfind("refuted", 0), 0u);
  EXPECT_EQ(verdict(r, "tma-hopper-adds-bulk-copies").rfind("refuted", 0), 0u);
  EXPECT_FALSE(table(r, "tma-loads").notes.empty());
}

TEST(TmaPresent, AnUnsupportedDeviceSaysWhyAndMeasuresNothing) {
  TmaResult m;
  m.unsupported = memhier::model::kernel_declines("The TMA probe", {90, false, 0, 0}, {},
                                                  {8, 0, 163 * 1024, 0});
  const Result r = present_tma(m);
  bool said = false;
  for (const std::string& p : r.section.paragraphs)
    said = said || p.find("9.0") != std::string::npos;
  EXPECT_TRUE(said);
  ASSERT_EQ(r.section.tables.size(), 1u);
  const auto& t = table(r, "tma-claims");
  for (const auto& row : t.rows)
    EXPECT_EQ(
        row[static_cast<std::size_t>(t.column("verdict"))].text.rfind("not measurable here", 0), 0u)
        << row[0].text;
}

}  // namespace
