// The transpose ladder's registration: its variants in rung order, its shapes and the
// Case that owns inputs, the float64 reference and the cublasSgeam baseline at one shape.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/families.hpp"
#include "kernels/transpose/predict.hpp"
#include "kernels/transpose/variants.hpp"
#include "memhier/claims/ladders.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/random.hpp"
#include "memhier/core/verify.hpp"
#include "memhier/kernels/transpose.hpp"

namespace memhier::kernels {
namespace {

void check_cublas(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(call) + " failed: " + cublasGetStatusString(status));
}

/// Up to this many elements the reference is the whole float64 output; above it, a
/// deterministic sample (the CPU cost stays well under a second per case).
constexpr std::size_t kFullReferenceLimit = std::size_t{1} << 24;
constexpr std::size_t kSampleCount = std::size_t{1} << 22;

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

class TransposeCase final : public registry::Case {
 public:
  TransposeCase(std::int64_t rows, std::int64_t cols, std::uint32_t seed)
      : rows_(rows),
        cols_(cols),
        n_(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols)) {
    in_ = core::DeviceBuffer<float>(n_);
    out_ = core::DeviceBuffer<float>(n_);
    core::fill_random(in_.data(), n_, seed, -1.f, 1.f, nullptr);
    MEMHIER_CUDA(cudaDeviceSynchronize());
    build_reference(in_.download(), seed);
  }
  ~TransposeCase() override {
    if (handle_) cublasDestroy(handle_);
  }
  TransposeCase(const TransposeCase&) = delete;
  TransposeCase& operator=(const TransposeCase&) = delete;

  std::string shape() const override { return std::to_string(rows_) + "x" + std::to_string(cols_); }

  // Each input element read once, each output element written once.
  registry::Work work() const override {
    return {2.0 * static_cast<double>(n_) * sizeof(float), 0.0};
  }

  void run(const std::string& variant, cudaStream_t stream) override {
    const std::optional<transpose::Variant> v = transpose::from_string(variant);
    if (!v) throw std::invalid_argument("unknown transpose variant '" + variant + "'.");
    transpose::transpose(*v, in_.data(), out_.data(), rows_, cols_, stream);
  }

  void poison(cudaStream_t stream) override { out_.poison(stream); }

  double error() override {
    MEMHIER_CUDA(cudaDeviceSynchronize());
    const std::vector<float> out = out_.download();
    if (!ref_.empty()) return core::rel_l2_error(out, ref_);
    // Sampled: every output element must still be finite (an unwritten one is NaN).
    for (float x : out)
      if (!std::isfinite(x)) return std::numeric_limits<double>::quiet_NaN();
    std::vector<double> out_at(sample_.size());
    for (std::size_t k = 0; k < sample_.size(); ++k) out_at[k] = out[sample_[k]];
    return core::rel_l2_error_sampled(out_at, ref_at_);
  }

  // An exact copy: any nonzero error is a wrong or missing element (random inputs in
  // [-1, 1) make one wrong element out of 1e6 an error of ~1e-3).
  double tolerance() const override { return 1e-7; }

  std::string baseline_name() const override { return "cublasSgeam"; }

  // cuBLAS is column-major: the row-major rows x cols input is a column-major cols x rows
  // matrix A (lda = cols); C = A^T is column-major rows x cols (ldc = rows), which is the
  // row-major cols x rows output. beta = 0, and B is the (finite) input, never the
  // NaN-poisoned output.
  void run_baseline(cudaStream_t stream) override {
    const float alpha = 1.f, beta = 0.f;
    const int m = static_cast<int>(rows_), n = static_cast<int>(cols_);
    // Created once, on the first (untimed, verifying) call: cases that never run the
    // baseline (the ladder tests) skip cuBLAS's start-up.
    if (!handle_) check_cublas(cublasCreate(&handle_), "cublasCreate");
    check_cublas(cublasSetStream(handle_, stream), "cublasSetStream");
    check_cublas(cublasSgeam(handle_, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &alpha, in_.data(), n, &beta,
                             in_.data(), m, out_.data(), m),
                 "cublasSgeam");
  }

 private:
  // Output element o = j * rows + i (output row j = input column j) is input[i * cols + j].
  double reference_at(const std::vector<float>& in, std::size_t o) const {
    const std::size_t rows = static_cast<std::size_t>(rows_),
                      cols = static_cast<std::size_t>(cols_);
    return static_cast<double>(in[(o % rows) * cols + o / rows]);
  }

  void build_reference(const std::vector<float>& in, std::uint32_t seed) {
    const std::size_t rows = static_cast<std::size_t>(rows_),
                      cols = static_cast<std::size_t>(cols_);
    if (n_ <= kFullReferenceLimit) {
      ref_.resize(n_);
      constexpr std::size_t kBlock = 64;  // blocked: both sides stay in cache
      for (std::size_t i0 = 0; i0 < rows; i0 += kBlock)
        for (std::size_t j0 = 0; j0 < cols; j0 += kBlock)
          for (std::size_t i = i0; i < std::min(rows, i0 + kBlock); ++i)
            for (std::size_t j = j0; j < std::min(cols, j0 + kBlock); ++j)
              ref_[j * rows + i] = static_cast<double>(in[i * cols + j]);
      return;
    }
    // The edges (first and last output row and column, where partial tiles live; their
    // ends in full, strided in between) and a hashed sample of the rest, sorted so that
    // error() gathers in address order.
    const auto along = [](std::size_t count, auto&& push) {
      constexpr std::size_t kEnd = 4096;
      const std::size_t head = std::min(count, kEnd), tail = std::max(head, count - head);
      const std::size_t step = std::max<std::size_t>(1, count / kEnd);
      for (std::size_t i = 0; i < head; ++i) push(i);
      for (std::size_t i = head; i < tail; i += step) push(i);
      for (std::size_t i = tail; i < count; ++i) push(i);
    };
    along(rows, [&](std::size_t i) {
      sample_.push_back(i);                      // output row 0
      sample_.push_back((cols - 1) * rows + i);  // the last output row
    });
    along(cols, [&](std::size_t j) {
      sample_.push_back(j * rows);             // output column 0
      sample_.push_back(j * rows + rows - 1);  // the last output column
    });
    for (std::size_t k = 0; k < kSampleCount; ++k)
      sample_.push_back(static_cast<std::size_t>(splitmix64((std::uint64_t{seed} << 32) ^ k) % n_));
    std::sort(sample_.begin(), sample_.end());
    sample_.erase(std::unique(sample_.begin(), sample_.end()), sample_.end());
    ref_at_.resize(sample_.size());
    for (std::size_t k = 0; k < sample_.size(); ++k) ref_at_[k] = reference_at(in, sample_[k]);
  }

  std::int64_t rows_, cols_;
  std::size_t n_;
  core::DeviceBuffer<float> in_, out_;
  std::vector<double> ref_;          // full reference (small shapes)
  std::vector<std::size_t> sample_;  // sampled output indices (large shapes)
  std::vector<double> ref_at_;       // their reference values
  cublasHandle_t handle_ = nullptr;
};

/// A rung of the table (transpose_rungs.inc) as the bench registers it, with its prediction.
registry::Variant variant(transpose::Variant v, int rung, std::string technique,
                          registry::Claim claim, const void* symbol) {
  registry::Variant out =
      registry::make_variant(transpose::to_string(v), rung, std::move(technique), std::move(claim),
                             symbol, transpose::detail::kBlockThreads);
  if (transpose::detail::has_prediction(v)) {
    out.predict = [v](const std::string& shape) { return transpose::detail::predict(v, shape); };
    out.stream = [v](const std::string& shape, model::AccessSink& sink) {
      transpose::detail::stream(v, shape, sink);
    };
  }
  return out;
}

}  // namespace

registry::Family transpose_family() {
  using transpose::Variant;
  namespace d = transpose::detail;
  registry::Family f;
  f.name = "transpose";
  f.title = "Matrix transpose, fp32";
  f.story =
      "Transpose is the textbook memory-hierarchy problem: a naive kernel reads rows "
      "(coalesced) and writes columns (one sector per element). 'GPU Memory Hierarchy' "
      "measures on a V100 at 4096x4096: naive 120 GB/s (13% of 900), a 32x32 shared-memory "
      "tile 580 GB/s (coalesced both ways but a 32-way bank conflict on the column read), the "
      "same tile padded to [32][33] 750 GB/s (83%). 'Shared Memory and Bank Conflicts' "
      "explains the padding (stride 33 is coprime with 32 banks) and offers the XOR swizzle "
      "tile[r][c ^ r] as the conflict-free layout that wastes no memory. Our best rungs add "
      "what Hopper needs to reach the copy ceiling: 16-byte loads and stores on both sides, "
      "16 elements per thread, and a swizzled shared tile that keeps every 128-bit shared "
      "access conflict-free.";
  int rung_no = 0;
  // The table's lines in order (a braced list evaluates its elements left to right): a
  // line's rung number is its place.
  f.variants = {
#define MEMHIER_RUNG(name, launch, symbol, prediction, technique, source, claim) \
  variant(Variant::name, ++rung_no, technique, {source, claim}, d::symbol()),
#define MEMHIER_BEST(name, symbol, prediction, technique, source, claim) \
  variant(Variant::name, ++rung_no, technique, {source, claim}, d::symbol()),
#include "memhier/kernels/transpose_rungs.inc"
  };
  f.bench_shapes = {"8192x8192", "4096x4096"};
  f.quick_shapes = {"4096x4096"};
  // Odd shapes (1, primes, one past a tile, non-square; none takes the float4 path) and
  // shapes with rows and columns multiples of 4 that do, with partial tiles.
  f.test_shapes = {"1x1",   "1x7",       "7x1",   "1x1000", "1000x1", "33x33",  "4099x1031",
                   "31x97", "1031x4099", "64x65", "4x4",    "68x132", "132x68", "260x1028"};
  // Partial tiles on both edges (1000 = 31 x 32 + 8 = 15 x 64 + 40 rows, 772 = 24 x 32 + 4
  // = 6 x 128 + 4 columns: 4 of 32 lanes live in the last tile column), and both multiples
  // of 4, so the best_* rungs take their float4 path rather than the padded fallback.
  f.profile_shape = "1000x772";
  f.make_case = [](const std::string& shape,
                   std::uint32_t seed) -> std::unique_ptr<registry::Case> {
    const std::vector<std::int64_t> dims = registry::parse_shape(shape, 2, "transpose");
    transpose::check_shape(dims[0], dims[1]);  // before touching the GPU
    return std::make_unique<TransposeCase>(dims[0], dims[1], seed);
  };
  f.claims.checks = claims::transpose_checks;
  return f;
}

}  // namespace memhier::kernels
