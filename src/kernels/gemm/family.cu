// The GEMM ladder's registration: variants in rung order with the source texts' claims, the
// shapes, and the Case (random inputs, float64 reference, cuBLAS SGEMM baseline).
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/families.hpp"
#include "kernels/gemm/reference.cuh"
#include "memhier/claims/ladders.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/random.hpp"
#include "memhier/core/verify.hpp"
#include "memhier/kernels/gemm.hpp"
#include "memhier/registry/decimal.hpp"
#include "predict.hpp"
#include "variants.hpp"

namespace memhier::kernels {
namespace {

using gemm::Variant;

constexpr const char* kTf32Name = "cublas_tf32_reference";
constexpr int kTf32Rung = 99;
// The naive rungs decline shapes above this many flops (2mnk): at a few hundred GFLOP/s
// 8192^3 would take seconds per run. 4096^3 (1.4e11) still runs, for the source texts' figure.
constexpr double kNaiveMaxFlops = 2.0e11;
// The CPU float64 reference (tests of the device one) up to this many multiply-adds.
constexpr double kCpuReferenceMacs = 67108864.0;  // 2^26

void check_cublas(cublasStatus_t st, const char* call) {
  if (st != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(call) + " failed: " + cublasGetStatusString(st));
}

/// One cuBLAS handle per device for the whole process (creation is slow; never destroyed,
/// so that no handle outlives its context at exit).
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

struct GemmShape {
  int m = 0, n = 0, k = 0;
  float alpha = 1.f, beta = 0.f;
  bool scaled = false;  // alpha and beta were given
};

std::string fmt_scalar(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
  return buf;
}

std::string shape_text(const GemmShape& s) {
  std::string t = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
  if (s.scaled) t += ":" + fmt_scalar(s.alpha) + ":" + fmt_scalar(s.beta);
  return t;
}

/// "MxNxK" or "MxNxK:alpha:beta"; one sentence for anything else.
GemmShape parse_gemm_shape(const std::string& text) {
  const std::string form = "gemm shape '" + text + "' is not MxNxK or MxNxK:alpha:beta";
  GemmShape s;
  const std::size_t colon = text.find(':');
  const std::string dims = text.substr(0, colon);
  // Extents only: m*n*k is work, not storage; the matrices' sizes are checked below.
  const std::vector<std::int64_t> d =
      registry::parse_shape(dims, 3, "gemm", std::numeric_limits<double>::infinity());
  for (std::int64_t v : d)
    if (v > std::numeric_limits<int>::max())
      throw std::invalid_argument("gemm shape '" + text + "' has an extent above 2^31-1.");
  s.m = static_cast<int>(d[0]);
  s.n = static_cast<int>(d[1]);
  s.k = static_cast<int>(d[2]);
  const double limit = static_cast<double>(std::numeric_limits<int>::max());
  if (static_cast<double>(s.m) * s.k > limit || static_cast<double>(s.k) * s.n > limit ||
      static_cast<double>(s.m) * s.n > limit)
    throw std::invalid_argument("gemm shape '" + text +
                                "' needs a matrix of more than 2^31-1 elements (8 GiB).");
  if (colon != std::string::npos) {
    const std::string rest = text.substr(colon + 1);
    const std::size_t c2 = rest.find(':');
    if (c2 == std::string::npos || rest.find(':', c2 + 1) != std::string::npos)
      throw std::invalid_argument(form + " (alpha and beta after one colon each).");
    // The strict reader: std::stod would take " 1", "0x1p3" and "inf".
    auto number = [&](const std::string& part) {
      const registry::DecimalReal v = registry::read_decimal_real(part);
      if (!v.ok() || std::fabs(v.value) > std::numeric_limits<float>::max())
        throw std::invalid_argument(form + " (alpha and beta must be finite decimal numbers).");
      return static_cast<float>(v.value);
    };
    s.alpha = number(rest.substr(0, c2));
    s.beta = number(rest.substr(c2 + 1));
    s.scaled = true;
  }
  return s;
}

/// fp32 FFMA accumulation of K products of inputs in [-1, 1): each rounding is at most
/// u = 2^-24 relative; they add like a random walk, so the relative L2 error of C grows as
/// about u * sqrt(K / 2) (3.8e-6 at K = 8192). The bound 3e-7 * sqrt(K) + 1e-6 is 7x that
/// at every K (1.3e-6 at K = 1, 2.8e-5 at K = 8192) and stays 10x below what TF32 inputs
/// (10-bit mantissa, about 3e-4 here) would give, so TF32 or a lost k-tile cannot pass.
double fp32_tolerance(int k) {
  return 3e-7 * std::sqrt(static_cast<double>(k)) + 1e-6;
}

/// TF32 rounds each input to 10 mantissa bits (relative 2^-11): the product error is a
/// few 1e-4 whatever K; 5e-3 leaves margin and still catches a wrong result.
constexpr double kTf32Tolerance = 5e-3;

/// Per element, |C - C_ref| <= factor x (|alpha| sum_k |a_ik b_kj| + |beta c0_ij|): K + 2
/// fp32 roundings, each at most u times a partial sum bounded by that scale, and independent
/// in sign, so (Higham & Mary's probabilistic bound) 8 sqrt(K + 2) u holds with a failure
/// chance below 1e-13 per element, whatever the summation order of a rung.
double fp32_factor(int k) {
  return 8.0 * std::sqrt(static_cast<double>(k) + 2.0) * core::kFp32Unit;
}

/// TF32 also rounds each input to 10 mantissa bits (2^-11 relative, or 2^-10 if truncated):
/// each product is off by at most 2^-9 of |a b|, whatever K.
double tf32_factor(int k) {
  return 0x1p-9 + fp32_factor(k);
}

using gemm_reference::kRefTile;
using gemm_reference::reference_kernel;

/// Device bytes a case needs: A, B, C (and C0 when beta != 0), the reference and its scale.
double case_bytes(const GemmShape& s) {
  const double m = s.m, n = s.n, k = s.k;
  return 4.0 * (m * k + k * n + m * n) + (s.beta != 0.f ? 4.0 * m * n : 0.0) + 12.0 * m * n;
}

class GemmCase : public registry::Case {
 public:
  GemmCase(const GemmShape& s, std::uint32_t seed)
      : s_(s),
        A_(static_cast<std::size_t>(s.m) * static_cast<std::size_t>(s.k)),
        B_(static_cast<std::size_t>(s.k) * static_cast<std::size_t>(s.n)),
        C_(static_cast<std::size_t>(s.m) * static_cast<std::size_t>(s.n)),
        ref_(C_.size()),
        scale_(C_.size()) {
    const std::size_t mn = C_.size();
    core::fill_random(A_.data(), A_.size(), seed * 3u + 1u);
    core::fill_random(B_.data(), B_.size(), seed * 3u + 2u);
    if (s_.beta != 0.f) {  // C starts random (not NaN) and is restored before every run
      C0_ = core::DeviceBuffer<float>(mn);
      core::fill_random(C0_.data(), mn, seed * 3u + 3u);
      MEMHIER_CUDA(cudaMemcpy(C_.data(), C0_.data(), mn * sizeof(float), cudaMemcpyDeviceToDevice));
    }
    MEMHIER_CUDA(cudaDeviceSynchronize());
    opt_in_dynamic_smem();
  }

  std::string shape() const override { return shape_text(s_); }

  registry::Work work() const override {
    const double m = s_.m, n = s_.n, k = s_.k;
    registry::Work w;
    w.bytes = 4.0 * (m * k + k * n + m * n) + (s_.beta != 0.f ? 4.0 * m * n : 0.0);
    w.flops = 2.0 * m * n * k;
    return w;
  }

  void run(const std::string& variant, cudaStream_t stream) override {
    if (variant == kTf32Name) {
      last_tf32_ = true;
      run_cublas(/*tf32=*/true, stream);
      return;
    }
    last_tf32_ = false;
    Variant v;
    if (!gemm::parse_variant(variant, &v))
      throw std::invalid_argument("unknown gemm variant '" + variant + "'.");
    if ((v == Variant::naive || v == Variant::coalesced) && work().flops > kNaiveMaxFlops)
      throw std::invalid_argument("naive rung: too slow for this shape");
    gemm::sgemm(v, s_.m, s_.n, s_.k, s_.alpha, A_.data(), s_.k, B_.data(), s_.n, s_.beta, C_.data(),
                s_.n, stream);
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
    const double factor = last_tf32_ ? tf32_factor(s_.k) : fp32_factor(s_.k);
    return {{"C", C_.data(), C_.size(), static_cast<std::size_t>(s_.n), core::ElemType::f32,
             ref_.data(), scale_.data(), factor}};
  }

  bool in_place() const override { return s_.beta != 0.f; }  // C = alpha A B + beta C

  std::vector<core::HostReference> cpu_reference() override {
    const double macs = static_cast<double>(s_.m) * s_.n * static_cast<double>(s_.k);
    if (macs > kCpuReferenceMacs)
      throw std::invalid_argument("gemm " + shape() + ": too large for the CPU reference.");
    const std::vector<float> a = A_.download(), b = B_.download();
    std::vector<float> c0;
    if (s_.beta != 0.f) c0 = C0_.download();
    const std::size_t m = s_.m, n = s_.n, k = s_.k;
    const double alpha = s_.alpha, beta = s_.beta;
    std::vector<double> acc(n), mag(n);
    core::HostReference h;
    h.ref.assign(m * n, 0.0);
    h.scale.assign(m * n, 0.0);
    for (std::size_t i = 0; i < m; ++i) {
      std::fill(acc.begin(), acc.end(), 0.0);
      std::fill(mag.begin(), mag.end(), 0.0);
      for (std::size_t p = 0; p < k; ++p) {
        const double av = a[i * k + p];
        const float* brow = &b[p * n];
        for (std::size_t j = 0; j < n; ++j) {
          const double ab = av * static_cast<double>(brow[j]);
          acc[j] += ab;
          mag[j] += std::fabs(ab);
        }
      }
      for (std::size_t j = 0; j < n; ++j) {
        const double cv = s_.beta != 0.f ? static_cast<double>(c0[i * n + j]) : 0.0;
        h.ref[i * n + j] = alpha * acc[j] + beta * cv;
        h.scale[i * n + j] = std::fabs(alpha) * mag[j] + std::fabs(beta) * std::fabs(cv);
      }
    }
    return {h};
  }

  double tolerance() const override { return last_tf32_ ? kTf32Tolerance : fp32_tolerance(s_.k); }

  std::string baseline_name() const override { return "cublasSgemm"; }

  void run_baseline(cudaStream_t stream) override {
    last_tf32_ = false;
    run_cublas(/*tf32=*/false, stream);
  }

 private:
  /// Row-major C = A B is column-major C^T = B^T A^T: swap the operands, pass (n, m, k).
  void run_cublas(bool tf32, cudaStream_t stream) {
    cublasHandle_t h = cublas_handle();
    check_cublas(cublasSetStream(h, stream), "cublasSetStream");
    const float alpha = s_.alpha, beta = s_.beta;
    if (!tf32) {
      // Pure fp32 (no TF32 tensor cores); error() checks it with the fp32 tolerance.
      check_cublas(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
      check_cublas(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, s_.n, s_.m, s_.k, &alpha, B_.data(),
                               s_.n, A_.data(), s_.k, &beta, C_.data(), s_.n),
                   "cublasSgemm");
    } else {
      check_cublas(
          cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, s_.n, s_.m, s_.k, &alpha, B_.data(), CUDA_R_32F,
                       s_.n, A_.data(), CUDA_R_32F, s_.k, &beta, C_.data(), CUDA_R_32F, s_.n,
                       CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx (TF32)");
    }
  }

  /// Kernels above 48 KiB of dynamic shared memory get their opt-in now, so that the
  /// occupancy the bench reports for them (queried before the first launch) is real.
  static void opt_in_dynamic_smem() {
    for (Variant v : gemm::all_variants()) {
      if (v == Variant::best) continue;
      const gemm::detail::Launcher l = gemm::detail::launcher_for(v);
      if (l.dynamic_smem <= 48 * 1024) continue;
      try {
        gemm::detail::prepare_dynamic_smem(l.symbol(), l.dynamic_smem, gemm::to_string(v));
      } catch (const std::invalid_argument&) {
        // A device with less shared memory: the variant declines when it is run.
      }
    }
  }

  GemmShape s_;
  core::DeviceBuffer<float> A_, B_, C_, C0_;
  core::DeviceBuffer<double> ref_;   // float64 C, computed on the first outputs()
  core::DeviceBuffer<float> scale_;  // its bound's scale per element
  bool ref_ready_ = false;
  bool last_tf32_ = false;
};

struct RungInfo {
  Variant v;
  int rung;
  const char* technique;
  const char* source;
  const char* claim;
};

/// The table (gemm_rungs.inc), in rung order.
const std::vector<RungInfo>& rungs() {
  int rung_no = 0;
  // The table's lines in order (a braced list evaluates its elements left to right): a
  // line's rung number is its place.
  static const std::vector<RungInfo> r{
#define MEMHIER_RUNG(name, launcher, candidate, prediction, technique, source, claim) \
  {Variant::name, ++rung_no, technique, source, claim},
#define MEMHIER_BEST(name, technique, source, claim) \
  {Variant::name, ++rung_no, technique, source, claim},
#include "memhier/kernels/gemm_rungs.inc"
  };
  return r;
}

/// A rung of the table as the bench registers it: its launcher's resources, its prediction.
registry::Variant make_variant(const RungInfo& r) {
  // best: the kernel it runs depends on the tuning (`runs`, below); its own symbol is the
  // large-shape default.
  const gemm::detail::Launcher l =
      gemm::detail::launcher_for(r.v == Variant::best ? Variant::double_buffered : r.v);
  registry::Variant v =
      registry::make_variant(gemm::to_string(r.v), r.rung, r.technique, {r.source, r.claim},
                             l.symbol(), l.block_threads, l.dynamic_smem);
  if (gemm::detail::has_prediction(r.v)) {
    v.predict = [rung = r.v](const std::string& shape) {
      const GemmShape s = parse_gemm_shape(shape);
      return gemm::detail::predict(rung, s.m, s.n, s.k, s.alpha, s.beta);
    };
    v.stream = [rung = r.v](const std::string& shape, model::AccessSink& sink) {
      const GemmShape s = parse_gemm_shape(shape);
      gemm::detail::stream(rung, s.m, s.n, s.k, s.alpha, s.beta, sink);
    };
  }
  // best runs the candidate the tuner chose for the shape's class, known once it has run
  // (the bench asks after the first run, the profiler's child after its warm-up): its
  // resource columns and its prediction are that candidate's.
  if (r.v == Variant::best)
    v.runs = [](const std::string& shape) {
      const GemmShape s = parse_gemm_shape(shape);
      // The case passes lda = k, ldb = n, ldc = n with cudaMalloc'd (aligned) bases.
      return gemm::best_config(s.m, s.n, s.k, s.k % 4 == 0 && s.n % 4 == 0);
    };
  return v;
}

}  // namespace

registry::Family gemm_family() {
  registry::Family f;
  f.name = "gemm";
  f.title = "SGEMM, fp32 on CUDA cores (C = alpha A B + beta C)";
  f.story =
      "'Shared Memory and Bank Conflicts' walks the GEMM ladder from a naive kernel that "
      "reads every operand from global memory (310 GFLOP/s on an A100 at 4096^3) through "
      "shared-memory tiles (2,800 GFLOP/s with 32x32 tiles, which 'Global, Shared, and "
      "Register Memory' calls nearly always optimal), padding (a 3x claim), register tiling "
      "(6,200 GFLOP/s: 'as important as shared-memory tiling') and a cp.async pipeline (7,100 "
      "GFLOP/s), against cuBLAS at 18,500 GFLOP/s (94.9% of peak). It credits much of the "
      "remaining gap to tensor cores; that does not apply to fp32 SGEMM: cuBLAS SGEMM runs on "
      "the CUDA cores (FFMA), as every rung here does. The ladder reproduces each step on "
      "this card, adds vectorized loads, warp tiling, double buffering, XOR swizzling and a "
      "per-device tuned choice, and times each against cublasSgemm in pure fp32 "
      "(CUBLAS_DEFAULT_MATH, verified against the fp32 tolerance). The cublas_tf32_reference "
      "line is cuBLAS with TF32 tensor cores: inputs rounded to 10 mantissa bits, a reference "
      "for speed only, verified with its own looser tolerance.";
  for (const RungInfo& r : rungs()) f.variants.push_back(make_variant(r));
  registry::Variant tf32;
  tf32.name = kTf32Name;
  tf32.rung = kTf32Rung;
  tf32.technique =
      "cuBLAS with TF32 tensor cores: a reference line, not fp32 - its error is larger "
      "(inputs rounded to 10 mantissa bits; tolerance 5e-3 instead of the fp32 bound)";
  tf32.claim = {"002 §GEMM Performance Comparison",
                "the gap to cuBLAS is largely due to tensor core usage"};
  f.variants.push_back(tf32);
  f.bench_shapes = {"4096x4096x4096", "1024x1024x1024", "8192x8192x8192"};
  f.quick_shapes = {"2048x2048x2048"};
  f.test_shapes = {"1x1x1",          "7x7x7",           "1x128x64",        "127x129x65",
                   "129x127x33",     "132x200x36",      "1000x1000x1000",  "4099x4091x4097",
                   "64x64x64:0:1.5", "65x33x17:1.25:0", "33x65x17:0.5:-2", "260x132x40:1:0.5"};
  // Odd in every extent: partial tiles of every size, lanes off at the edges of A, B and
  // C, and a partial k-tile; beta = 0, so the epilogue does not read C.
  f.profile_shape = "257x255x129";
  f.check_shape = [](const std::string& shape) { parse_gemm_shape(shape); };
  f.make_case = [](const std::string& shape,
                   std::uint32_t seed) -> std::unique_ptr<registry::Case> {
    const GemmShape s = parse_gemm_shape(shape);  // bad input answered before any CUDA call
    core::require_device_memory(case_bytes(s), "gemm " + shape_text(s));
    return std::make_unique<GemmCase>(s, seed);
  };
  f.claims = {claims::gemm_checks, claims::gemm_seed_tables};  // the source text's GEMM table too
  return f;
}

}  // namespace memhier::kernels
