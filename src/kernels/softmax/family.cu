// The softmax ladder's registration: its variants in rung order, its shapes, and the Case
// that owns the inputs, the float64 reference and the verification at one shape.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/families.hpp"
#include "memhier/claims/ladders.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/random.hpp"
#include "memhier/core/verify.hpp"
#include "memhier/kernels/softmax.hpp"
#include "variants.hpp"

namespace memhier::kernels {
namespace {

constexpr std::size_t kFullCheckElements = std::size_t(1) << 22;  // 4M: the whole output checked
constexpr std::size_t kSampleElements = std::size_t(1) << 22;  // larger: whole rows, ~4M elements
constexpr int kMaxBenchCols = 1 << 24;  // a sampled row is checked whole on the CPU
constexpr double kRowSumSlack = 1e-4;   // |sum of a row - 1| beyond this is wrong by far
constexpr float kInputLo = -4.f, kInputHi = 4.f;

/// Counts non-finite outputs and the largest |row sum - 1| over every row (a warp per row,
/// float64 sums): the whole output is checked even where the reference is sampled.
__global__ void output_check_kernel(const float* y, int rows, int cols, unsigned int* nonfinite,
                                    unsigned int* worst_bits) {
  const int lane = threadIdx.x & 31;
  const long long warps = static_cast<long long>(gridDim.x) * (blockDim.x / 32);
  for (long long r = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32; r < rows;
       r += warps) {
    const float* row = y + static_cast<std::size_t>(r) * static_cast<std::size_t>(cols);
    double s = 0;
    unsigned int bad = 0;
    for (int c = lane; c < cols; c += 32) {
      const float v = row[c];
      bad += isfinite(v) ? 0u : 1u;
      s += v;
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
      s += __shfl_xor_sync(0xffffffffu, s, o);
      bad += __shfl_xor_sync(0xffffffffu, bad, o);
    }
    if (lane == 0) {
      if (bad) atomicAdd(nonfinite, bad);
      const float dev = static_cast<float>(fabs(s - 1.0));
      if (isfinite(dev)) atomicMax(worst_bits, __float_as_uint(dev));  // >= 0: bits order as values
    }
  }
}

/// Rows checked against the reference: all of them for small shapes, else every
/// stride-th row from 0 plus the last row (whole rows: softmax couples a row's elements).
struct RowSample {
  int stride = 1;
  int count = 0;      ///< rows 0, stride, ..., (count - 1) * stride
  bool last = false;  ///< plus rows - 1
};

RowSample choose_rows(int rows, int cols) {
  RowSample s;
  const std::size_t n = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  if (n <= kFullCheckElements) {
    s.count = rows;
    return s;
  }
  const std::size_t want =
      std::max<std::size_t>(1, kSampleElements / static_cast<std::size_t>(cols));
  s.stride = static_cast<int>((static_cast<std::size_t>(rows) + want - 1) / want);
  s.count = (rows - 1) / s.stride + 1;
  s.last = (rows - 1) % s.stride != 0;
  return s;
}

/// Copies the sampled rows of a device matrix to the host, in sample order.
std::vector<float> download_rows(const float* d, int rows, int cols, const RowSample& s) {
  const std::size_t row_bytes = static_cast<std::size_t>(cols) * sizeof(float);
  const std::size_t total = static_cast<std::size_t>(s.count) + (s.last ? 1 : 0);
  std::vector<float> h(total * static_cast<std::size_t>(cols));
  if (s.stride == 1) {
    MEMHIER_CUDA(cudaMemcpy(h.data(), d, row_bytes * static_cast<std::size_t>(s.count),
                            cudaMemcpyDeviceToHost));
  } else if (s.count <= 64) {  // few, long rows: a copy each (a 2D pitch could pass its limit)
    for (int i = 0; i < s.count; ++i)
      MEMHIER_CUDA(cudaMemcpy(h.data() + static_cast<std::size_t>(i) * cols,
                              d + static_cast<std::size_t>(i) * s.stride * cols, row_bytes,
                              cudaMemcpyDeviceToHost));
  } else {
    MEMHIER_CUDA(cudaMemcpy2D(h.data(), row_bytes, d,
                              row_bytes * static_cast<std::size_t>(s.stride), row_bytes,
                              static_cast<std::size_t>(s.count), cudaMemcpyDeviceToHost));
  }
  if (s.last)
    MEMHIER_CUDA(cudaMemcpy(h.data() + static_cast<std::size_t>(s.count) * cols,
                            d + static_cast<std::size_t>(rows - 1) * cols, row_bytes,
                            cudaMemcpyDeviceToHost));
  return h;
}

class SoftmaxCase : public registry::Case {
 public:
  SoftmaxCase(int rows, int cols, std::uint32_t seed)
      : rows_(rows),
        cols_(cols),
        n_(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols)),
        sample_(choose_rows(rows, cols)),
        in_(n_),
        out_(n_),
        check_(2) {
    core::fill_random(in_.data(), n_, seed, kInputLo, kInputHi);
    MEMHIER_CUDA(cudaDeviceSynchronize());
    const std::vector<float> x = download_rows(in_.data(), rows_, cols_, sample_);
    ref_.resize(x.size());
    for (std::size_t r = 0; r < x.size() / static_cast<std::size_t>(cols_); ++r) {
      const float* xr = x.data() + r * cols_;
      double* yr = ref_.data() + r * cols_;
      double m = -INFINITY;
      for (int c = 0; c < cols_; ++c) m = std::max(m, static_cast<double>(xr[c]));
      double s = 0;
      for (int c = 0; c < cols_; ++c) s += (yr[c] = std::exp(static_cast<double>(xr[c]) - m));
      for (int c = 0; c < cols_; ++c) yr[c] /= s;
    }
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

  double error() override {
    MEMHIER_CUDA(cudaDeviceSynchronize());
    if (sample_.stride != 1 && !whole_output_plausible()) return INFINITY;
    const std::vector<float> y = download_rows(out_.data(), rows_, cols_, sample_);
    return core::rel_l2_error(y, ref_);
  }

  // Per element: expf within 2 ulp (1.2e-7 relative) plus a rounding or two for the scaling.
  // Per row, a common factor: the fp32 sum (a thread's serial share of up to ~256 terms, then
  // a tree or atomics), whose error grows like sqrt(terms) ulp on random inputs, ~1e-6 at
  // 65537 columns. 1e-5 leaves ten times that, while an unwritten element (NaN), a wrong
  // max or a missed chunk gives 1e-2 or more.
  double tolerance() const override { return 1e-5; }

 private:
  /// Every output finite, every row summing to 1 within kRowSumSlack (the unsampled rows).
  bool whole_output_plausible() {
    MEMHIER_CUDA(cudaMemset(check_.data(), 0, check_.bytes()));
    int dev = 0, sms = 0;
    MEMHIER_CUDA(cudaGetDevice(&dev));
    MEMHIER_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const int blocks = static_cast<int>(std::min<long long>(
        static_cast<long long>(sms) * 8, (static_cast<long long>(rows_) + 7) / 8));
    output_check_kernel<<<blocks, 256>>>(out_.data(), rows_, cols_, check_.data(),
                                         check_.data() + 1);
    MEMHIER_CHECK_LAUNCH();
    const std::vector<unsigned int> h = check_.download();
    float worst = 0;
    static_assert(sizeof(float) == sizeof(unsigned int), "float bits");
    std::memcpy(&worst, &h[1], sizeof worst);
    return h[0] == 0 && worst <= kRowSumSlack;
  }

  int rows_, cols_;
  std::size_t n_;
  RowSample sample_;
  core::DeviceBuffer<float> in_, out_;
  core::DeviceBuffer<unsigned int> check_;  // non-finite count, worst |row sum - 1| bits
  std::vector<double> ref_;                 // the sampled rows' float64 softmax
};

std::unique_ptr<registry::Case> make_softmax_case(const std::string& shape, std::uint32_t seed) {
  const std::vector<std::int64_t> d = registry::parse_shape(shape, 2, "softmax");
  if (d[0] > INT_MAX || d[1] > INT_MAX)
    throw std::invalid_argument("softmax shape '" + shape + "' has an extent above 2147483647.");
  if (d[1] > kMaxBenchCols)
    throw std::invalid_argument("softmax shape '" + shape + "' has more than " +
                                std::to_string(kMaxBenchCols) +
                                " columns (the reference checks whole rows on the CPU).");
  return std::make_unique<SoftmaxCase>(static_cast<int>(d[0]), static_cast<int>(d[1]), seed);
}

/// A rung of the table (softmax_rungs.inc) as the bench registers it.
registry::Variant rung(softmax::Variant v, int rung_no, std::string technique,
                       registry::Claim claim, const void* symbol, int block_threads) {
  // The cached kernels size their dynamic shared memory per shape: 0 here.
  return registry::make_variant(softmax::to_string(v), rung_no, std::move(technique),
                                std::move(claim), symbol, block_threads);
}

}  // namespace

registry::Family softmax_family() {
  using softmax::Variant;
  namespace d = softmax::detail;
  registry::Family f;
  f.name = "softmax";
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
  f.claims.checks = claims::softmax_checks;
  return f;
}

}  // namespace memhier::kernels
