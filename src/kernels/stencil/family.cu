// The stencil ladder as a registry::Family: variants in rung order, shapes, and the Case that
// owns the inputs, the float64 reference and the verification at one "ROWSxCOLS:K" shape.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/families.hpp"
#include "kernels/stencil/index.cuh"
#include "kernels/stencil/stream.hpp"
#include "kernels/stencil/variants.hpp"
#include "kernels/tuning/record.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/random.hpp"
#include "memhier/core/verify.hpp"
#include "memhier/kernels/tuning_budget.hpp"
#include "memhier/kernels/stencil.hpp"
#include "memhier/kernels/stencil_tuning.hpp"

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

/// splitmix64: a deterministic stream for the filter taps.
std::uint64_t splitmix(std::uint64_t* state) {
  std::uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// The filter taps of a case or a tuning run: uniform in [-1, 1), signs mixed, so no output
/// is a plain mean.
std::vector<float> draw_filter(int k, std::uint32_t seed) {
  std::uint64_t state =
      0x57e9c11ull ^ (static_cast<std::uint64_t>(seed) << 20) ^ static_cast<std::uint64_t>(k);
  std::vector<float> w(static_cast<std::size_t>(k * k));
  for (float& x : w)
    x = static_cast<float>(static_cast<double>(splitmix(&state) >> 11) * 0x1.0p-53 * 2.0 - 1.0);
  return w;
}

/// Per element, |out - ref| <= (K^2 + 2) u sum |w x|: an fp32 sum of K^2 products, in any
/// order and with or without fma, errs by at most gamma_{K^2} times that scale (Higham).
double bound_factor(int k) {
  return (k * k + 2.0) * core::kFp32Unit;
}

/// The CPU float64 reference (tests of the device one) up to this many multiply-adds.
constexpr double kCpuReferenceMacs = 64.0e6;

/// The float64 reference at (r, c), the definition with clamp-to-edge, and its bound's
/// scale sum |w x|; host and device.
__host__ __device__ inline void reference_at(const float* in, int rows, int cols, const float* w,
                                             int k, long long r, long long c, double* value,
                                             double* scale) {
  const int radius = k / 2;
  double s = 0, a = 0;
  for (int i = 0; i < k; ++i) {
    long long ir = r + i - radius;
    ir = ir < 0 ? 0 : (ir >= rows ? rows - 1 : ir);
    for (int j = 0; j < k; ++j) {
      long long jc = c + j - radius;
      jc = jc < 0 ? 0 : (jc >= cols ? cols - 1 : jc);
      const double p = static_cast<double>(w[i * k + j]) *
                       static_cast<double>(in[static_cast<std::size_t>(ir) * cols + jc]);
      s += p;
      a += p < 0 ? -p : p;
    }
  }
  *value = s;
  *scale = a;
}

/// The float64 reference of every output, one per thread (grid-stride).
__global__ void reference_kernel(const float* __restrict__ in, int rows, int cols,
                                 const float* __restrict__ w, int k, double* __restrict__ ref,
                                 float* __restrict__ scale) {
  const std::size_t n = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  for (std::size_t o = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < n;
       o += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    double v = 0, a = 0;
    reference_at(in, rows, cols, w, k, static_cast<long long>(o / cols),
                 static_cast<long long>(o % cols), &v, &a);
    ref[o] = v;
    scale[o] = static_cast<float>(a);
  }
}

class StencilCase final : public registry::Case {
 public:
  StencilCase(const StencilShape& s, std::uint32_t seed)
      : s_(s),
        n_(static_cast<std::size_t>(s.rows) * static_cast<std::size_t>(s.cols)),
        in_(n_),
        out_(n_),
        ref_(n_),
        scale_(n_) {
    core::fill_random(in_.data(), n_, seed, -1.f, 1.f, nullptr);
    filter_ = draw_filter(s.k, seed);
    filter_dev_ = core::DeviceBuffer<float>(filter_.size());
    filter_dev_.upload(filter_);
    MEMHIER_CUDA(cudaDeviceSynchronize());
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

  std::vector<core::OutputSpec> outputs() override {
    if (!ref_ready_) {
      reference_kernel<<<1024, 256>>>(in_.data(), s_.rows, s_.cols, filter_dev_.data(), s_.k,
                                      ref_.data(), scale_.data());
      MEMHIER_CHECK_LAUNCH();
      MEMHIER_CUDA(cudaDeviceSynchronize());
      ref_ready_ = true;
    }
    return {{"out", out_.data(), n_, static_cast<std::size_t>(s_.cols), core::ElemType::f32,
             ref_.data(), scale_.data(), bound_factor(s_.k)}};
  }

  std::vector<core::HostReference> cpu_reference() override {
    if (static_cast<double>(n_) * s_.k * s_.k > kCpuReferenceMacs)
      throw std::invalid_argument("stencil " + shape() + ": too large for the CPU reference.");
    const std::vector<float> in = in_.download();
    core::HostReference h;
    h.ref.resize(n_);
    h.scale.resize(n_);
    for (int r = 0; r < s_.rows; ++r)
      for (int c = 0; c < s_.cols; ++c) {
        const std::size_t o = stencil::detail::element_index(r, c, s_.cols);
        reference_at(in.data(), s_.rows, s_.cols, filter_.data(), s_.k, r, c, &h.ref[o],
                     &h.scale[o]);
      }
    return {h};
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
  core::DeviceBuffer<double> ref_;   // float64 output, computed on the first outputs()
  core::DeviceBuffer<float> scale_;  // its bound's scale sum |w x| per element
  std::vector<float> filter_;
  core::DeviceBuffer<float> filter_dev_;  // the taps, for the reference kernel
  bool ref_ready_ = false;
};

/// A rung of the table (stencil_rungs.inc) as the bench registers it; rungs 1 and 2 (one
/// output per thread) with their address stream.
registry::Variant make_variant(Variant v, int rung, const std::string& technique,
                               registry::Claim claim, const void* symbol, int threads) {
  registry::Variant out = registry::make_variant(stencil::to_string(v), rung, technique,
                                                 std::move(claim), symbol, threads);
  if (v == Variant::naive_global || v == Variant::constant_filter)
    out.stream = [v](const std::string& shape, model::AccessSink& sink) {
      const StencilShape s = parse_stencil_shape(shape);
      stencil::detail::stream_per_output(s.rows, s.cols, s.k, v == Variant::naive_global, sink);
    };
  return out;
}

/// A configuration of the best rung (a MEMHIER_TUNED line): its block, its dynamic shared
/// memory at the shown K and, for a persistent grid, its cap on blocks per SM.
registry::Variant make_tuned(Variant v, int rung, const std::string& technique,
                             registry::Claim claim, const void* symbol, int shown_k) {
  stencil::tuning::Config c;
  stencil::detail::tuned_config(v, &c);
  registry::Variant out =
      registry::make_variant(stencil::to_string(v), rung, technique, std::move(claim), symbol,
                             c.threads(), c.smem_bytes(shown_k));
  if (c.stages > 1) out.max_blocks_per_sm = c.min_blocks;
  return out;
}

}  // namespace

registry::Family stencil_family() {
  namespace d = stencil::detail;
  constexpr int kShown = 5;  // resources (registers, shared memory) are reported for K = 5
  registry::Family f;
  f.name = "stencil";
  f.python_name = "stencil2d";
  // K = 5: 4 MiB in and out; 64 MiB each (8192^2 would quadruple the replay).
  f.comparison_shapes = {"1024x1024:5", "4096x4096:5"};
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
  int rung_no = 0, tuned_lines = 0;
  stencil::tuning::Config shown_best;  // best reports best_128x64's resources
  d::tuned_config(Variant::best_128x64, &shown_best);
  // The table's lines in order (a braced list evaluates its elements left to right): a
  // line's rung number is its place; a MEMHIER_SAME_RUNG line shares the one above it, and
  // the MEMHIER_TUNED lines share one rung.
  f.variants = {
#define MEMHIER_RUNG(name, launch, symbol, threads, technique, source, claim) \
  make_variant(Variant::name, ++rung_no, technique, {source, claim}, d::symbol(kShown), d::threads),
#define MEMHIER_SAME_RUNG(name, launch, symbol, threads, technique, source, claim) \
  make_variant(Variant::name, rung_no, technique, {source, claim}, d::symbol(kShown), d::threads),
#define MEMHIER_TUNED(name, warps, rows_per_thread, min_blocks, stages, fill, technique) \
  make_tuned(Variant::name, tuned_lines++ == 0 ? ++rung_no : rung_no, technique,   \
             {MEMHIER_STENCIL_VEC, MEMHIER_STENCIL_VEC_CLAIM}, d::name##_symbol(kShown), kShown),
#define MEMHIER_BEST(name, symbol, block_threads, technique, source, claim)                        \
  registry::make_variant(stencil::to_string(Variant::name), ++rung_no, technique, {source, claim}, \
                         d::symbol(kShown), shown_best.threads(), shown_best.smem_bytes(kShown)),
#include "memhier/kernels/stencil_rungs.inc"
  };
  // The configuration tuned for this card at the shape (dense, cudaMalloc'd bases).
  f.variants.back().runs = [](const std::string& shape) {
    const StencilShape s = parse_stencil_shape(shape);
    return d::cached_best(s.rows, s.cols, s.k);
  };
  f.tune = [](const std::string& shape, bool retune) {
    const StencilShape s = parse_stencil_shape(shape);
    const std::size_t n = static_cast<std::size_t>(s.rows) * static_cast<std::size_t>(s.cols);
    // in, out and the tuner's scratch output
    core::require_device_memory(12.0 * static_cast<double>(n) + 256.0, "stencil " + shape);
    core::DeviceBuffer<float> in(n), out(n);
    core::fill_random(in.data(), n, 1u, -1.f, 1.f, nullptr);
    const std::vector<float> w = draw_filter(s.k, 1u);
    MEMHIER_CUDA(cudaDeviceSynchronize());
    const memhier::tuning::Outcome o =
        d::tune_best({in.data(), out.data(), s.rows, s.cols, w.data(), s.k, nullptr}, retune);
    return memhier::tuning::tune_record(
        "stencil",
        std::to_string(s.rows) + "x" + std::to_string(s.cols) + ":" + std::to_string(s.k), o);
  };
  f.bench_shapes = {"8192x8192:5", "8192x8192:3", "8192x8192:7"};
  f.quick_shapes = {"4096x4096:5"};
  // Smaller than the filter, one past a tile, primes, non-square; the last three have
  // cols % 4 == 0, so the best_* variants take their 16-byte paths with partial tiles.
  f.test_shapes = {"1x1:3",   "1x7:5",     "7x1:7",     "2x2:7",    "33x33:5", "4099x1031:3",
                   "31x97:7", "1031x65:5", "130x260:5", "67x132:7", "64x128:3"};
  f.check_shape = [](const std::string& shape) { parse_stencil_shape(shape); };
  f.make_case = [](const std::string& shape,
                   std::uint32_t seed) -> std::unique_ptr<registry::Case> {
    const StencilShape s = parse_stencil_shape(shape);  // bad input answered before any CUDA call
    // in, out, the float64 reference and its scale
    core::require_device_memory(
        20.0 * static_cast<double>(s.rows) * static_cast<double>(s.cols) + 256.0,
        "stencil " + shape);
    return std::make_unique<StencilCase>(s, seed);
  };
  return f;
}

}  // namespace memhier::kernels
