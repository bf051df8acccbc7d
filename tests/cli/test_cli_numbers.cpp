// Every numeric option of every subcommand under extreme, malformed and random values
// (fixed seed): bad input exits 2 within a second with one line on stderr and nothing on
// stdout; valid values, boundaries included, still work (GPU commands exit 3 without a GPU,
// which proves the value was accepted before the GPU check).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "../common/decimal_oracle.hpp"
#include "../common/run_memhier.hpp"

namespace {

using memhier::testing::Result;
using memhier::testing::run;
using Args = std::vector<std::string>;

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();

std::mt19937_64& rng() {
  static std::mt19937_64 r(20261124);  // fixed: a failure replays exactly
  return r;
}

std::int64_t random_in(std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng());
}

bool gpu_present() {
  static const bool present = [] {
    const Result info = run({"info", "--json"});
    return info.status == 0 && !nlohmann::json::parse(info.out)["device"].is_null();
  }();
  return present;
}

// The value for a failure message, control and non-ASCII bytes as \xNN.
std::string shown(const std::string& s) {
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s)
    out += c >= 0x20 && c < 0x7f ? std::string(1, static_cast<char>(c))
                                 : std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
  return "'" + out + "'";
}

using memhier::testing::decimal;

// One numeric option: the command line that carries a value and the oracle for it.
struct Option {
  std::string label;                              // "occupancy --regs"
  std::function<Args(const std::string&)> args;   // the command line for one value
  std::function<bool(const std::string&)> valid;  // what the option must accept
  bool gpu = false;                               // a valid value reaches the GPU check
  std::string mentions;                           // a bad value's message matches this regex
};

// A decimal option taking lo..hi.
std::function<bool(const std::string&)> in_range(std::int64_t lo, std::int64_t hi) {
  return [lo, hi](const std::string& s) {
    std::int64_t v = 0;
    return decimal(s, &v) && v >= lo && v <= hi;
  };
}

// Runs one value and checks the outcome the oracle predicts.
void check(const Option& o, const std::string& value) {
  const bool valid = o.valid(value);
  if (valid && o.gpu && gpu_present()) return;  // a valid value would run the benchmark
  const auto start = std::chrono::steady_clock::now();
  const Result r = run(o.args(value));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string what = o.label + " " + shown(value);
  if (valid) {
    EXPECT_EQ(r.status, o.gpu ? 3 : 0) << what << " was refused: " << r.err;
    return;
  }
  EXPECT_EQ(r.status, 2) << what << " was accepted: " << r.out.substr(0, 300) << r.err;
  // On a GPU host a GPU command may initialize the device before it parses a shape.
  if (!(o.gpu && gpu_present())) {
    EXPECT_LT(seconds, 1.0) << what;
  }
  EXPECT_TRUE(r.out.empty()) << what << ": " << r.out.substr(0, 300);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << ": " << r.err;
  EXPECT_EQ(r.err.back(), '\n') << what << ": " << r.err;
  EXPECT_EQ(r.err.rfind("memhier: ", 0), 0u) << what << ": " << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex(o.mentions))) << what << ": " << r.err;
}

// Texts a decimal option never takes, whatever its range: the first four go to every
// option, a random draw of the others (the seed fixes which) keeps the run short.
const std::vector<std::string> kMalformed = {"",
                                             "010",
                                             "1e309",
                                             "5abc",
                                             "00",
                                             "+5",
                                             " 5",
                                             "5 ",
                                             "0x10",
                                             "5.0",
                                             "9223372036854775808",
                                             "-9223372036854775809",
                                             "99999999999999999999999",
                                             "\xd9\xa3",
                                             "5\n",
                                             "-",
                                             "1 2"};

// Malformed texts, the extremes and the edges of lo..hi, then random values (a random
// 64-bit value, one inside the range, and that one again with a leading zero).
std::vector<std::string> values_for(std::int64_t lo, std::int64_t hi) {
  std::vector<std::string> v(kMalformed.begin(), kMalformed.begin() + 4);
  for (int i = 0; i < 2; ++i)
    v.push_back(kMalformed[static_cast<std::size_t>(
        random_in(4, static_cast<std::int64_t>(kMalformed.size()) - 1))]);
  for (std::int64_t x : {lo, hi, kMin, kMax, std::int64_t{-1}, std::int64_t{0}})
    v.push_back(std::to_string(x));
  if (lo > kMin) v.push_back(std::to_string(lo - 1));
  if (hi < kMax) v.push_back(std::to_string(hi + 1));
  v.push_back(std::to_string(static_cast<std::int64_t>(rng()())));
  const std::int64_t inside = random_in(lo, hi);
  v.push_back(std::to_string(inside));
  if (inside > 0) v.push_back("0" + std::to_string(inside));
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

void check_all(const Option& o, const std::vector<std::string>& values) {
  for (const std::string& v : values) check(o, v);
}

// A decimal option of `sub` (a command line without the option) taking lo..hi.
Option decimal_option(const Args& sub, const std::string& flag, std::int64_t lo, std::int64_t hi,
                      bool gpu = false, const Args& after = {}) {
  Option o;
  o.label = sub[0] + " " + flag;
  o.args = [sub, flag, after](const std::string& v) {
    Args a = sub;
    a.push_back(flag);
    a.push_back(v);
    a.insert(a.end(), after.begin(), after.end());
    return a;
  };
  o.valid = in_range(lo, hi);
  o.gpu = gpu;
  o.mentions = flag;
  return o;
}

const Args kShared = {"analyze", "shared", "float a[]", "a[lane]"};

}  // namespace

TEST(CliNumbers, AnalyzeOptions) {
  check_all(decimal_option(kShared, "--warp", 0, 31, false, {"--block", "1024"}),
            values_for(0, 31));
  check_all(decimal_option(kShared, "--warp", 0, 1, false, {"--block", "33"}), {"1", "2", "-0"});
  check_all(decimal_option({"analyze", "global", "float a[]", "a[lane]"}, "--offset-bytes", 0,
                           std::int64_t{1} << 40),
            values_for(0, std::int64_t{1} << 40));
  // --active: decimal or 0x-hex (how masks are written), 32 bits.
  Option active = decimal_option(kShared, "--active", 0, 0xffffffffLL);
  const auto decimal_mask = active.valid;
  active.valid = [decimal_mask](const std::string& s) {
    static const std::regex hex("0[xX](?=[0-9a-fA-F])0*[0-9a-fA-F]{0,8}");  // 32 bits
    return decimal_mask(s) || std::regex_match(s, hex);
  };
  std::vector<std::string> masks = values_for(0, 0xffffffffLL);
  for (const char* m : {"0xffffffff", "0XFF", "0x0", "0x000000001", "0x100000000", "0x", "0xg",
                        "0x1ffffffffffffffffff"})
    masks.push_back(m);
  check_all(active, masks);
}

TEST(CliNumbers, AnalyzeBlockShapes) {
  Option block = decimal_option(kShared, "--block", 1, 1024);
  block.valid = [](const std::string& s) {
    static const std::regex form("[^xX,]*([xX,][^xX,]*){0,2}");
    if (!std::regex_match(s, form)) return false;
    std::int64_t threads = 1;
    std::size_t start = 0;
    while (true) {
      const std::size_t x = s.find_first_of("xX,", start);
      std::int64_t v = 0;
      if (!decimal(s.substr(start, x == std::string::npos ? x : x - start), &v) || v < 1 ||
          v > 1024)
        return false;
      threads *= v;
      if (x == std::string::npos) break;
      start = x + 1;
    }
    return threads <= 1024;
  };
  std::vector<std::string> shapes = values_for(1, 1024);
  for (const char* s : {"32x32", "32x33", "1x1x1", "1x1x1x1", "1024x1x1", "2x1024", "32x", "x32",
                        "16x016", "8x8x16", "8x8x17", "32,32"})
    shapes.push_back(s);
  for (int i = 0; i < 4; ++i)
    shapes.push_back(std::to_string(random_in(1, 64)) + "x" + std::to_string(random_in(1, 64)));
  check_all(block, shapes);
}

// `a[lane * s]` over 4-byte elements: lane 31's byte offset 124 * s must fit int64, and a
// negative s leaves the array. Overflow is a clear error (exit 2), never a wrapped address.
TEST(CliNumbers, EvaluationOverflowIsAnError) {
  Option set;
  set.label = "analyze --set s=";
  set.args = [](const std::string& v) {
    return Args{"analyze", "global", "float a[]", "a[lane * s]", "--set", "s=" + v};
  };
  set.valid = in_range(0, kMax / 124);
  set.mentions = "--set|overflow|outside";
  std::vector<std::string> values = values_for(0, kMax / 124);
  for (std::int64_t x : {kMax / 124 + 1, kMax / 31, kMax / 31 + 1, kMax / 4})
    values.push_back(std::to_string(x));
  check_all(set, values);
  // A base offset at the limit plus an element offset near 2^63 overflows the address.
  Option offset = set;
  offset.args = [](const std::string& v) {
    return Args{"analyze",        "global",        "char a[]", "a[lane + s]",
                "--offset-bytes", "1099511627776", "--set",    "s=" + v};
  };
  offset.valid = in_range(0, kMax - (std::int64_t{1} << 40) - 31);
  offset.mentions = "overflows 64 bits|integer overflow";  // said so, not a wrapped address
  check_all(offset, {std::to_string(kMax - (std::int64_t{1} << 40) - 31),
                     std::to_string(kMax - (std::int64_t{1} << 40) - 30), std::to_string(kMax)});
  // An unused variable may hold any 64-bit value.
  Option unused =
      decimal_option({"analyze", "shared", "float a[]", "a[lane]"}, "--set", kMin, kMax);
  unused.args = [](const std::string& v) {
    return Args{"analyze", "shared", "float a[]", "a[lane]", "--set", "k=" + v};
  };
  check_all(unused, values_for(kMin, kMax));
}

TEST(CliNumbers, SweepsAreBounded) {
  Option sweep;
  sweep.label = "analyze --sweep";
  sweep.args = [](const std::string& v) {
    return Args{"analyze", "shared", "float a[]", "a[lane]", "--sweep", v};
  };
  sweep.mentions = "--sweep";
  // k=FROM..TO[:STEP]: both ends int64, a positive step, at most 1,000,000 values.
  sweep.valid = [](const std::string& s) {
    static const std::regex form("k=([^.:]*)\\.\\.([^:]*)(:(.*))?");
    std::smatch m;
    if (!std::regex_match(s, m, form)) return false;
    std::int64_t from = 0, to = 0, step = 1;
    if (!decimal(m[1], &from) || !decimal(m[2], &to)) return false;
    if (m[3].matched && (!decimal(m[4], &step) || step < 1)) return false;
    if (to < from) return false;
    const std::uint64_t span = static_cast<std::uint64_t>(to) - static_cast<std::uint64_t>(from);
    return span / static_cast<std::uint64_t>(step) < 1'000'000;
  };
  std::vector<std::string> sweeps = {"k=1..9223372036854775807",
                                     "k=-9223372036854775808..9223372036854775807",
                                     "k=0..1000000",
                                     "k=0..999999:1",
                                     "k=5..1",
                                     "k=1..5:0",
                                     "k=1..5:-1",
                                     "k=1..5:010",
                                     "k=01..5",
                                     "k=1..5x",
                                     "k=1..9223372036854775808",
                                     "k=..5",
                                     "k=1..",
                                     "k=1..5:",
                                     "k=9223372036854775800..9223372036854775807:3",
                                     "k=-9223372036854775808..-9223372036854775808",
                                     "k=0..1999999999999:2000",
                                     "k=1e309..2"};
  for (int i = 0; i < 6; ++i) {
    // Random ends: a short sweep somewhere in int64, or two unrelated ends.
    const std::int64_t from = static_cast<std::int64_t>(rng()());
    const std::int64_t step = random_in(1, 1000), count = random_in(1, 50);
    std::int64_t to = from;
    if (__builtin_mul_overflow(step, count - 1, &to) || __builtin_add_overflow(from, to, &to))
      to = kMax;
    sweeps.push_back("k=" + std::to_string(from) + ".." + std::to_string(to) + ":" +
                     std::to_string(step));
    sweeps.push_back("k=" + std::to_string(from) + ".." +
                     std::to_string(static_cast<std::int64_t>(rng()())));
  }
  check_all(sweep, sweeps);
}

TEST(CliNumbers, OccupancyOptions) {
  const Args occ = {"occupancy", "--cc", "9.0"};
  check_all(decimal_option(occ, "--regs", 1, 255, false, {"--block", "32"}), values_for(1, 255));
  check_all(decimal_option(occ, "--carveout", 0, 100), values_for(0, 100));
  Option block = decimal_option(occ, "--block", 1, 1024, false, {"--regs", "32"});
  check_all(block, values_for(1, 1024));
  // Sizes: decimal bytes with an optional K or M; 9.0 allows 227 KiB per block (232448 B)
  // in all and 48 KiB of it static.
  for (const auto& [flag, most] :
       {std::pair<std::string, std::int64_t>{"--smem", 232448}, {"--static-smem", 49152}}) {
    Option size = decimal_option(occ, flag, 0, most);
    size.valid = [most = most](const std::string& s) {
      static const std::regex form("(-?[0-9]*)(K|KB|KiB|M|MB|MiB|B)?", std::regex::icase);
      std::smatch m;
      std::int64_t v = 0;
      if (!std::regex_match(s, m, form) || !decimal(m[1], &v) || v < 0) return false;
      const std::string unit = m[2];
      const std::int64_t mult = unit.empty() || unit == "B" || unit == "b" ? 1
                                : std::toupper(unit[0]) == 'K'             ? 1024
                                                                           : 1 << 20;
      return v <= most / mult;
    };
    std::vector<std::string> sizes = values_for(0, most);
    for (const char* s : {"227K", "228K", "48kb", "49KiB", "1M", "K", "-1K", "9999999999999999999K",
                          "010K", "1.5K", "48KK"})
      sizes.push_back(s);
    check_all(size, sizes);
  }
  Option cc;
  cc.label = "occupancy --cc";
  cc.args = [](const std::string& v) { return Args{"occupancy", "--cc", v}; };
  cc.valid = [](const std::string& s) { return s == "9.0" || s == "sm_90a" || s == "8.6"; };
  cc.mentions = "--cc";
  check_all(cc, {"9.0", "sm_90a", "8.6", "", "9", "09.0", "sm_090", "9.00", "-9.0",
                 "sm_9223372036854775807", "99999999999999999999.0", "9.0x", "1e309", "9.0\n"});
}

TEST(CliNumbers, GpuCommandOptions) {
  // GEMM extents: each 1..2^31-1 (the other two 1, so no matrix grows past 2^31-1); --n
  // and --k share --m's reader, so they get the edges only.
  for (const std::string flag : {"--m", "--n", "--k"}) {
    Args rest;
    for (const std::string other : {"--m", "--n", "--k"})
      if (other != flag) rest.insert(rest.end(), {other, "1"});
    const Option gemm = decimal_option({"bench", "gemm"}, flag, 1, kIntMax, true, rest);
    if (flag == "--m")
      check_all(gemm, values_for(1, kIntMax));
    else
      check_all(gemm, {"", "0", "1", "010", "2147483647", "2147483648", "-9223372036854775808"});
  }
  // Shapes (registry::parse_shape): decimal extents, the product at most 4e9 elements.
  Option reduction = decimal_option({"bench", "reduction"}, "--size", 1, 4'000'000'000, true);
  reduction.mentions = "reduction shape";
  check_all(reduction, values_for(1, 4'000'000'000));
  Option transpose = decimal_option({"bench", "transpose"}, "--size", 1, kIntMax, true);
  transpose.args = [](const std::string& v) {
    return Args{"bench", "transpose", "--size", v + "x1"};
  };
  transpose.mentions = "transpose shape";
  check_all(transpose, values_for(1, kIntMax));
  check_all(transpose, {"65536x65536", "4000000000x", "1x1x1", "9223372036854775807x2"});
  // Every family's own shape forms, with a newline or an overflow inside: still one line.
  for (const auto& [family, shapes] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"softmax", {"8x65536\n", "010x5", "9223372036854775807x9223372036854775807"}},
           {"elementwise", {"axpy:1\n2", "axpy:010", "copy:9223372036854775808"}},
           {"histogram", {"u8-uniform:5\n", "u8-uniform:99999999999999999999"}},
           {"stencil", {"5x5:5\n", "05x5:5", "5x5:05"}},
           {"gemm", {"4x4x4:1:2\n", "4x4x04", "4x4x4:1e309:0"}}}) {
    Option shape;
    shape.label = "bench " + family + " --size";
    shape.args = [family = family](const std::string& v) {
      return Args{"bench", family, "--size", v};
    };
    shape.valid = [](const std::string&) { return false; };
    shape.mentions = family + "[a-z ]* shape";
    shape.gpu = true;
    check_all(shape, shapes);
  }
  // profile parses the same shapes before the GPU; large valid shapes would be predicted
  // in full, so only small ones are valid here.
  Option profile = transpose;
  profile.label = "profile transpose --size";
  profile.mentions = "transpose shape|--size";
  profile.args = [](const std::string& v) { return Args{"profile", "transpose", "--size", v}; };
  profile.valid = [](const std::string& s) { return s == "33x65" || s == "1x1"; };
  check_all(profile, {"33x65", "1x1", "0x5", "-1x5", "033x65", "33x65x1", "", "x", "33x",
                      "9223372036854775807x9223372036854775807", "1e309x1", "33 x65"});
}

namespace {

// The oracle's reading of a real (alpha, beta): a canonical decimal integer part, an
// optional fraction and exponent, finite as a float. Written independently of the CLI.
bool real_in_float(const std::string& s) {
  static const std::regex form("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][-+]?[0-9]+)?");
  if (!std::regex_match(s, form)) return false;
  const long double v = std::strtold(s.c_str(), nullptr);
  return std::fabs(v) <= std::numeric_limits<float>::max();
}

// One number slot of a family's shape: the shape around it and the values it takes.
struct Slot {
  std::string family, before, after;
  std::int64_t lo, hi;
};

}  // namespace

// Every number inside every family's shape, for bench and profile alike: the extremes,
// malformed texts and random values in each slot. bench needs a GPU for a valid shape (exit
// 3 without one); profile is only given bad shapes (a large valid one is predicted in full).
TEST(CliNumbers, EveryFamilyShapeSlot) {
  const std::int64_t k4e9 = 4'000'000'000;
  const std::vector<Slot> slots = {
      {"reduction", "", "", 1, k4e9},
      {"transpose", "", "x3", 1, k4e9 / 3},  // the product's bound, below 2^31-1
      {"softmax", "", "x3", 1, k4e9 / 3},
      {"elementwise", "axpy:", "", 1, k4e9},
      {"histogram", "u8-uniform:", "", 1, 0xFFFFFFFFLL},
      {"stencil", "", "x5:5", 1, 800'000'000},  // 5 columns: at most 4e9 elements
      {"stencil", "5x", ":3", 1, 800'000'000},
      {"gemm", "1x1x", "", 1, kIntMax}};
  for (const Slot& slot : slots) {
    Option bench;
    bench.label = "bench " + slot.family + " --size " + slot.before + "N" + slot.after;
    bench.args = [slot](const std::string& v) {
      return Args{"bench", slot.family, "--size", slot.before + v + slot.after};
    };
    bench.valid = in_range(slot.lo, slot.hi);
    bench.gpu = true;
    bench.mentions = slot.family + "[a-z ]* shape";
    const std::vector<std::string> values = values_for(slot.lo, slot.hi);
    check_all(bench, values);
    Option profile = bench;
    profile.label = "profile " + slot.family + " --size " + slot.before + "N" + slot.after;
    profile.args = [slot](const std::string& v) {
      return Args{"profile", slot.family, "--size", slot.before + v + slot.after};
    };
    profile.mentions += "|--size";
    std::vector<std::string> bad;
    for (const std::string& v : values)
      if (!bench.valid(v)) bad.push_back(v);
    check_all(profile, bad);
  }
}

// GEMM's alpha and beta ("MxNxK:alpha:beta"): finite decimal reals, no spaces, hex or
// "inf"; each slot driven with reals, integers, malformed texts and the float's edges.
TEST(CliNumbers, GemmScalars) {
  std::vector<std::string> reals = {"1",         "-1",    "0",    "0.5",    "-2.25",
                                    "1e3",       "1E-3",  "2e+2", "3.4e38", "3.5e38",
                                    "-3.5e38",   "1e309", " 1",   "1 ",     "\t1",
                                    "+1",        "0x1p3", "inf",  "-inf",   "nan",
                                    "1.",        ".5",    "01",   "00.5",   "1e",
                                    "1e+",       "1.5.2", "1,5",  "--1",    "1e99999999999",
                                    "0.0000001", "-0",    "5\n"};
  reals.insert(reals.end(), kMalformed.begin(), kMalformed.end());
  for (int i = 0; i < 6; ++i) {
    const double x = std::uniform_real_distribution<double>(-1e6, 1e6)(rng());
    reals.push_back(std::to_string(x));                                   // "-123.456789"
    reals.push_back(std::to_string(static_cast<std::int64_t>(rng()())));  // any int64
  }
  for (const bool alpha : {true, false}) {
    Option o;
    o.label = std::string("bench gemm --size 4x4x4:") + (alpha ? "ALPHA:0" : "1:BETA");
    o.args = [alpha](const std::string& v) {
      return Args{"bench", "gemm", "--size", alpha ? "4x4x4:" + v + ":0" : "4x4x4:1:" + v};
    };
    o.valid = real_in_float;
    o.gpu = true;
    o.mentions = "gemm shape";
    check_all(o, reals);
  }
}
