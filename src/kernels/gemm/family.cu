// The GEMM ladder's registration: variants in rung order with the source texts' claims, the
// shapes, and its traits for the GEMM ladders' common Case (ladder.cuh: random inputs, float64
// reference, cuBLAS SGEMM baseline).
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/families.hpp"
#include "kernels/gemm/ladder.cuh"
#include "memhier/claims/ladders.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/random.hpp"
#include "memhier/core/verify.hpp"
#include "memhier/kernels/gemm.hpp"
#include "predict.hpp"
#include "variants.hpp"

namespace memhier::kernels {
namespace {

using gemm::Variant;
using gemm::detail::Shape;

constexpr const char* kTf32Name = "cublas_tf32_reference";
constexpr int kTf32Rung = 99;
// The naive rungs decline shapes above this many flops (2mnk): at a few hundred GFLOP/s
// 8192^3 would take seconds per run. 4096^3 (1.4e11) still runs, for the source texts' figure.
constexpr double kNaiveMaxFlops = 2.0e11;

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

/// What the SGEMM ladder puts into the GEMM ladders' common Case and registration.
struct Fp32 {
  using Input = float;
  using Variant = gemm::Variant;
  static constexpr const char* kFamily = "gemm";
  static constexpr const char* kBaseline = "cublasSgemm";
  static constexpr double kScratchBytes = 0;  // inputs drawn in place

  static void fill_inputs(core::DeviceBuffer<float>& A, core::DeviceBuffer<float>& B,
                          std::uint32_t seed) {
    core::fill_random(A.data(), A.size(), seed * 3u + 1u);
    core::fill_random(B.data(), B.size(), seed * 3u + 2u);
  }
  static double to_double(float v) { return static_cast<double>(v); }

  static const std::vector<Variant>& all_variants() { return gemm::all_variants(); }
  static const char* to_string(Variant v) { return gemm::to_string(v); }
  static bool parse_variant(const std::string& name, Variant* v) {
    return gemm::parse_variant(name, v);
  }
  static gemm::detail::Launcher launcher_for(Variant v) { return gemm::detail::launcher_for(v); }
  // best's own symbol: the large-shape default; what it runs depends on the tuning.
  static Variant shown_for_best() { return Variant::double_buffered; }
  static bool has_prediction(Variant v) { return gemm::detail::has_prediction(v); }
  static model::AccessCounts predict(Variant v, int m, int n, int k, float alpha, float beta) {
    return gemm::detail::predict(v, m, n, k, alpha, beta);
  }
  static void stream(Variant v, int m, int n, int k, float alpha, float beta,
                     model::AccessSink& sink) {
    gemm::detail::stream(v, m, n, k, alpha, beta, sink);
  }
  static std::string best_config(int m, int n, int k) { return gemm::best_config(m, n, k); }
  static memhier::tuning::Outcome tune(const Shape& s, const float* A, const float* B, float* C,
                                    bool retune) {
    return gemm::tune(s.m, s.n, s.k, A, s.k, B, s.n, C, s.n, retune);
  }

  static void check_runs(Variant v, const registry::Work& w) {
    if ((v == Variant::naive || v == Variant::coalesced) && w.flops > kNaiveMaxFlops)
      throw std::invalid_argument("naive rung: too slow for this shape");
  }
  static void run(Variant v, const Shape& s, const float* A, const float* B, float* C,
                  cudaStream_t stream) {
    gemm::sgemm(v, s.m, s.n, s.k, s.alpha, A, s.k, B, s.n, s.beta, C, s.n, stream);
  }
  static double tolerance(int k) { return fp32_tolerance(k); }
  static double element_factor(int k) { return fp32_factor(k); }

  // Pure fp32 (no TF32 tensor cores); error() checks it with the fp32 tolerance.
  static void run_baseline(cublasHandle_t h, const Shape& s, const float* A, const float* B,
                           float* C) {
    const float alpha = s.alpha, beta = s.beta;
    gemm_ladder::check_cublas(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    gemm_ladder::check_cublas(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.m, s.k, &alpha, B,
                                          s.n, A, s.k, &beta, C, s.n),
                              "cublasSgemm");
  }

  // The reference line: cuBLAS on TF32 tensor cores, with its own bounds.
  static bool is_reference(const std::string& variant) { return variant == kTf32Name; }
  static constexpr double kReferenceTolerance = kTf32Tolerance;
  static double reference_factor(int k) { return tf32_factor(k); }
  static void run_reference(cublasHandle_t h, const Shape& s, const float* A, const float* B,
                            float* C) {
    const float alpha = s.alpha, beta = s.beta;
    gemm_ladder::check_cublas(
        cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.m, s.k, &alpha, B, CUDA_R_32F, s.n, A,
                     CUDA_R_32F, s.k, &beta, C, CUDA_R_32F, s.n, CUBLAS_COMPUTE_32F_FAST_TF32,
                     CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx (TF32)");
  }
};

/// The table (gemm_rungs.inc), in rung order.
const std::vector<gemm_ladder::Rung<Variant>>& rungs() {
  static const std::vector<gemm_ladder::Rung<Variant>> r = gemm_ladder::numbered<Variant>({
#define MEMHIER_RUNG(name, launcher, candidate, prediction, technique, source, claim) \
  {Variant::name, 0, technique, source, claim},
#define MEMHIER_BEST(name, technique, source, claim) {Variant::name, 0, technique, source, claim},
#include "memhier/kernels/gemm_rungs.inc"
  });
  return r;
}

}  // namespace

registry::Family gemm_family() {
  registry::Family f;
  f.name = "gemm";
  f.python_name = "gemm";
  f.number_type = model::NumberType::fp32;
  f.bound = registry::Bound::compute;
  f.sets_peak = true;
  // GEMM: the profile shape, and C of 128 MiB over K = 8: operands past L2 (K in the
  // thousands) would have the naive rungs issue billions of warp loads, beyond the replay's
  // budget without sampling; C past L2 is the write-back traffic every GEMM has.
  f.comparison_shapes = {"257x255x129", "8192x4096x8"};
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
  gemm_ladder::register_ladder<Fp32>(f, rungs());
  registry::Variant tf32;
  tf32.name = kTf32Name;
  tf32.rung = kTf32Rung;
  tf32.technique =
      "cuBLAS with TF32 tensor cores: a reference line, not fp32 - its error is larger "
      "(inputs rounded to 10 mantissa bits; tolerance 5e-3 instead of the fp32 bound)";
  tf32.claim = {"002 §GEMM Performance Comparison",
                "the gap to cuBLAS is largely due to tensor core usage"};
  tf32.role = registry::Role::reference;
  f.variants.push_back(tf32);
  f.bench_shapes = {"4096x4096x4096", "1024x1024x1024", "8192x8192x8192"};
  f.quick_shapes = {"2048x2048x2048"};
  // Squares, LLM projections (prefill M of 2048..8192 against 8192 and 2816 columns), skinny
  // M of 16..512 against 8192x8192 (decode), and extents that are not multiples of 8.
  f.sweep_shapes = {"1024x1024x1024",  "2048x2048x2048",  "4096x4096x4096", "8192x8192x8192",
                    "8192x2816x8192",  "2048x8192x8192",  "6144x6144x2048", "5000x3000x4000",
                    "16x8192x8192",    "64x8192x8192",    "128x8192x8192",  "512x8192x8192",
                    "4099x4097x4093",  "3001x7001x2999"};
  f.test_shapes = {"1x1x1",          "7x7x7",           "1x128x64",        "127x129x65",
                   "129x127x33",     "132x200x36",      "1000x1000x1000",  "4099x4091x4097",
                   "64x64x64:0:1.5", "65x33x17:1.25:0", "33x65x17:0.5:-2", "260x132x40:1:0.5",
                   // Skinny with K long enough to split (the cfg_sk_* rungs decline the rest):
                   // one row, and 17 rows with beta != 0, K prime, an odd ldc.
                   "1x300x1031", "17x301x1031:1.5:-0.5",
                   // Ragged past whole 128x256 tiles (the edges' candidates run only those),
                   // in place and staged.
                   "259x300x72", "259x301x73:1:0.5"};
  // The tail splits decline shapes under a wave of 128x256 tiles (one block an SM): a wave
  // and three more, beta != 0; the staged one with rows that are not 16-byte aligned.
  f.wave_cases = [](const core::DeviceInfo& dev) {
    const std::string rows = std::to_string(128 * (dev.sm_count + 3) - 7);
    return std::vector<registry::WaveCase>{
        {rows + "x250x256:1:0.5", {gemm::to_string(Variant::cfg_tailsplit_128x256x8_8x16)}},
        {rows + "x250x257:1:0.5", {gemm::to_string(Variant::staged_tailsplit)}}};
  };
  // Odd in every extent: partial tiles of every size, lanes off at the edges of A, B and
  // C, and a partial k-tile; beta = 0, so the epilogue does not read C.
  f.profile_shape = "257x255x129";
  // The source text's GEMM table too, and the claims its profile decides.
  f.claims = {claims::gemm_checks, claims::gemm_seed_tables, claims::gemm_profile_checks};
  return f;
}

}  // namespace memhier::kernels
