// The softmax ladder's registration: its variants in rung order, its shapes, and the Case
// that owns the inputs, the float64 reference and the verification at one shape.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/families.hpp"
#include "kernels/softmax/stream.hpp"
#include "memhier/claims/ladders.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/random.hpp"
#include "memhier/core/verify.hpp"
#include "memhier/kernels/softmax.hpp"
#include "variants.hpp"

namespace memhier::kernels {
namespace {

constexpr int kMaxBenchCols = 1 << 24;  // a row's float64 reference is one block's work
constexpr float kInputLo = -4.f, kInputHi = 4.f;
/// The CPU float64 reference (tests of the device one) up to this many elements.
constexpr std::size_t kCpuReferenceLimit = std::size_t(1) << 24;

/// Per element, |y - y_ref| <= factor x y_ref. The element's own error: the exponent's
/// argument x - m rounded (|x - m| <= 8: 8u after exp), exp within 2 ulp (4u), the scaling
/// a rounding or two: under 32u. The row sum, a common factor: cols positive terms added in
/// fp32 in some order, whose relative error stays below 8 sqrt(cols) u (the probabilistic
/// bound, as for GEMM), online rescaling included.
double bound_factor(int cols) {
  return (32.0 + 8.0 * std::sqrt(static_cast<double>(cols))) * core::kFp32Unit;
}

constexpr int kRefThreads = 256;

/// The block-wide reduction of one double (sum or max) through shared memory.
template <bool Max>
__device__ double block_reduce(double v, double* sh) {
  sh[threadIdx.x] = v;
  __syncthreads();
  for (int half = kRefThreads / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half)
      sh[threadIdx.x] = Max ? fmax(sh[threadIdx.x], sh[threadIdx.x + half])
                            : sh[threadIdx.x] + sh[threadIdx.x + half];
    __syncthreads();
  }
  const double r = sh[0];
  __syncthreads();
  return r;
}

/// The float64 softmax of each row, a block per row: the max, the sum of exp(x - max),
/// then each exp(x - max) / sum.
__global__ void __launch_bounds__(kRefThreads)
    reference_kernel(const float* __restrict__ x, int rows, int cols, double* __restrict__ ref) {
  __shared__ double sh[kRefThreads];
  for (int r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* xr = x + static_cast<std::size_t>(r) * cols;
    double* yr = ref + static_cast<std::size_t>(r) * cols;
    double m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += kRefThreads) m = fmax(m, static_cast<double>(xr[c]));
    m = block_reduce<true>(m, sh);
    double s = 0;
    for (int c = threadIdx.x; c < cols; c += kRefThreads) s += exp(static_cast<double>(xr[c]) - m);
    s = block_reduce<false>(s, sh);
    for (int c = threadIdx.x; c < cols; c += kRefThreads)
      yr[c] = exp(static_cast<double>(xr[c]) - m) / s;
  }
}

class SoftmaxCase : public registry::Case {
 public:
  SoftmaxCase(int rows, int cols, std::uint32_t seed)
      : rows_(rows),
        cols_(cols),
        n_(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols)),
        in_(n_),
        out_(n_),
        ref_(n_) {
    core::fill_random(in_.data(), n_, seed, kInputLo, kInputHi);
    MEMHIER_CUDA(cudaDeviceSynchronize());
  }

  std::string shape() const override { return std::to_string(rows_) + "x" + std::to_string(cols_); }

  registry::Work work() const override {
    registry::Work w;
    w.bytes = 2.0 * static_cast<double>(n_) * sizeof(float);  // x read once, y written once
    return w;
  }

  void run(const std::string& variant, cudaStream_t stream) override {
    const std::optional<softmax::Variant> v = softmax::variant_from_string(variant);
    if (!v) throw std::invalid_argument("unknown softmax variant '" + variant + "'.");
    softmax::softmax(*v, in_.data(), out_.data(), rows_, cols_, stream);
  }

  void poison(cudaStream_t stream) override { out_.poison(stream); }

  std::vector<core::OutputSpec> outputs() override {
    if (!ref_ready_) {
      reference_kernel<<<std::min(rows_, 8192), kRefThreads>>>(in_.data(), rows_, cols_,
                                                               ref_.data());
      MEMHIER_CHECK_LAUNCH();
      MEMHIER_CUDA(cudaDeviceSynchronize());
      ref_ready_ = true;
    }
    return {{"y", out_.data(), n_, static_cast<std::size_t>(cols_), core::ElemType::f32,
             ref_.data(), nullptr, bound_factor(cols_)}};
  }

  std::vector<core::HostReference> cpu_reference() override {
    if (n_ > kCpuReferenceLimit)
      throw std::invalid_argument("softmax " + shape() + ": too large for the CPU reference.");
    const std::vector<float> x = in_.download();
    core::HostReference h;
    h.ref.resize(n_);
    for (std::size_t r = 0; r < static_cast<std::size_t>(rows_); ++r) {
      const float* xr = x.data() + r * cols_;
      double* yr = h.ref.data() + r * cols_;
      double m = -INFINITY;
      for (int c = 0; c < cols_; ++c) m = std::max(m, static_cast<double>(xr[c]));
      double s = 0;
      for (int c = 0; c < cols_; ++c) s += (yr[c] = std::exp(static_cast<double>(xr[c]) - m));
      for (int c = 0; c < cols_; ++c) yr[c] /= s;
    }
    return {h};
  }

  // Relative L2 over the whole output: expf within 2 ulp plus the row sum's rounding
  // (~1e-6 at 65537 columns); 1e-5 leaves ten times that, while a wrong max or a missed
  // chunk gives 1e-2 or more.
  double tolerance() const override { return 1e-5; }

 private:
  int rows_, cols_;
  std::size_t n_;
  core::DeviceBuffer<float> in_, out_;
  core::DeviceBuffer<double> ref_;  // float64 softmax, computed on the first outputs()
  bool ref_ready_ = false;
};

// rows x cols of a softmax shape, checked; no GPU touched.
std::vector<std::int64_t> parse_softmax_shape(const std::string& shape) {
  const std::vector<std::int64_t> d = registry::parse_shape(shape, 2, "softmax");
  if (d[0] > INT_MAX || d[1] > INT_MAX)
    throw std::invalid_argument("softmax shape '" + shape + "' has an extent above 2147483647.");
  if (d[1] > kMaxBenchCols)
    throw std::invalid_argument("softmax shape '" + shape + "' has more than " +
                                std::to_string(kMaxBenchCols) + " columns.");
  return d;
}

std::unique_ptr<registry::Case> make_softmax_case(const std::string& shape, std::uint32_t seed) {
  const std::vector<std::int64_t> d = parse_softmax_shape(shape);
  core::require_device_memory(16.0 * static_cast<double>(d[0]) * static_cast<double>(d[1]),
                              "softmax " + shape);  // in, out and the float64 reference
  return std::make_unique<SoftmaxCase>(static_cast<int>(d[0]), static_cast<int>(d[1]), seed);
}

/// A rung of the table (softmax_rungs.inc) as the bench registers it; rungs 6 and 7 with
/// their address stream.
registry::Variant rung(softmax::Variant v, int rung_no, std::string technique,
                       registry::Claim claim, const void* symbol, int block_threads) {
  // The cached kernels size their dynamic shared memory per shape: 0 here.
  registry::Variant out =
      registry::make_variant(softmax::to_string(v), rung_no, std::move(technique), std::move(claim),
                             symbol, block_threads);
  if (v == softmax::Variant::warp_per_row || v == softmax::Variant::online)
    out.stream = [v](const std::string& shape, model::AccessSink& sink) {
      const std::vector<std::int64_t> d = parse_softmax_shape(shape);
      const int rows = static_cast<int>(d[0]), cols = static_cast<int>(d[1]);
      if (v == softmax::Variant::online) return softmax::detail::stream_online(rows, cols, sink);
      if (cols <= softmax::detail::kWarpPerRowMaxCols)
        return softmax::detail::stream_warp_per_row(rows, cols, sink);
      sink.launch(128, 0);  // longer rows: the rung declines the shape, no kernel runs
    };
  return out;
}

}  // namespace

registry::Family softmax_family() {
  using softmax::Variant;
  namespace d = softmax::detail;
  registry::Family f;
  f.name = "softmax";
  f.python_name = "softmax";
  // 4 MiB in and out, and 128 MiB each (rows of 1024: warp_per_row runs both).
  f.comparison_shapes = {"1024x1024", "32768x1024"};
  f.title = "Row softmax, fp32";
  f.story =
      "'GPU Memory Hierarchy' takes a 1024x4096 softmax on an A100 from 380 GB/s (one thread "
      "finds the max, atomics add the sum) through block-wide reductions, warp shuffles, "
      "float4 and __launch_bounds__ to 1,340 GB/s, 66% of peak, and calls that close to the "
      "limit of a three-pass algorithm that reads the rows twice and writes them twice. The "
      "rungs after it remove passes: the online softmax finds the max and the sum in one "
      "read; then, as OneFlow dispatches by shape, each element is read once and written "
      "once, held in a warp's registers (rows up to 1024), a block's shared memory, or the "
      "registers of a Hopper thread-block cluster whose blocks exchange partials through "
      "distributed shared memory (few long rows, split to fill the SMs), with two passes "
      "through L2 for rows too long to cache. cuDNN's softmax would be the vendor baseline; "
      "it is optional in the toolkit and absent here, so the bar is the cudaMemcpy ceiling: "
      "one read and one write per element, the same bytes a copy moves.";
  int rung_no = 0;
  // The table's lines in order (a braced list evaluates its elements left to right): a
  // line's rung number is its place.
  f.variants = {
#define MEMHIER_RUNG(name, launch, symbol, threads, technique, source, claim) \
  rung(Variant::name, ++rung_no, technique, {source, claim}, d::symbol(), threads),
#define MEMHIER_BEST(name, technique, source, claim) \
  rung(Variant::name, ++rung_no, technique, {source, claim}, nullptr, 0),
#include "memhier/kernels/softmax_rungs.inc"
  };
  f.variants.back().runs = [](const std::string& shape) {
    const std::vector<std::int64_t> d = registry::parse_shape(shape, 2, "softmax");
    return std::string(
        softmax::to_string(softmax::best_variant(static_cast<int>(d[0]), static_cast<int>(d[1]))));
  };
  f.bench_shapes = {"1024x4096", "8192x8192", "32768x1024", "4096x32768", "8x65536", "65536x128"};
  f.quick_shapes = {"1024x4096", "65536x128", "8x65536"};
  f.test_shapes = {"1x1",    "1x7",     "7x1",   "3x33",   "5x1025",   "2x4099", "1x65537",
                   "17x129", "64x1023", "33x96", "9x1024", "130x2048", "3x4100", "4x65536"};
  f.make_case = make_softmax_case;
  f.check_shape = [](const std::string& shape) { parse_softmax_shape(shape); };
  f.claims.checks = claims::softmax_checks;
  return f;
}

}  // namespace memhier::kernels
