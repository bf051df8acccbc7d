// The one reader of user text (model/input.hpp) over generated inputs, valid and not, each
// checked against an oracle written independently of it: what it accepts, what it answers,
// and that every refusal is one sentence naming the input. The Python package and the
// command call these same functions (python/tests/test_input.py compares the two faces).
#include <gtest/gtest.h>

#include <array>
#include <cctype>
#include <cstdint>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "../common/decimal_oracle.hpp"
#include "memhier/model/input.hpp"

namespace {

using namespace memhier::model;

std::mt19937_64& rng() {
  static std::mt19937_64 r(20261129);  // fixed: a failure replays exactly
  return r;
}

// Pieces users type, right and wrong; generated inputs join them with the separators.
const std::vector<std::string> kPieces = {"1",
                                          "2",
                                          "8",
                                          "32",
                                          "33",
                                          "64",
                                          "256",
                                          "1024",
                                          "1025",
                                          "0",
                                          "010",
                                          "-1",
                                          "",
                                          "+5",
                                          " 5",
                                          "5 ",
                                          "1e3",
                                          "0x10",
                                          "3.5",
                                          "K",
                                          "k",
                                          "KB",
                                          "KiB",
                                          "M",
                                          "MiB",
                                          "G",
                                          "GB",
                                          "B",
                                          "x",
                                          "X",
                                          ",",
                                          "\n",
                                          "9223372036854775808",
                                          "99999999999999999999",
                                          "\xd9\xa3"};

std::string generated() {
  const int parts = 1 + static_cast<int>(rng()() % 4);
  std::string s;
  for (int i = 0; i < parts; ++i) {
    s += kPieces[rng()() % kPieces.size()];
    if (i + 1 < parts && rng()() % 3 != 0) s += rng()() % 2 ? "x" : "";
  }
  return s;
}

using memhier::testing::decimal;

// A refusal: one sentence, naming the input as given.
void expect_sentence(const InputError& e, const std::string& what, const std::string& text) {
  const std::string m = e.what();
  EXPECT_EQ(m.rfind(what, 0), 0u) << m;
  EXPECT_EQ(m.back(), '.') << m;
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  // Every sentence quotes the text, but a number out of range, which it names by value.
  if (m.find(" is outside ") == std::string::npos || m.find("'") != std::string::npos) {
    EXPECT_NE(m.find(quote_for_message(text)), std::string::npos) << m;
  }
}

TEST(Input, BlockShapesAgreeWithTheOracle) {
  int accepted = 0, refused = 0;
  for (int i = 0; i < 4000; ++i) {
    const std::string t = generated();
    // Oracle: 1 to 3 extents joined by x, X or ',', each 1..1024, at most 1024 threads.
    std::vector<std::int64_t> dims;
    bool ok = std::regex_match(t, std::regex("[^xX,]*([xX,][^xX,]*){0,2}"));
    std::size_t start = 0;
    while (ok) {
      const std::size_t x = t.find_first_of("xX,", start);
      std::int64_t v = 0;
      ok = decimal(t.substr(start, x == std::string::npos ? x : x - start), &v) && v >= 1 &&
           v <= 1024;
      dims.push_back(v);
      if (x == std::string::npos) break;
      start = x + 1;
    }
    std::int64_t threads = 1;
    for (std::int64_t d : dims) threads *= d;
    ok = ok && threads <= 1024;
    try {
      const std::array<int, 3> b = parse_block(t, "block");
      EXPECT_TRUE(ok) << "accepted " << quote_for_message(t);
      dims.resize(3, 1);
      EXPECT_EQ((std::vector<std::int64_t>{b[0], b[1], b[2]}), dims) << quote_for_message(t);
      ++accepted;
    } catch (const InputError& e) {
      EXPECT_FALSE(ok) << "refused " << quote_for_message(t) << ": " << e.what();
      expect_sentence(e, "block", t);
      ++refused;
    }
  }
  EXPECT_GT(accepted, 100);
  EXPECT_GT(refused, 100);
}

TEST(Input, SizesAgreeWithTheOracle) {
  const std::int64_t hi = std::int64_t{1} << 34;
  int accepted = 0;
  for (int i = 0; i < 4000; ++i) {
    const std::string t = generated();
    std::smatch m;
    std::int64_t v = 0, want = -1;
    static const std::regex form("(-?[0-9]*)(KiB|KB|K|MiB|MB|M|GiB|GB|G|B)?", std::regex::icase);
    if (std::regex_match(t, m, form) && decimal(m[1], &v) && v >= 0) {
      const char unit = m[2].length() ? static_cast<char>(std::toupper(m[2].str()[0])) : 'B';
      const std::int64_t mult = unit == 'K'   ? 1 << 10
                                : unit == 'M' ? 1 << 20
                                : unit == 'G' ? 1 << 30
                                              : 1;
      if (v <= hi / mult) want = v * mult;
    }
    try {
      EXPECT_EQ(parse_size(t, "smem", hi), want) << quote_for_message(t);
      ++accepted;
    } catch (const InputError& e) {
      EXPECT_EQ(want, -1) << "refused " << quote_for_message(t) << ": " << e.what();
      expect_sentence(e, "smem", t);
    }
  }
  EXPECT_GT(accepted, 50);
  EXPECT_EQ(parse_size("48K", "smem", hi), 49152);
  EXPECT_EQ(parse_size("2G", "smem", hi), std::int64_t{2} << 30);
}

TEST(Input, ShapesNameTheirFamilyAndExtents) {
  EXPECT_EQ(parse_shape("4096x4096x4096", 3, "gemm", 1e30),
            (std::vector<std::int64_t>{4096, 4096, 4096}));
  EXPECT_EQ(parse_shape("8000x6000", 2, "transpose"), (std::vector<std::int64_t>{8000, 6000}));
  for (const char* bad : {"8000", "8000x", "x6000", "08000x6000", "8000x6000x1", "8000*6000",
                          "-8000x6000", "100000x100000"}) {
    try {
      parse_shape(bad, 2, "transpose");
      ADD_FAILURE() << bad << " was accepted";
    } catch (const InputError& e) {
      expect_sentence(e, "transpose shape", bad);
    }
  }
}

TEST(Input, NamesListTheChoices) {
  EXPECT_EQ(parse_choice("b", "softmax variant", {"a", "b"}), 1u);
  try {
    parse_choice("c", "softmax variant", {"a", "b"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "unknown softmax variant 'c'; known: a, b.");
  }
  EXPECT_EQ(parse_arch("sm_90a", "cc").cc(), "9.0");
  EXPECT_THROW(parse_arch("09.0", "cc"), InputError);
  EXPECT_EQ(parse_card("H200", "card").key, "h200");
  try {
    parse_card("h900", "--card", {"this"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("choose one of this, "), std::string::npos) << e.what();
  }
}

TEST(Input, FacesNameInputsTheirWayAndReadThemAlike) {
  EXPECT_EQ(input_name("static_smem", Face::cli), "--static-smem");
  EXPECT_EQ(input_name("static_smem", Face::python), "static_smem");
  OccupancyText t;
  t.block = "32x8";
  t.smem = "48K";
  const OccupancyInput cli = read_occupancy(t, Face::cli), py = read_occupancy(t, Face::python);
  EXPECT_EQ(cli.resources.block_threads, 256);
  EXPECT_EQ(py.resources.block_threads, 256);
  EXPECT_EQ(py.resources.dynamic_smem_bytes, 49152);
  t.static_smem = "64K";
  for (Face f : {Face::cli, Face::python}) {
    try {
      read_occupancy(t, f);
      FAIL();
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(input_name("static_smem", f) + " '64K' is outside", 0),
                0u)
          << e.what();
    }
  }
  WarpText w;
  w.block = "32x32";
  w.warp = "32";
  EXPECT_THROW(read_warp_context(w, Face::python), InputError);
  w.warp = "31";
  EXPECT_EQ(read_warp_context(w, Face::python).warp, 31);
}

}  // namespace
