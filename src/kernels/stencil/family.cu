// The stencil ladder as a registry::Family: variants in rung order, shapes, and the Case that
// owns the inputs, the float64 reference and the verification at one "ROWSxCOLS:K" shape.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/families.hpp"
#include "kernels/stencil/index.cuh"
#include "kernels/stencil/variants.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/random.hpp"
#include "memhier/core/verify.hpp"
#include "memhier/kernels/stencil.hpp"

namespace memhier::kernels {
namespace {

using stencil::Variant;

struct StencilShape {
  int rows = 0, cols = 0, k = 0;
};

/// "ROWSxCOLS:K" -> extents and filter size; std::invalid_argument (one sentence) otherwise.
StencilShape parse_stencil_shape(const std::string& shape) {
  const std::size_t colon = shape.find(':');
  if (colon == std::string::npos)
    throw std::invalid_argument("stencil shape '" + shape +
                                "' is not ROWSxCOLS:K with K the filter size (e.g. 8192x8192:5).");
  std::vector<std::int64_t> dims;
  try {
    dims = registry::parse_shape(shape.substr(0, colon), 2, "stencil");
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument("stencil shape '" + shape +
                                "' is not ROWSxCOLS:K with positive extents (at most 4e9 elements) "
                                "and K the filter size (e.g. 8192x8192:5).");
  }
  const std::string kpart = shape.substr(colon + 1);
  if (kpart != "3" && kpart != "5" && kpart != "7")
    throw std::invalid_argument("stencil shape '" + shape +
                                "' needs a filter size of 3, 5 or 7 after ':' (e.g. 8192x8192:5).");
  if (dims[0] > INT_MAX || dims[1] > INT_MAX)
    throw std::invalid_argument("stencil shape '" + shape + "' has an extent above " +
                                std::to_string(INT_MAX) + ".");
  return {static_cast<int>(dims[0]), static_cast<int>(dims[1]), kpart[0] - '0'};
}

/// splitmix64: a deterministic stream for the filter taps and the sampled points.
std::uint64_t splitmix(std::uint64_t* state) {
  std::uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// The float64 reference at (r, c): the definition, clamp-to-edge.
double reference_at(const std::vector<float>& in, int rows, int cols, const std::vector<float>& w,
                    int k, long long r, long long c) {
  const int radius = k / 2;
  double s = 0;
  for (int i = 0; i < k; ++i) {
    const long long ir = stencil::detail::clamp_coord(r + i - radius, rows);
    for (int j = 0; j < k; ++j) {
      const long long jc = stencil::detail::clamp_coord(c + j - radius, cols);
      s += static_cast<double>(w[static_cast<std::size_t>(i * k + j)]) *
           static_cast<double>(in[stencil::detail::element_index(ir, jc, cols)]);
    }
  }
  return s;
}

class StencilCase final : public registry::Case {
 public:
  StencilCase(const StencilShape& s, std::uint32_t seed)
      : s_(s),
        n_(static_cast<std::size_t>(s.rows) * static_cast<std::size_t>(s.cols)),
        in_(n_),
        out_(n_) {
    core::fill_random(in_.data(), n_, seed, -1.f, 1.f, nullptr);
    std::uint64_t state =
        0x57e9c11ull ^ (static_cast<std::uint64_t>(seed) << 20) ^ static_cast<std::uint64_t>(s.k);
    filter_.resize(static_cast<std::size_t>(s.k * s.k));
    for (float& w : filter_)  // uniform in [-1, 1): signs mixed, so no output is a plain mean
      w = static_cast<float>(static_cast<double>(splitmix(&state) >> 11) * 0x1.0p-53 * 2.0 - 1.0);

    const std::vector<float> in = in_.download();  // synchronizes with the fill
    // Full reference while it costs under ~64M multiply-adds, else a deterministic sample.
    full_ = static_cast<double>(n_) * s.k * s.k <= 64.0e6;
    if (full_) {
      ref_.resize(n_);
      for (int r = 0; r < s.rows; ++r)
        for (int c = 0; c < s.cols; ++c)
          ref_[stencil::detail::element_index(r, c, s.cols)] =
              reference_at(in, s.rows, s.cols, filter_, s.k, r, c);
      return;
    }
    // Whole rows and columns at all four borders (so all four corners), at tile edges and in
    // the middle, plus random points.
    std::set<long long> rows_set, cols_set;
    for (long long r : {0LL, 1LL, 2LL, 3LL, 31LL, 32LL, 63LL, 64LL, 65LL, s.rows / 2LL,
                        s.rows - 4LL, s.rows - 3LL, s.rows - 2LL, s.rows - 1LL})
      if (r >= 0 && r < s.rows) rows_set.insert(r);
    for (int e = 1; e < 8; ++e) rows_set.insert(static_cast<long long>(s.rows) * e / 8);
    for (long long c : {0LL, 1LL, 2LL, 3LL, 127LL, 128LL, 129LL, s.cols / 2LL, s.cols - 4LL,
                        s.cols - 3LL, s.cols - 2LL, s.cols - 1LL})
      if (c >= 0 && c < s.cols) cols_set.insert(c);
    auto add = [&](long long r, long long c) {
      idx_.push_back(stencil::detail::element_index(r, c, s.cols));
      ref_.push_back(reference_at(in, s.rows, s.cols, filter_, s.k, r, c));
    };
    for (long long r : rows_set)
      for (long long c = 0; c < s.cols; ++c) add(r, c);
    for (long long c : cols_set)
      for (long long r = 0; r < s.rows; ++r) add(r, c);
    for (int p = 0; p < (1 << 15); ++p) {
      const std::uint64_t x = splitmix(&state);
      add(static_cast<long long>((x >> 32) % static_cast<std::uint64_t>(s.rows)),
          static_cast<long long>((x & 0xffffffffull) % static_cast<std::uint64_t>(s.cols)));
    }
  }

  std::string shape() const override {
    return std::to_string(s_.rows) + "x" + std::to_string(s_.cols) + ":" + std::to_string(s_.k);
  }

  registry::Work work() const override {
    const double elems = static_cast<double>(n_);
    return {2.0 * elems * sizeof(float), 2.0 * s_.k * s_.k * elems};
  }

  void run(const std::string& variant, cudaStream_t stream) override {
    Variant v{};
    if (!stencil::variant_from_string(variant, &v))
      throw std::invalid_argument("unknown stencil variant '" + variant + "'.");
    stencil::stencil2d(v, in_.data(), out_.data(), s_.rows, s_.cols, filter_.data(), s_.k, stream);
  }

  void poison(cudaStream_t stream) override { out_.poison(stream); }

  double error() override {
    const std::vector<float> out = out_.download();
    // Every element must be written (the NaN poison gone), sampled or not.
    for (float x : out)
      if (!std::isfinite(x)) return std::numeric_limits<double>::quiet_NaN();
    if (full_) return core::rel_l2_error(out, ref_);
    std::vector<double> out_at(idx_.size());
    for (std::size_t i = 0; i < idx_.size(); ++i) out_at[i] = static_cast<double>(out[idx_[i]]);
    return core::rel_l2_error_sampled(out_at, ref_);
  }

  // fp32 sums of at most 49 products of values in [-1, 1): rounding leaves a relative L2
  // error near 1e-7; one wrong tap, row or border clamp costs far more than 1e-5.
  double tolerance() const override { return 1e-5; }

  // No vendor stencil (cuDNN/NPP are not dependencies): the memcpy ceiling is the bar.
  std::string baseline_name() const override { return {}; }

 private:
  StencilShape s_;
  std::size_t n_;
  core::DeviceBuffer<float> in_, out_;
  std::vector<float> filter_;
  bool full_ = true;
  std::vector<double> ref_;       // full: every element; sampled: at idx_
  std::vector<std::size_t> idx_;  // sampled element indices
};

/// A rung of the table (stencil_rungs.inc) as the bench registers it.
registry::Variant make_variant(Variant v, int rung, const std::string& technique,
                               registry::Claim claim, const void* symbol, int threads) {
  return registry::make_variant(stencil::to_string(v), rung, technique, std::move(claim), symbol,
                                threads);
}

}  // namespace

registry::Family stencil_family() {
  namespace d = stencil::detail;
  constexpr int kShown = 5;  // resources (registers, shared memory) are reported for K = 5
  registry::Family f;
  f.name = "stencil";
  f.title = "2D stencil (KxK convolution, clamp-to-edge), fp32";
  f.story =
      "'Global, Shared, and Register Memory' places a stencil's filter in constant memory, "
      "where a warp that reads one address gets it broadcast (~40 cycles, 'essentially free' "
      "for filter taps; its Q5: ~32x fewer reads than global); 'GPU Memory Hierarchy' puts "
      "its input in a shared-memory tile with a halo so that overlapping neighbourhoods are "
      "not re-read from global memory (§Common Shared Memory Patterns). Register tiling, "
      "several outputs per thread, is the step beyond ('Shared Memory and Bank Conflicts'), "
      "and float4 accesses and cp.async trim what remains ('GPU Memory Hierarchy'). Each "
      "output needs K^2 taps but the problem only has to read its input once and write its "
      "output once, so a good stencil is bound by memory, not arithmetic: there is no vendor "
      "stencil to compare with (cuDNN and NPP are not dependencies), and cudaMemcpy "
      "device-to-device moving the same bytes is the bar; memhier's goal is best >= 0.85x memcpy "
      "at "
      "8192x8192 with K = 5. Shapes are ROWSxCOLS:K.";
  int rung_no = 0;
  // The table's lines in order (a braced list evaluates its elements left to right): a
  // line's rung number is its place; a MEMHIER_SAME_RUNG line shares the one above it.
  f.variants = {
#define MEMHIER_RUNG(name, launch, symbol, threads, technique, source, claim) \
  make_variant(Variant::name, ++rung_no, technique, {source, claim}, d::symbol(kShown), d::threads),
#define MEMHIER_SAME_RUNG(name, launch, symbol, threads, technique, source, claim) \
  make_variant(Variant::name, rung_no, technique, {source, claim}, d::symbol(kShown), d::threads),
#define MEMHIER_BEST(name, symbol, threads, technique, source, claim) \
  make_variant(Variant::name, ++rung_no, technique, {source, claim}, d::symbol(kShown), d::threads),
#include "memhier/kernels/stencil_rungs.inc"
  };
  f.variants.back().runs = [](const std::string& shape) {
    return std::string(stencil::to_string(stencil::best_variant_for(parse_stencil_shape(shape).k)));
  };
  f.bench_shapes = {"8192x8192:5", "8192x8192:3", "8192x8192:7"};
  f.quick_shapes = {"4096x4096:5"};
  // Smaller than the filter, one past a tile, primes, non-square; the last three have
  // cols % 4 == 0, so the best_* variants take their 16-byte paths with partial tiles.
  f.test_shapes = {"1x1:3",   "1x7:5",     "7x1:7",     "2x2:7",    "33x33:5", "4099x1031:3",
                   "31x97:7", "1031x65:5", "130x260:5", "67x132:7", "64x128:3"};
  f.make_case = [](const std::string& shape,
                   std::uint32_t seed) -> std::unique_ptr<registry::Case> {
    const StencilShape s = parse_stencil_shape(shape);  // bad input answered before any CUDA call
    return std::make_unique<StencilCase>(s, seed);
  };
  return f;
}

}  // namespace memhier::kernels
