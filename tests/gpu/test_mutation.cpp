// The mutation test: at every benchmark shape of every family, `best` runs and passes, then
// faults are planted in its output and verification must fail, every time:
//   (a) a tile overwritten with plausible wrong values (the same output elsewhere: a 128x128
//       tile of a matrix, a softmax row, a 1-D block, a histogram bin; the one sum without a
//       1024-input block);
//   (b) one element off by k ulp, k the fewest its bound must catch, and k no more than the
//       family states (so the per-element bound is tight); k - 1 ulp must still pass;
//   (c) two rows (two blocks, two bins) swapped.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gpu_test_util.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/verify.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/registry/registry.hpp"

namespace memhier::testing {
namespace {

/// The n-th 'x'-separated number of a shape ("4096x4096x4096", "8192x8192:5", "axpy:N"),
/// after any "problem:" prefix and before any ":suffix".
double extent(const std::string& shape, int index) {
  std::string dims = shape;
  const std::size_t colon = dims.find(':');
  if (colon != std::string::npos && !std::isdigit(static_cast<unsigned char>(dims[0])))
    dims = dims.substr(colon + 1);
  dims = dims.substr(0, dims.find(':'));
  std::size_t pos = 0;
  for (int i = 0; i < index; ++i) pos = dims.find('x', pos) + 1;
  return std::stod(dims.substr(pos));
}

/// The most ulps one element may be off at `shape` and still pass: what each family's bound
/// allows at the largest |output| of a window (1 where the output is exact).
double stated_max_ulps(const std::string& family, const std::string& shape) {
  if (family == "gemm") {
    // 8 sqrt(K + 2) u sum|a b|: sum|a b| ~ K/4 against |c| ~ 1.2 sqrt(K) at a window's
    // largest, so about 1.7 K ulps of c.
    return 2 * extent(shape, 2);
  }
  if (family == "gemm_bf16") {
    // (ceil(K/16) 2^-22) sum|a b| = (K/4) u x K/4 against |c| ~ 1.2 sqrt(K): about
    // K^1.5 / 19 ulps of c (the bound allows a drift of truncated tensor-core sums).
    const double k = extent(shape, 2);
    return std::ceil(k * std::sqrt(k) / 16);
  }
  if (family == "stencil") {
    // (T + 2) u sum|w x| with T = K^2 taps: sum|w x| ~ T/4 against |out| ~ 1.2 sqrt(T/9).
    const double taps = std::pow(extent(shape.substr(shape.find(':') + 1), 0), 2);
    return std::ceil((taps + 2) * std::sqrt(taps) / 2);
  }
  if (family == "softmax") return std::ceil(33 + 8 * std::sqrt(extent(shape, 1)));
  if (family == "attention") {
    // About 3 2^-9 sum_j p |v| / l (~0.5 x 3 2^-9) against a window's largest |O|, at least
    // twice O's spread 0.58 / sqrt(seq_k), whose bf16 ulp is >= 2^-8 |O| / 2: 1.3 sqrt(seq_k).
    return std::ceil(2 * std::sqrt(extent(shape, 4)) + 4);
  }
  if (family == "reduction") return std::ceil(std::log2(extent(shape, 0))) + 17;
  if (family == "elementwise") return shape.rfind("copy:", 0) == 0 ? 1 : 3;  // 3u (|a x| + |y|)
  return 1;  // transpose, histogram: exact
}

/// Bytes of one element of the output.
std::size_t elem_bytes(const core::OutputSpec& s) {
  return s.type == core::ElemType::bf16 ? 2 : 4;
}

/// One output's bytes on the device, saved once and put back after each fault.
class Snapshot {
 public:
  explicit Snapshot(const core::OutputSpec& s) : spec_(s), copy_(s.count * elem_bytes(s)) { copy(true); }
  void restore() { copy(false); }

 private:
  void copy(bool save) {
    if (save)
      MEMHIER_CUDA(cudaMemcpy(copy_.data(), spec_.data, copy_.size(), cudaMemcpyDeviceToDevice));
    else
      MEMHIER_CUDA(cudaMemcpy(spec_.data, copy_.data(), copy_.size(), cudaMemcpyDeviceToDevice));
  }
  core::OutputSpec spec_;
  core::DeviceBuffer<char> copy_;
};

char* at(const core::OutputSpec& s, std::size_t i) {
  return static_cast<char*>(s.data) + elem_bytes(s) * i;
}

template <typename T>
std::vector<T> read(const core::OutputSpec& s, std::size_t first, std::size_t count) {
  std::vector<T> v(count);
  MEMHIER_CUDA(cudaMemcpy(v.data(), at(s, first), count * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

template <typename T>
void write(const core::OutputSpec& s, std::size_t i, T value) {
  MEMHIER_CUDA(cudaMemcpy(at(s, i), &value, sizeof value, cudaMemcpyHostToDevice));
}

/// Elements [dst, dst + n) of the output overwritten by elements [src, src + n).
void copy_span(const core::OutputSpec& s, std::size_t dst, std::size_t src, std::size_t n) {
  MEMHIER_CUDA(
      cudaMemcpy(at(s, dst), at(s, src), elem_bytes(s) * n, cudaMemcpyDeviceToDevice));
}

/// Elements [a, a + n) and [b, b + n) exchanged.
void swap_spans(const core::OutputSpec& s, std::size_t a, std::size_t b, std::size_t n) {
  const std::size_t bytes = elem_bytes(s) * n;
  core::DeviceBuffer<char> tmp(bytes);
  MEMHIER_CUDA(cudaMemcpy(tmp.data(), at(s, a), bytes, cudaMemcpyDeviceToDevice));
  copy_span(s, a, b, n);
  MEMHIER_CUDA(cudaMemcpy(at(s, b), tmp.data(), bytes, cudaMemcpyDeviceToDevice));
}

/// Element i's float64 reference and its bound.
std::pair<double, double> reference_and_bound(const core::OutputSpec& s, std::size_t i) {
  double ref = 0;
  float scale = 0;
  MEMHIER_CUDA(cudaMemcpy(&ref, s.ref + i, sizeof ref, cudaMemcpyDeviceToHost));
  if (s.scale) MEMHIER_CUDA(cudaMemcpy(&scale, s.scale + i, sizeof scale, cudaMemcpyDeviceToHost));
  return {ref, s.factor * (s.scale ? static_cast<double>(scale) : std::fabs(ref))};
}

/// The largest and the smallest of a small unsigned output (histogram bins).
std::pair<std::size_t, std::size_t> max_min(const std::vector<std::uint32_t>& v) {
  return {static_cast<std::size_t>(std::max_element(v.begin(), v.end()) - v.begin()),
          static_cast<std::size_t>(std::min_element(v.begin(), v.end()) - v.begin())};
}

/// Fault (a); returns what it did.
std::string plant_tile(const std::string& family, const core::OutputSpec& s) {
  if (s.count == 1) {  // the sum: one 1024-input block of uniform [0, 1) values skipped
    write(s, 0, read<float>(s, 0, 1)[0] - 512.f);
    return "the sum less one 1024-input block (512)";
  }
  if (s.count <= 256) {  // bins: the largest takes the value of the smallest
    const std::vector<std::uint32_t> v = read<std::uint32_t>(s, 0, s.count);
    const auto [hi, lo] = max_min(v);
    write(s, hi, v[lo]);
    return "bin " + std::to_string(hi) + " given bin " + std::to_string(lo) + "'s count";
  }
  if (s.cols > 0) {
    const std::size_t rows = s.count / s.cols, r = rows / 2;
    if (family == "softmax") {  // a whole row from the next one: it sums to 1 as well
      copy_span(s, r * s.cols, ((r + 1) % rows) * s.cols, s.cols);
      return "row " + std::to_string(r) + " overwritten by the next";
    }
    const std::size_t t = 128, r0 = r / t * t, c0 = s.cols / 2 / t * t;
    const std::size_t h = std::min(t, rows - r0), w = std::min(t, s.cols - c0);
    const std::size_t src = r0 >= t ? r0 - t : r0 + t;  // the tile above (or below)
    const std::size_t pitch = elem_bytes(s) * s.cols;
    MEMHIER_CUDA(cudaMemcpy2D(at(s, r0 * s.cols + c0), pitch, at(s, src * s.cols + c0), pitch,
                              elem_bytes(s) * w, h, cudaMemcpyDeviceToDevice));
    return "the 128x128 tile at (" + std::to_string(r0) + ", " + std::to_string(c0) +
           ") overwritten by the one at row " + std::to_string(src);
  }
  const std::size_t b = std::min<std::size_t>(1024, s.count / 8);
  const std::size_t dst = s.count / 2 / b * b, src = s.count / 4 / b * b;
  copy_span(s, dst, src, b);
  return "elements [" + std::to_string(dst) + ", +" + std::to_string(b) + ") overwritten";
}

/// Fault (c); returns what it did, or "" where the output has one element.
std::string plant_swap(const core::OutputSpec& s) {
  if (s.count == 1) return "";
  if (s.count <= 256) {
    const auto [hi, lo] = max_min(read<std::uint32_t>(s, 0, s.count));
    swap_spans(s, hi, lo, 1);
    return "bins " + std::to_string(hi) + " and " + std::to_string(lo) + " swapped";
  }
  if (s.cols > 0) {
    const std::size_t r = s.count / s.cols / 2;
    swap_spans(s, r * s.cols, (r + 1) * s.cols, s.cols);
    return "rows " + std::to_string(r) + " and " + std::to_string(r + 1) + " swapped";
  }
  const std::size_t b = std::min<std::size_t>(1024, s.count / 8);
  swap_spans(s, s.count / 4 / b * b, s.count / 2 / b * b, b);
  return "two " + std::to_string(b) + "-element blocks swapped";
}

class Mutation : public ::testing::TestWithParam<std::string> {};

TEST_P(Mutation, EveryPlantedFaultIsCaughtAtTheBenchShapes) {
  MEMHIER_REQUIRE_GPU(dev);
  const registry::Family* f = registry::find_family(GetParam());
  ASSERT_NE(f, nullptr);
  ASSERT_FALSE(f->bench_shapes.empty());
  for (const std::string& shape : f->bench_shapes) {
    SCOPED_TRACE(f->name + " " + shape);
    std::unique_ptr<registry::Case> c = f->make_case(shape, 5);
    c->poison(nullptr);
    c->run("best", nullptr);
    const std::vector<core::OutputSpec> specs = c->outputs();
    const auto passes = [&] {
      const core::ElementCheck chk = c->verify();
      return chk.bad() == 0 && chk.rel_l2() <= c->tolerance();
    };
    ASSERT_TRUE(passes()) << "best is wrong before any fault: "
                          << core::describe_failure(c->verify(), specs);
    const core::OutputSpec& s = specs[0];
    Snapshot saved(s);
    const auto expect_caught = [&](const std::string& fault) {
      if (fault.empty()) return;
      const core::ElementCheck chk = c->verify();
      EXPECT_GT(chk.bad(), 0u) << "not caught: " << fault;
      EXPECT_FALSE(c->error() <= c->tolerance()) << "error() passes: " << fault;
      saved.restore();
    };
    expect_caught(plant_tile(f->name, s));
    expect_caught(plant_swap(s));

    // (b): the element of largest |value| in a window mid-output, moved away from its
    // reference one ulp at a time until its bound is exceeded.
    const std::size_t w = std::min<std::size_t>(4096, s.count);
    const std::size_t first = s.count / 2 - std::min(s.count / 2, w / 2);
    std::size_t i = first;
    double k = 0;
    // k - 1 ulp (within the bound) must pass; then k ulp stays planted.
    const auto plant = [&](auto last_passing, auto planted) {
      write(s, i, last_passing);
      EXPECT_EQ(c->verify().over, 0u) << k - 1 << " ulp at " << i << " failed; the bound allows it";
      write(s, i, planted);
    };
    if (s.type == core::ElemType::u32) {
      const std::vector<std::uint32_t> v = read<std::uint32_t>(s, first, w);
      i = first + static_cast<std::size_t>(std::max_element(v.begin(), v.end()) - v.begin());
      write(s, i, v[i - first] + 1u);  // exact: one count off
      k = 1;
    } else if (s.type == core::ElemType::bf16) {
      // bf16 bits: the value is the top half of a float; one ulp is one step of the bits.
      const std::vector<std::uint16_t> v = read<std::uint16_t>(s, first, w);
      const auto value = [](std::uint16_t bits) {
        const std::uint32_t u = static_cast<std::uint32_t>(bits) << 16;
        float x = 0;
        std::memcpy(&x, &u, sizeof x);
        return static_cast<double>(x);
      };
      for (std::size_t j = 0; j < w; ++j)
        if (std::fabs(value(v[j])) > std::fabs(value(v[i - first]))) i = first + j;
      const auto [ref, bound] = reference_and_bound(s, i);
      const std::uint16_t out = v[i - first];
      // Away from the reference: up in value is one more step of the magnitude when positive.
      const bool up = value(out) >= ref;
      const bool negative = (out & 0x8000u) != 0;
      std::uint16_t planted = out, last_passing = out;
      while (std::fabs(value(planted) - ref) <= bound && k < 1e5) {
        last_passing = planted;
        planted = static_cast<std::uint16_t>(up != negative ? planted + 1 : planted - 1);
        ++k;
      }
      plant(last_passing, planted);
    } else {
      const std::vector<float> v = read<float>(s, first, w);
      for (std::size_t j = 0; j < w; ++j)
        if (std::fabs(v[j]) > std::fabs(v[i - first])) i = first + j;
      const auto [ref, bound] = reference_and_bound(s, i);
      const float out = v[i - first];
      const float away = out >= ref ? INFINITY : -INFINITY;
      float planted = out, last_passing = out;
      while (std::fabs(static_cast<double>(planted) - ref) <= bound && k < 1e7)
        last_passing = planted, planted = std::nextafter(planted, away), ++k;
      plant(last_passing, planted);
    }
    EXPECT_LE(k, stated_max_ulps(f->name, shape)) << "the bound is looser than stated";
    const core::ElementCheck chk = c->verify();
    EXPECT_EQ(chk.over, 1u) << k << " ulp at element " << i << " not caught";
    EXPECT_EQ(chk.worst_index, i);
    EXPECT_EQ(chk.worst_output, 0u);
    std::printf("[ mutation ] %s %s: one element off by %.0f ulp caught (stated at most %.0f)\n",
                f->name.c_str(), shape.c_str(), k, stated_max_ulps(f->name, shape));
    saved.restore();
    EXPECT_TRUE(passes()) << "restoring the output did not restore a passing check";
  }
}

std::vector<std::string> family_names() {
  kernels::register_families();
  std::vector<std::string> names;
  for (const registry::Family& f : registry::families()) names.push_back(f.name);
  if (names.empty()) names.push_back("none");
  return names;
}

INSTANTIATE_TEST_SUITE_P(Families, Mutation, ::testing::ValuesIn(family_names()),
                         [](const auto& p) { return p.param; });

}  // namespace
}  // namespace memhier::testing
