// The bf16 GEMM ladder's registration: variants in rung order with the source texts' claims,
// the shapes, and its traits for the GEMM ladders' common Case (gemm/ladder.cuh: random bf16
// inputs, float64 reference, cuBLAS bf16 baseline).
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/families.hpp"
#include "kernels/gemm/ladder.cuh"
#include "memhier/core/buffer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/random.hpp"
#include "memhier/core/verify.hpp"
#include "memhier/kernels/gemm_bf16.hpp"
#include "predict.hpp"
#include "variants.hpp"

namespace memhier::kernels {
namespace {

using gemm::detail::Shape;
using gemm_bf16::Variant;

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

/// What the bf16 ladder puts into the GEMM ladders' common Case and registration.
struct Bf16 {
  using Input = __nv_bfloat16;
  using Variant = gemm_bf16::Variant;
  static constexpr const char* kFamily = "gemm_bf16";
  static constexpr const char* kBaseline = "cublasGemmEx bf16";
  static constexpr double kScratchBytes = 4;  // the fp32 draw the inputs are rounded from

  static void fill_inputs(core::DeviceBuffer<Input>& A, core::DeviceBuffer<Input>& B,
                          std::uint32_t seed) {
    core::DeviceBuffer<float> scratch(std::max(A.size(), B.size()));
    fill_bf16(A.data(), A.size(), seed * 3u + 1u, scratch.data());
    fill_bf16(B.data(), B.size(), seed * 3u + 2u, scratch.data());
    MEMHIER_CUDA(cudaDeviceSynchronize());
  }
  static double to_double(Input v) { return static_cast<double>(__bfloat162float(v)); }

  static const std::vector<Variant>& all_variants() { return gemm_bf16::all_variants(); }
  static const char* to_string(Variant v) { return gemm_bf16::to_string(v); }
  static bool parse_variant(const std::string& name, Variant* v) {
    return gemm_bf16::parse_variant(name, v);
  }
  static gemm_bf16::detail::Launcher launcher_for(Variant v) {
    return gemm_bf16::detail::launcher_for(v);
  }
  static Variant shown_for_best() { return gemm_bf16::detail::best_candidates().back(); }
  static bool has_prediction(Variant v) { return gemm_bf16::detail::has_prediction(v); }
  static model::AccessCounts predict(Variant v, int m, int n, int k, float alpha, float beta) {
    return gemm_bf16::detail::predict(v, m, n, k, alpha, beta);
  }
  static void stream(Variant v, int m, int n, int k, float alpha, float beta,
                     model::AccessSink& sink) {
    gemm_bf16::detail::stream(v, m, n, k, alpha, beta, sink);
  }
  static std::string best_config(int m, int n, int k) { return gemm_bf16::best_config(m, n, k); }
  static memhier::tuning::Outcome tune(const Shape& s, const Input* A, const Input* B, float* C,
                                    bool retune) {
    return gemm_bf16::tune(s.m, s.n, s.k, A, s.k, B, s.n, C, s.n, retune);
  }

  static void check_runs(Variant, const registry::Work&) {}  // every rung runs every size
  static void run(Variant v, const Shape& s, const Input* A, const Input* B, float* C,
                  cudaStream_t stream) {
    gemm_bf16::gemm_bf16(v, s.m, s.n, s.k, s.alpha, A, s.k, B, s.n, s.beta, C, s.n, stream);
  }
  static double tolerance(int k) { return l2_tolerance(k); }
  static double element_factor(int k) { return kernels::element_factor(k); }

  // bf16 A and B, fp32 compute and fp32 C, as the ladder's rungs.
  static void run_baseline(cublasHandle_t h, const Shape& s, const Input* A, const Input* B,
                           float* C) {
    gemm_ladder::check_cublas(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    const float alpha = s.alpha, beta = s.beta;
    gemm_ladder::check_cublas(
        cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.m, s.k, &alpha, B, CUDA_R_16BF, s.n, A,
                     CUDA_R_16BF, s.k, &beta, C, CUDA_R_32F, s.n, CUBLAS_COMPUTE_32F,
                     CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx (bf16)");
  }

  // No reference line beside the rungs.
  static bool is_reference(const std::string&) { return false; }
  static constexpr double kReferenceTolerance = 0;
  static double reference_factor(int) { return 0; }
  static void run_reference(cublasHandle_t, const Shape&, const Input*, const Input*, float*) {}
};

/// The table (gemm_bf16_rungs.inc), in rung order: a line's rung number is its place.
const std::vector<gemm_ladder::Rung<Variant>>& rungs() {
  static const std::vector<gemm_ladder::Rung<Variant>> r = gemm_ladder::numbered<Variant>({
#define MEMHIER_RUNG(name, launcher, candidate, prediction, technique, source, claim) \
  {Variant::name, 0, technique, source, claim},
#define MEMHIER_BEST(name, technique, source, claim) {Variant::name, 0, technique, source, claim},
#include "memhier/kernels/gemm_bf16_rungs.inc"
  });
  return r;
}

}  // namespace

registry::Family gemm_bf16_family() {
  registry::Family f;
  f.name = "gemm_bf16";
  f.python_name = "gemm_bf16";
  f.number_type = model::NumberType::bf16;
  f.bound = registry::Bound::compute;
  f.sets_peak = true;
  // As the SGEMM ladder's: the profile shape, and C of 128 MiB over K = 8 (operands past
  // L2 would have the replay issue billions of warp loads).
  f.comparison_shapes = {"257x255x129", "8192x4096x8"};
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
  gemm_ladder::register_ladder<Bf16>(f, rungs());
  f.bench_shapes = {"4096x4096x4096", "1024x1024x1024", "8192x8192x8192"};
  f.quick_shapes = {"2048x2048x2048"};
  // Squares, LLM projections (prefill M of 2048..8192 against 8192 and 2816 columns), skinny
  // M of 16..512 against 8192x8192 (decode), and extents that are not multiples of 8.
  f.sweep_shapes = {"1024x1024x1024",  "2048x2048x2048",  "4096x4096x4096", "8192x8192x8192",
                    "8192x2816x8192",  "2048x8192x8192",  "6144x6144x2048", "5000x3000x4000",
                    "16x8192x8192",    "64x8192x8192",    "128x8192x8192",  "512x8192x8192",
                    "4099x4097x4093",  "3001x7001x2999"};
  // 1, primes, K = 8, K not a multiple of 16 or of 8 (rows not 16-byte aligned), one past
  // a tile in each extent, and alpha/beta paths.
  f.test_shapes = {"1x1x1",           "7x7x7",           "1x128x64",        "16x16x8",
                   "127x129x65",      "129x127x33",      "132x200x40",      "64x72x24",
                   "257x255x129",     "1000x1000x1000",  "4099x4091x4097",  "64x64x64:0:1.5",
                   "65x33x17:1.25:0", "33x65x17:0.5:-2", "260x132x40:1:0.5"};
  // As the SGEMM ladder's: the tail splits at a wave of 128x256 tiles and three more, the
  // staged one with rows that are not 16-byte aligned; their code is sm_90a's.
  f.wave_cases = [](const core::DeviceInfo& dev) {
    if (dev.cc_major != 9 || dev.cc_minor != 0) return std::vector<registry::WaveCase>{};
    const std::string rows = std::to_string(128 * (dev.sm_count + 3) - 5);
    return std::vector<registry::WaveCase>{
        {rows + "x72x1000:1:0.5", {gemm_bf16::to_string(Variant::ws_tailsplit_128x256)}},
        {rows + "x72x1001:1:0.5", {gemm_bf16::to_string(Variant::wgmma_staged_tailsplit)}}};
  };
  f.profile_shape = "257x255x129";
  return f;
}

}  // namespace memhier::kernels
