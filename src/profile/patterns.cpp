#include "memhier/profile/patterns.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace memhier::profile {
namespace {

using Offsets = std::array<std::uint64_t, model::kWarpSize>;

Pattern make(const std::string& set, const std::string& name, bool shared, int width,
             bool store, const Offsets& off, std::uint32_t mask = 0xffffffffu) {
  Pattern p;
  p.set = set;
  p.name = std::string(store ? "st " : "ld ") + std::to_string(width) + "B " + name;
  p.shared = shared;
  p.access.address = off;
  p.access.width_bytes = width;
  p.access.is_store = store;
  p.access.active_mask = mask;
  return p;
}

template <typename F>
Offsets per_lane(F f) {
  Offsets o{};
  for (int lane = 0; lane < model::kWarpSize; ++lane) o[lane] = static_cast<std::uint64_t>(f(lane));
  return o;
}

// A fixed pseudo-random permutation-free scatter (xorshift), reproducible everywhere.
std::uint64_t scatter(std::uint32_t lane, std::uint32_t seed, std::uint64_t range, int width) {
  std::uint32_t x = (lane + 1) * 0x9e3779b9u ^ seed;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return (x % (range / width)) * width;
}

// Patterns both spaces share: strides, neighbours sharing an address, broadcasts,
// sub-word arrays, partial warps.
void common_patterns(std::vector<Pattern>& out, const std::string& set, bool shared) {
  for (bool store : {false, true}) {
    for (int width : {4, 8, 16})
      for (int stride = 1; stride <= 33; ++stride)
        out.push_back(make(set, "stride " + std::to_string(stride), shared, width, store,
                           per_lane([&](int l) { return l * stride * width; })));
    for (int width : {1, 2})
      for (int stride : {1, 2, 3, 4, 8, 32})
        out.push_back(make(set, "stride " + std::to_string(stride), shared, width, store,
                           per_lane([&](int l) { return l * stride * width; })));
    // Neighbouring lanes on one element: f[lane/2], d[lane/2], v[lane/4], d[lane/4].
    out.push_back(make(set, "f[lane/2]", shared, 4, store, per_lane([](int l) { return l / 2 * 4; })));
    out.push_back(make(set, "d[lane/2]", shared, 8, store, per_lane([](int l) { return l / 2 * 8; })));
    out.push_back(make(set, "d[lane/4]", shared, 8, store, per_lane([](int l) { return l / 4 * 8; })));
    out.push_back(make(set, "v[lane/4]", shared, 16, store, per_lane([](int l) { return l / 4 * 16; })));
    out.push_back(make(set, "v[lane/2]", shared, 16, store, per_lane([](int l) { return l / 2 * 16; })));
    out.push_back(make(set, "v[(lane%8)*2]", shared, 16, store,
                       per_lane([](int l) { return (l % 8) * 2 * 16; })));
    // Every phase reading the same words: no merge across phases (the GEMM B fragments).
    out.push_back(make(set, "v[lane%8]", shared, 16, store, per_lane([](int l) { return l % 8 * 16; })));
    out.push_back(make(set, "v[lane%4]", shared, 16, store, per_lane([](int l) { return l % 4 * 16; })));
    out.push_back(make(set, "d[lane%16]", shared, 8, store, per_lane([](int l) { return l % 16 * 8; })));
    // Broadcasts: the whole warp on one element, and two halves on two.
    for (int width : {1, 4, 8, 16})
      out.push_back(make(set, "broadcast", shared, width, store, per_lane([](int) { return 0; })));
    out.push_back(make(set, "two addresses", shared, 4, store,
                       per_lane([](int l) { return (l / 16) * 4 * 32; })));
    // Partial warps: half the lanes, every other lane, one lane.
    out.push_back(make(set, "stride 1, lanes 0-15", shared, 4, store,
                       per_lane([](int l) { return l * 4; }), 0x0000ffffu));
    out.push_back(make(set, "stride 32, odd lanes", shared, 4, store,
                       per_lane([](int l) { return l * 32 * 4; }), 0xaaaaaaaau));
    out.push_back(make(set, "stride 1, lane 7 only", shared, 16, store,
                       per_lane([](int l) { return l * 16; }), 1u << 7));
    // Reversed and permuted lanes over consecutive elements.
    out.push_back(make(set, "reversed", shared, 4, store, per_lane([](int l) { return (31 - l) * 4; })));
    out.push_back(make(set, "lane^5", shared, 8, store, per_lane([](int l) { return (l ^ 5) * 8; })));
  }
}

}  // namespace

const std::vector<std::string>& pattern_sets() {
  static const std::vector<std::string> s = {"shared-stride", "global-stride"};
  return s;
}

std::vector<Pattern> patterns(const std::string& set) {
  std::vector<Pattern> out;
  const bool all = set == "all";
  if (all || set == "shared-stride") {
    common_patterns(out, "shared-stride", true);
    for (bool store : {false, true}) {
      // XOR swizzle of a 32x32 float tile, column access: conflict-free by design.
      out.push_back(make("shared-stride", "tile[lane][3^lane] swizzled column", true, 4, store,
                         per_lane([](int l) { return (l * 32 + (3 ^ l)) * 4; })));
      out.push_back(make("shared-stride", "scattered words in 8 KiB", true, 4, store,
                         per_lane([](int l) { return scatter(l, 11, 8192, 4); })));
      out.push_back(make("shared-stride", "scattered float4 in 8 KiB", true, 16, store,
                         per_lane([](int l) { return scatter(l, 12, 8192, 16); })));
    }
  }
  if (all || set == "global-stride") {
    common_patterns(out, "global-stride", false);
    for (bool store : {false, true}) {
      // Misaligned: a float array starting 4 bytes into a sector, float2 at 8, float4 at 16.
      out.push_back(make("global-stride", "stride 1 misaligned by 4 B", false, 4, store,
                         per_lane([](int l) { return 4 + l * 4; })));
      out.push_back(make("global-stride", "stride 1 misaligned by 8 B", false, 8, store,
                         per_lane([](int l) { return 8 + l * 8; })));
      out.push_back(make("global-stride", "stride 1 misaligned by 16 B", false, 16, store,
                         per_lane([](int l) { return 16 + l * 16; })));
      out.push_back(make("global-stride", "stride 1 misaligned by 64 B", false, 4, store,
                         per_lane([](int l) { return 64 + l * 4; })));
      // Scattered: random words over 1 MiB (about one sector each) and within 4 KiB.
      out.push_back(make("global-stride", "scattered words in 1 MiB", false, 4, store,
                         per_lane([](int l) { return scatter(l, 21, 1 << 20, 4); })));
      out.push_back(make("global-stride", "scattered words in 4 KiB", false, 4, store,
                         per_lane([](int l) { return scatter(l, 22, 4096, 4); })));
      out.push_back(make("global-stride", "scattered float4 in 1 MiB", false, 16, store,
                         per_lane([](int l) { return scatter(l, 23, 1 << 20, 16); })));
    }
  }
  if (out.empty())
    throw std::invalid_argument("unknown pattern set '" + set + "'; known: shared-stride, global-stride, all.");
  return out;
}

std::size_t pattern_extent(const std::vector<Pattern>& ps, bool shared) {
  std::uint64_t end = 0;
  for (const Pattern& p : ps)
    if (p.shared == shared)
      for (int l = 0; l < model::kWarpSize; ++l)
        end = std::max<std::uint64_t>(end, p.access.address[l] + p.access.width_bytes);
  return static_cast<std::size_t>(end);
}

model::AccessCounts predict(const Pattern& p) {
  model::AccessCounts c;
  if (p.shared)
    c.add_shared(p.access);
  else
    c.add_global(p.access);
  return c;
}

}  // namespace memhier::profile
