// The bf16 GEMM ladder's registration: variants in rung order with the source texts' claims,
// the shapes, and the Case (random bf16 inputs, float64 reference, cuBLAS bf16 baseline).
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/families.hpp"
#include "kernels/gemm/reference.cuh"
#include "memhier/core/buffer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/random.hpp"
#include "memhier/core/verify.hpp"
#include "memhier/kernels/gemm_bf16.hpp"
#include "predict.hpp"
#include "shape.hpp"
#include "variants.hpp"

namespace memhier::kernels {
namespace {

using gemm_bf16::Variant;
using gemm_bf16::detail::Shape;

// The CPU float64 reference (tests of the device one) up to this many multiply-adds.
constexpr double kCpuReferenceMacs = 67108864.0;  // 2^26

// Error bounds. bf16 inputs are exact in float64, and a product of two bf16 (8-bit
// significands) is exact in fp32, so the only error is the fp32 accumulation. Tensor cores add
// a block of products to the accumulator with the significands aligned to the largest
// exponent and the result truncated (round toward zero: Fasi, Higham, Mikaitis and Pranesh
// 2021, V100 to A100), so the errors need not cancel: each block loses a few units of 2^-23 of
// its largest magnitude (the accumulator or a product). For random inputs that magnitude is
// far below sum_k |a b| (sqrt(K) against K), so 2 units of 2^-23 of sum_k |a b| per 16
// products bound the error whatever the order of the sum or the signs of its errors.
int k_blocks(int k) {
  return (k + 15) / 16;
}

/// Per element: |C - C_ref| <= (ceil(K/16) 2^-22 + 2u) (|alpha| sum_k |a b| + |beta c0|), the
/// 2u for the alpha scale and the beta fma of the epilogue.
double element_factor(int k) {
  return k_blocks(k) * 0x1p-22 + 2 * core::kFp32Unit;
}

/// Relative L2: the final truncation of each block drifts one way, about half a unit of 2^-23
/// of the partial sum (the products' own truncations have random signs and cancel), so the
/// relative error grows like ceil(K/16) 2^-24; 2^-22 ceil(K/16) + 1e-6 (6e-5 at K = 4096,
/// 1.2e-4 at 8192) leaves 4x for that and stays 15x below an output rounded to bf16 (2^-9)
/// and far below a lost k-tile.
double l2_tolerance(int k) {
  return k_blocks(k) * 0x1p-22 + 1e-6;
}

void check_cublas(cublasStatus_t st, const char* call) {
  if (st != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(call) + " failed: " + cublasGetStatusString(st));
}

/// One cuBLAS handle per device for the whole process (never destroyed, so that no handle
/// outlives its context at exit).
cublasHandle_t cublas_handle() {
  static std::mutex mu;
  static std::map<int, cublasHandle_t> handles;
  int dev = 0;
  MEMHIER_CUDA(cudaGetDevice(&dev));
  std::lock_guard<std::mutex> lock(mu);
  auto it = handles.find(dev);
  if (it != handles.end()) return it->second;
  cublasHandle_t h = nullptr;
  check_cublas(cublasCreate(&h), "cublasCreate");
  handles.emplace(dev, h);
  return h;
}

__global__ void to_bf16_kernel(const float* __restrict__ in, __nv_bfloat16* __restrict__ out,
                               std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    out[i] = __float2bfloat16_rn(in[i]);
}

/// Uniform [-1, 1) values from `seed`, rounded to bf16 (never all zeros), through `scratch`.
void fill_bf16(__nv_bfloat16* out, std::size_t n, std::uint32_t seed, float* scratch) {
  core::fill_random(scratch, n, seed);
  to_bf16_kernel<<<1024, 256>>>(scratch, out, n);
  MEMHIER_CHECK_LAUNCH();
}

using gemm_reference::kRefTile;
using gemm_reference::reference_kernel;

/// Device bytes a case needs: A and B (bf16), C (and C0 when beta != 0), the reference and
/// its scale, and the fp32 scratch the inputs are drawn in.
double case_bytes(const Shape& s) {
  const double m = s.m, n = s.n, k = s.k;
  return 2.0 * (m * k + k * n) + 4.0 * m * n + (s.beta != 0.f ? 4.0 * m * n : 0.0) + 12.0 * m * n +
         4.0 * std::max(m * k, k * n);
}

class GemmBf16Case : public registry::Case {
 public:
  GemmBf16Case(const Shape& s, std::uint32_t seed)
      : s_(s),
        A_(static_cast<std::size_t>(s.m) * static_cast<std::size_t>(s.k)),
        B_(static_cast<std::size_t>(s.k) * static_cast<std::size_t>(s.n)),
        C_(static_cast<std::size_t>(s.m) * static_cast<std::size_t>(s.n)),
        ref_(C_.size()),
        scale_(C_.size()) {
    {
      core::DeviceBuffer<float> scratch(std::max(A_.size(), B_.size()));
      fill_bf16(A_.data(), A_.size(), seed * 3u + 1u, scratch.data());
      fill_bf16(B_.data(), B_.size(), seed * 3u + 2u, scratch.data());
      MEMHIER_CUDA(cudaDeviceSynchronize());
    }
    if (s_.beta != 0.f) {  // C starts random (not NaN) and is restored before every run
      C0_ = core::DeviceBuffer<float>(C_.size());
      core::fill_random(C0_.data(), C0_.size(), seed * 3u + 3u);
      MEMHIER_CUDA(cudaMemcpy(C_.data(), C0_.data(), C_.bytes(), cudaMemcpyDeviceToDevice));
    }
    MEMHIER_CUDA(cudaDeviceSynchronize());
    opt_in_dynamic_smem();
  }

  std::string shape() const override { return gemm_bf16::detail::shape_text(s_); }

  registry::Work work() const override {
    const double m = s_.m, n = s_.n, k = s_.k;
    registry::Work w;
    w.bytes = 2.0 * (m * k + k * n) + 4.0 * m * n + (s_.beta != 0.f ? 4.0 * m * n : 0.0);
    w.flops = 2.0 * m * n * k;
    return w;
  }

  void run(const std::string& variant, cudaStream_t stream) override {
    Variant v;
    if (!gemm_bf16::parse_variant(variant, &v))
      throw std::invalid_argument("unknown gemm_bf16 variant '" + variant + "'.");
    gemm_bf16::gemm_bf16(v, s_.m, s_.n, s_.k, s_.alpha, A_.data(), s_.k, B_.data(), s_.n, s_.beta,
                         C_.data(), s_.n, stream);
  }

  void poison(cudaStream_t stream) override {
    if (s_.beta == 0.f)
      C_.poison(stream);  // NaN: an unwritten output fails (C must not be read when beta == 0)
    else
      MEMHIER_CUDA(
          cudaMemcpyAsync(C_.data(), C0_.data(), C_.bytes(), cudaMemcpyDeviceToDevice, stream));
  }

  std::vector<core::OutputSpec> outputs() override {
    if (!ref_ready_) {
      const dim3 block(kRefTile, kRefTile);
      const dim3 grid((s_.n + kRefTile - 1) / kRefTile,
                      std::min((s_.m + kRefTile - 1) / kRefTile, 65535));
      reference_kernel<<<grid, block>>>(s_.m, s_.n, s_.k, s_.alpha, A_.data(), B_.data(), s_.beta,
                                        s_.beta != 0.f ? C0_.data() : nullptr, ref_.data(),
                                        scale_.data());
      MEMHIER_CHECK_LAUNCH();
      MEMHIER_CUDA(cudaDeviceSynchronize());
      ref_ready_ = true;
    }
    return {{"C", C_.data(), C_.size(), static_cast<std::size_t>(s_.n), core::ElemType::f32,
             ref_.data(), scale_.data(), element_factor(s_.k)}};
  }

  bool in_place() const override { return s_.beta != 0.f; }  // C = alpha A B + beta C

  std::vector<core::HostReference> cpu_reference() override {
    const double macs = static_cast<double>(s_.m) * s_.n * static_cast<double>(s_.k);
    if (macs > kCpuReferenceMacs)
      throw std::invalid_argument("gemm_bf16 " + shape() + ": too large for the CPU reference.");
    const std::vector<__nv_bfloat16> a = A_.download(), b = B_.download();
    std::vector<float> c0;
    if (s_.beta != 0.f) c0 = C0_.download();
    const std::size_t m = s_.m, n = s_.n, k = s_.k;
    core::HostReference h;
    h.ref.assign(m * n, 0.0);
    h.scale.assign(m * n, 0.0);
    std::vector<double> acc(n), mag(n), brow(n);
    for (std::size_t i = 0; i < m; ++i) {
      std::fill(acc.begin(), acc.end(), 0.0);
      std::fill(mag.begin(), mag.end(), 0.0);
      for (std::size_t p = 0; p < k; ++p) {
        const double av = __bfloat162float(a[i * k + p]);
        for (std::size_t j = 0; j < n; ++j) {
          const double ab = av * static_cast<double>(__bfloat162float(b[p * n + j]));
          acc[j] += ab;
          mag[j] += std::fabs(ab);
        }
      }
      for (std::size_t j = 0; j < n; ++j) {
        const double cv = s_.beta != 0.f ? static_cast<double>(c0[i * n + j]) : 0.0;
        h.ref[i * n + j] = s_.alpha * acc[j] + s_.beta * cv;
        h.scale[i * n + j] = std::fabs(s_.alpha) * mag[j] + std::fabs(s_.beta) * std::fabs(cv);
      }
    }
    return {h};
  }

  double tolerance() const override { return l2_tolerance(s_.k); }

  /// The vendor row's name.
  std::string baseline_name() const override { return "cublasGemmEx bf16"; }

  /// Row-major C = A B is column-major C^T = B^T A^T: swap the operands, pass (n, m, k).
  /// bf16 A and B, fp32 compute and fp32 C, as the ladder's rungs.
  void run_baseline(cudaStream_t stream) override {
    cublasHandle_t h = cublas_handle();
    check_cublas(cublasSetStream(h, stream), "cublasSetStream");
    check_cublas(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    const float alpha = s_.alpha, beta = s_.beta;
    check_cublas(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, s_.n, s_.m, s_.k, &alpha, B_.data(),
                              CUDA_R_16BF, s_.n, A_.data(), CUDA_R_16BF, s_.k, &beta, C_.data(),
                              CUDA_R_32F, s_.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx (bf16)");
  }

 private:
  /// Kernels above 48 KiB of dynamic shared memory get their opt-in now, so that the
  /// occupancy the bench reports for them (queried before the first launch) is real.
  static void opt_in_dynamic_smem() {
    for (Variant v : gemm_bf16::all_variants()) {
      if (v == Variant::best) continue;
      const gemm_bf16::detail::Launcher l = gemm_bf16::detail::launcher_for(v);
      if (l.dynamic_smem <= 48 * 1024) continue;
      try {
        gemm_bf16::detail::prepare_dynamic_smem(l.symbol(), l.dynamic_smem,
                                                gemm_bf16::to_string(v));
      } catch (const std::invalid_argument&) {
        // A device with less shared memory: the variant declines when it is run.
      }
    }
  }

  Shape s_;
  core::DeviceBuffer<__nv_bfloat16> A_, B_;
  core::DeviceBuffer<float> C_, C0_;
  core::DeviceBuffer<double> ref_;   // float64 C, computed on the first outputs()
  core::DeviceBuffer<float> scale_;  // its bound's scale per element
  bool ref_ready_ = false;
};

struct RungInfo {
  Variant v;
  int rung;
  const char* technique;
  const char* source;
  const char* claim;
};

/// The table (gemm_bf16_rungs.inc), in rung order: a line's rung number is its place.
const std::vector<RungInfo>& rungs() {
  int rung_no = 0;
  static const std::vector<RungInfo> r{
#define MEMHIER_RUNG(name, launcher, candidate, prediction, technique, source, claim) \
  {Variant::name, ++rung_no, technique, source, claim},
#define MEMHIER_BEST(name, technique, source, claim) \
  {Variant::name, ++rung_no, technique, source, claim},
#include "memhier/kernels/gemm_bf16_rungs.inc"
  };
  return r;
}

/// A rung of the table as the bench registers it, with its launcher's resources and its
/// prediction. best runs the candidate the tuner chose for the shape's class, known once it
/// has run (`runs`): its prediction is that candidate's.
registry::Variant make_variant(const RungInfo& r) {
  const Variant shown = r.v == Variant::best ? gemm_bf16::detail::best_candidates().back() : r.v;
  const gemm_bf16::detail::Launcher l = gemm_bf16::detail::launcher_for(shown);
  registry::Variant v =
      registry::make_variant(gemm_bf16::to_string(r.v), r.rung, r.technique, {r.source, r.claim},
                             l.symbol(), l.block_threads, l.dynamic_smem);
  if (gemm_bf16::detail::has_prediction(r.v)) {
    v.predict = [rung = r.v](const std::string& shape) {
      const Shape s = gemm_bf16::detail::parse_shape(shape);
      return gemm_bf16::detail::predict(rung, s.m, s.n, s.k, s.alpha, s.beta);
    };
    v.stream = [rung = r.v](const std::string& shape, model::AccessSink& sink) {
      const Shape s = gemm_bf16::detail::parse_shape(shape);
      gemm_bf16::detail::stream(rung, s.m, s.n, s.k, s.alpha, s.beta, sink);
    };
  }
  if (r.v == Variant::best)
    v.runs = [](const std::string& shape) {
      const Shape s = gemm_bf16::detail::parse_shape(shape);
      // The case passes lda = k, ldb = n with cudaMalloc'd (aligned) bases.
      return gemm_bf16::best_config(s.m, s.n, s.k, s.k % 8 == 0 && s.n % 8 == 0);
    };
  return v;
}

}  // namespace

registry::Family gemm_bf16_family() {
  registry::Family f;
  f.name = "gemm_bf16";
  f.title =
      "GEMM on tensor cores: bf16 A and B, fp32 accumulation, fp32 C (C = alpha A B + beta C)";
  f.story =
      "'GPU Memory Hierarchy' opens on the H100's ratio of tensor-core throughput to memory "
      "bandwidth (1,979 TFLOP/s fp16 against 3,350 GB/s, about 590 FLOP per byte): only large "
      "matrix products can keep the tensor cores fed, and then only if their operands reach "
      "them through shared memory fast enough. This ladder is that path for bf16 inputs with "
      "fp32 accumulation and an fp32 C (so its outputs compare with the SGEMM ladder's and "
      "carry no output rounding): WMMA fragments read straight from global memory, then "
      "shared-memory tiles, then mma.sync m16n8k16 fed by ldmatrix from padded tiles (the "
      "bank-conflict story of 'Shared Memory and Bank Conflicts' at 16-byte rows: unpadded, "
      "the 8 rows of an ldmatrix matrix fall on the same banks), an XOR swizzle in place of "
      "the padding, and a cp.async pipeline. Each rung is timed against cublasGemmEx with the "
      "same types (bf16 in, fp32 compute, fp32 out). Verification: bf16 inputs are exact in "
      "float64 and their products exact in fp32, so the only error is the fp32 accumulation, "
      "which tensor cores truncate block by block, so its errors need not cancel: each element "
      "is held to (ceil(K/16) 2^-22 + 2^-23) x (|alpha| sum |a b| + |beta c|), and the relative "
      "L2 error to ceil(K/16) 2^-22 + 1e-6.";
  for (const RungInfo& r : rungs()) f.variants.push_back(make_variant(r));
  f.bench_shapes = {"4096x4096x4096", "1024x1024x1024", "8192x8192x8192"};
  f.quick_shapes = {"2048x2048x2048"};
  // 1, primes, K = 8, K not a multiple of 16 or of 8 (rows not 16-byte aligned), one past
  // a tile in each extent, and alpha/beta paths.
  f.test_shapes = {"1x1x1",           "7x7x7",           "1x128x64",        "16x16x8",
                   "127x129x65",      "129x127x33",      "132x200x40",      "64x72x24",
                   "257x255x129",     "1000x1000x1000",  "4099x4091x4097",  "64x64x64:0:1.5",
                   "65x33x17:1.25:0", "33x65x17:0.5:-2", "260x132x40:1:0.5"};
  f.profile_shape = "257x255x129";
  f.check_shape = [](const std::string& shape) { gemm_bf16::detail::parse_shape(shape); };
  f.make_case = [](const std::string& shape,
                   std::uint32_t seed) -> std::unique_ptr<registry::Case> {
    const Shape s = gemm_bf16::detail::parse_shape(shape);  // bad input before any CUDA call
    core::require_device_memory(case_bytes(s), "gemm_bf16 " + gemm_bf16::detail::shape_text(s));
    return std::make_unique<GemmBf16Case>(s, seed);
  };
  return f;
}

}  // namespace memhier::kernels
