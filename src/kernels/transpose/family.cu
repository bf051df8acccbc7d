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
#include "kernels/tuning/record.hpp"
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

/// The CPU float64 reference (tests of the device one) up to this many elements.
constexpr std::size_t kCpuReferenceLimit = std::size_t{1} << 24;

/// The float64 reference: output element o = j * rows + i is input[i * cols + j].
__global__ void reference_kernel(const float* __restrict__ in, std::int64_t rows, std::int64_t cols,
                                 double* __restrict__ ref) {
  const std::size_t n = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  const std::size_t r = static_cast<std::size_t>(rows), c = static_cast<std::size_t>(cols);
  for (std::size_t o = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < n;
       o += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    ref[o] = static_cast<double>(in[(o % r) * c + o / r]);
}

class TransposeCase final : public registry::Case {
 public:
  TransposeCase(std::int64_t rows, std::int64_t cols, std::uint32_t seed)
      : rows_(rows),
        cols_(cols),
        n_(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols)) {
    in_ = core::DeviceBuffer<float>(n_);
    out_ = core::DeviceBuffer<float>(n_);
    ref_ = core::DeviceBuffer<double>(n_);
    core::fill_random(in_.data(), n_, seed, -1.f, 1.f, nullptr);
    MEMHIER_CUDA(cudaDeviceSynchronize());
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

  // An exact copy: a value moves without arithmetic, so every element must equal its
  // reference (bound factor 0); random inputs in [-1, 1) make one wrong element out of 1e6
  // a relative L2 error of ~1e-3.
  std::vector<core::OutputSpec> outputs() override {
    if (!ref_ready_) {
      reference_kernel<<<1024, 256>>>(in_.data(), rows_, cols_, ref_.data());
      MEMHIER_CHECK_LAUNCH();
      MEMHIER_CUDA(cudaDeviceSynchronize());
      ref_ready_ = true;
    }
    return {{"out", out_.data(), n_, static_cast<std::size_t>(rows_), core::ElemType::f32,
             ref_.data(), nullptr, 0.0}};
  }

  std::vector<core::HostReference> cpu_reference() override {
    if (n_ > kCpuReferenceLimit)
      throw std::invalid_argument("transpose " + shape() + ": too large for the CPU reference.");
    const std::vector<float> in = in_.download();
    const std::size_t rows = static_cast<std::size_t>(rows_),
                      cols = static_cast<std::size_t>(cols_);
    core::HostReference h;
    h.ref.resize(n_);
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < cols; ++j)
        h.ref[j * rows + i] = static_cast<double>(in[i * cols + j]);
    return {h};
  }

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
  std::int64_t rows_, cols_;
  std::size_t n_;
  core::DeviceBuffer<float> in_, out_;
  core::DeviceBuffer<double> ref_;  // float64 output, computed on the first outputs()
  bool ref_ready_ = false;
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
  f.python_name = "transpose";
  // In L2: the profile shape (3 MB); beyond: 512 MiB moved, four times the largest L2 of the
  // card table (the B200's 126 MB).
  f.comparison_shapes = {"1000x772", "8192x8192"};
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
  // The rung tuned for this card at the shape (cudaMalloc'd bases); none for a vector, which
  // best copies with cudaMemcpy.
  f.variants.back().runs = [](const std::string& shape) {
    const std::vector<std::int64_t> dims = registry::parse_shape(shape, 2, "transpose");
    transpose::check_shape(dims[0], dims[1]);
    return d::cached_best(static_cast<int>(dims[0]), static_cast<int>(dims[1]));
  };
  f.tune = [](const std::string& shape, bool retune) {
    const std::vector<std::int64_t> dims = registry::parse_shape(shape, 2, "transpose");
    transpose::check_shape(dims[0], dims[1]);
    const std::size_t n = static_cast<std::size_t>(dims[0]) * static_cast<std::size_t>(dims[1]);
    // in, out and the tuner's scratch output
    core::require_device_memory(12.0 * static_cast<double>(n), "transpose " + shape);
    core::DeviceBuffer<float> in(n), out(n);
    core::fill_random(in.data(), n, 1u, -1.f, 1.f, nullptr);
    MEMHIER_CUDA(cudaDeviceSynchronize());
    const memhier::tuning::Outcome o = d::tune_best(
        in.data(), out.data(), static_cast<int>(dims[0]), static_cast<int>(dims[1]), retune);
    return memhier::tuning::tune_record("transpose", shape, o);
  };
  // 8000x6000: not a power of two, where the tile layout's traffic over the L2's two halves
  // shows (README).
  f.bench_shapes = {"8192x8192", "4096x4096", "8000x6000"};
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
    core::require_device_memory(16.0 * static_cast<double>(dims[0]) * static_cast<double>(dims[1]),
                                "transpose " + shape);  // in, out and the float64 reference
    return std::make_unique<TransposeCase>(dims[0], dims[1], seed);
  };
  f.check_shape = [](const std::string& shape) {
    const std::vector<std::int64_t> dims = registry::parse_shape(shape, 2, "transpose");
    transpose::check_shape(dims[0], dims[1]);
  };
  f.claims.checks = claims::transpose_checks;
  f.claims.profile = claims::transpose_profile_checks;
  return f;
}

}  // namespace memhier::kernels
