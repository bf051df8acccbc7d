// The public bf16 GEMM API beyond what the family's case calls: every variant right with
// padded leading dimensions and bases off 16-byte alignment (the element-load paths), C's
// padding columns untouched, BLAS semantics for alpha == 0, and the epilogue (a bias, a bf16
// C) in every variant. CPU float64 reference.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../src/kernels/gemm_bf16/variants.hpp"
#include "gpu_test_util.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/timing.hpp"
#include "memhier/core/verify.hpp"
#include "memhier/kernels/gemm_bf16.hpp"

namespace memhier::testing {
namespace {

using gemm_bf16::Variant;

struct Problem {
  int m, n, k, lda, ldb, ldc, offset;  // offset: elements from each buffer's aligned start
  float alpha, beta;
};

constexpr float kSentinel = 12345.f;

/// Checks each element of C (q's layout) against a float64 reference from the host's A, B and
/// C before the call, within the family's bound ((ceil(K/16) 2^-22 + 2^-23) x the magnitude
/// sum), and that the padding columns of C keep their sentinel.
void expect_c(const Problem& q, const std::vector<__nv_bfloat16>& a,
              const std::vector<__nv_bfloat16>& b, const std::vector<float>& c0,
              const std::vector<float>& c) {
  const double factor = ((q.k + 15) / 16) * 0x1p-22 + 2 * core::kFp32Unit;
  int bad = 0;
  for (int i = 0; i < q.m && bad < 5; ++i)
    for (int j = 0; j < q.ldc && bad < 5; ++j) {
      const std::size_t o = q.offset + static_cast<std::size_t>(i) * q.ldc + j;
      if (j >= q.n) {
        if (c[o] != kSentinel)
          ++bad, ADD_FAILURE() << "padding C[" << i << "][" << j << "] written";
        continue;
      }
      double acc = 0, mag = 0;
      if (q.alpha != 0.f)
        for (int p = 0; p < q.k; ++p) {
          const double ab = static_cast<double>(__bfloat162float(
                                a[q.offset + static_cast<std::size_t>(i) * q.lda + p])) *
                            __bfloat162float(b[q.offset + static_cast<std::size_t>(p) * q.ldb + j]);
          acc += ab;
          mag += std::fabs(ab);
        }
      const double ref = q.alpha * acc + q.beta * static_cast<double>(c0[o]);
      const double bound = factor * (std::fabs(q.alpha) * mag + std::fabs(q.beta * c0[o]));
      if (!(std::fabs(c[o] - ref) <= bound))
        ++bad, ADD_FAILURE() << "C[" << i << "][" << j << "] = " << c[o] << ", want " << ref
                             << " within " << bound;
    }
}

/// Runs `v` on `q` with random bf16 A and B and random C, then expect_c.
void check(Variant v, const Problem& q) {
  SCOPED_TRACE(std::string(gemm_bf16::to_string(v)) + " " + std::to_string(q.m) + "x" +
               std::to_string(q.n) + "x" + std::to_string(q.k) + " offset " +
               std::to_string(q.offset));
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  const std::size_t a_n = static_cast<std::size_t>(q.m) * q.lda + q.offset;
  const std::size_t b_n = static_cast<std::size_t>(q.k) * q.ldb + q.offset;
  const std::size_t c_n = static_cast<std::size_t>(q.m) * q.ldc + q.offset;
  std::vector<__nv_bfloat16> a(a_n), b(b_n);
  for (auto& x : a) x = __float2bfloat16_rn(u(rng));
  for (auto& x : b) x = __float2bfloat16_rn(u(rng));
  std::vector<float> c0(c_n, kSentinel);
  for (int i = 0; i < q.m; ++i)
    for (int j = 0; j < q.n; ++j) c0[q.offset + static_cast<std::size_t>(i) * q.ldc + j] = u(rng);
  core::DeviceBuffer<__nv_bfloat16> da(a_n), db(b_n);
  core::DeviceBuffer<float> dc(c_n);
  da.upload(a);
  db.upload(b);
  dc.upload(c0);
  gemm_bf16::gemm_bf16(v, q.m, q.n, q.k, q.alpha, da.data() + q.offset, q.lda, db.data() + q.offset,
                       q.ldb, q.beta, dc.data() + q.offset, q.ldc);
  MEMHIER_CUDA(cudaDeviceSynchronize());
  expect_c(q, a, b, c0, dc.download());
}

/// Whether `v` may decline `q` (invalid_argument): the TMA rungs, where TMA cannot describe the
/// operands (16-byte row pitches and bases), wgmma_staged where nothing needs staging (leading
/// dimensions multiples of 64, 128-byte bases), and the tail splits, which decline every shape
/// under a wave of tiles (all of these: TailSplitRightPastTheLastWave runs them). Every other
/// rung and shape must run.
bool may_decline(Variant v, const Problem& q) {
  const bool tma_able = q.lda % 8 == 0 && q.ldb % 8 == 0 && q.offset % 8 == 0;
  const std::string name = gemm_bf16::to_string(v);
  if (name.find("tailsplit") != std::string::npos) return true;
  const bool hopper = v == Variant::wgmma_tma || v == Variant::warp_specialized ||
                      name.rfind("ws_", 0) == 0 || name.rfind("swapab_", 0) == 0;
  if (v == Variant::wgmma_staged)  // nothing to stage: 128-byte rows and bases
    return q.lda % 64 == 0 && q.ldb % 64 == 0 && q.offset % 64 == 0;
  return hopper && !tma_able;
}

TEST(GemmBf16Api, PaddedLeadingDimensionsAndMisalignedBases) {
  MEMHIER_REQUIRE_GPU(dev);
  const std::vector<Problem> problems = {
      {130, 136, 72, 80, 144, 140, 0, 1.f, 0.f},     // padded, 16-byte rows (ld % 8 == 0)
      {67, 45, 37, 41, 53, 47, 1, 1.25f, 0.f},       // odd ld, bases 2 bytes off
      {129, 131, 40, 48, 136, 131, 3, 0.5f, -1.5f},  // 16-byte ld but bases off: element loads
      // Rows longer than the staging copy's 2048-unit span, every shift of a row start.
      {16, 2100, 2090, 2093, 2107, 2100, 1, 1.f, 0.5f},
  };
  for (Variant v : gemm_bf16::all_variants())
    for (const Problem& q : problems) {
      try {
        check(v, q);
      } catch (const std::invalid_argument& e) {
        EXPECT_TRUE(may_decline(v, q)) << gemm_bf16::to_string(v) << ": " << e.what();
      }
    }
}

TEST(GemmBf16Api, AlphaZeroScalesCWithoutReadingAOrB) {
  MEMHIER_REQUIRE_GPU(dev);
  check(Variant::best, {33, 65, 17, 17, 65, 70, 0, 0.f, 2.f});
  check(Variant::mma_pipelined, {33, 65, 17, 17, 65, 65, 0, 0.f, 0.f});
}

/// A problem's random bf16 A and B (seed 7) and, per element of C, the float64 sum of the
/// products and of their magnitudes: one reference for every variant and epilogue.
struct Operands {
  std::vector<__nv_bfloat16> a, b;
  std::vector<double> acc, mag;  // m x n, row-major
  core::DeviceBuffer<__nv_bfloat16> da, db;

  explicit Operands(const Problem& q)
      : a(static_cast<std::size_t>(q.m) * q.lda + q.offset),
        b(static_cast<std::size_t>(q.k) * q.ldb + q.offset),
        acc(static_cast<std::size_t>(q.m) * q.n),
        mag(acc.size()),
        da(a.size()),
        db(b.size()) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (auto& x : a) x = __float2bfloat16_rn(u(rng));
    for (auto& x : b) x = __float2bfloat16_rn(u(rng));
    for (int i = 0; i < q.m; ++i)
      for (int p = 0; p < q.k; ++p) {
        const double ai = __bfloat162float(a[q.offset + static_cast<std::size_t>(i) * q.lda + p]);
        const __nv_bfloat16* brow = b.data() + q.offset + static_cast<std::size_t>(p) * q.ldb;
        double* out = acc.data() + static_cast<std::size_t>(i) * q.n;
        double* out_mag = mag.data() + static_cast<std::size_t>(i) * q.n;
        for (int j = 0; j < q.n; ++j) {
          const double ab = ai * __bfloat162float(brow[j]);
          out[j] += ab;
          out_mag[j] += std::fabs(ab);
        }
      }
    da.upload(a);
    db.upload(b);
  }
};

/// What an epilogue test varies: a bias and C's type.
struct Epi {
  bool bias;
  bool bf16;
};

std::string epi_name(Epi e) {
  return std::string(e.bf16 ? "bf16 C" : "fp32 C") + (e.bias ? " + bias" : "");
}

/// Runs `v` on `q` with epilogue `e` and checks every element of C against float64:
/// alpha sum(a b) + beta c0 + bias[j] within the family's bound (the bias's magnitude in it),
/// and for a bf16 C that bound plus the rounding of the stored value (2^-8 of it). C is
/// NaN-poisoned where beta == 0 (a read would show), random (bf16-exact for a bf16 C)
/// otherwise; its padding columns must keep their sentinel. Returns false where `v` declined.
bool check_epilogue(Variant v, const Problem& q, const Operands& ops, Epi e) {
  SCOPED_TRACE(std::string(gemm_bf16::to_string(v)) + " " + std::to_string(q.m) + "x" +
               std::to_string(q.n) + "x" + std::to_string(q.k) + " offset " +
               std::to_string(q.offset) + " " + epi_name(e));
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  const std::size_t c_n = static_cast<std::size_t>(q.m) * q.ldc + q.offset;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> c0(c_n, kSentinel);
  for (int i = 0; i < q.m; ++i)
    for (int j = 0; j < q.n; ++j) {
      const float x = q.beta == 0.f ? nan : u(rng);
      c0[q.offset + static_cast<std::size_t>(i) * q.ldc + j] =
          e.bf16 ? __bfloat162float(__float2bfloat16_rn(x)) : x;
    }
  std::vector<float> bias(static_cast<std::size_t>(q.n));
  for (auto& x : bias) x = 4.f * u(rng);
  core::DeviceBuffer<float> dbias(bias.size());
  dbias.upload(bias);
  const gemm_bf16::Epilogue epilogue{e.bias ? dbias.data() : nullptr};
  const __nv_bfloat16* a = ops.da.data() + q.offset;
  const __nv_bfloat16* b = ops.db.data() + q.offset;
  // C in its type T (float or bf16), holding c0 before the call; returned as float.
  const auto run = [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> h(c_n);
    for (std::size_t i = 0; i < c_n; ++i) h[i] = static_cast<T>(c0[i]);
    core::DeviceBuffer<T> dc(c_n);
    dc.upload(h);
    gemm_bf16::gemm_bf16(v, q.m, q.n, q.k, q.alpha, a, q.lda, b, q.ldb, q.beta,
                         dc.data() + q.offset, q.ldc, epilogue);
    MEMHIER_CUDA(cudaDeviceSynchronize());
    h = dc.download();
    return std::vector<float>(h.begin(), h.end());
  };
  std::vector<float> c;
  try {
    c = e.bf16 ? run(__nv_bfloat16{}) : run(0.f);
  } catch (const std::invalid_argument& x) {
    EXPECT_TRUE(may_decline(v, q)) << x.what();
    return false;
  }
  const double factor = ((q.k + 15) / 16) * 0x1p-22 + 3 * core::kFp32Unit;
  const float sentinel = e.bf16 ? __bfloat162float(__float2bfloat16_rn(kSentinel)) : kSentinel;
  int bad = 0;
  for (int i = 0; i < q.m && bad < 5; ++i)
    for (int j = 0; j < q.ldc && bad < 5; ++j) {
      const std::size_t o = q.offset + static_cast<std::size_t>(i) * q.ldc + j;
      if (j >= q.n) {
        if (c[o] != sentinel) ++bad, ADD_FAILURE() << "padding C[" << i << "][" << j << "] written";
        continue;
      }
      const std::size_t r = static_cast<std::size_t>(i) * q.n + j;
      const double old = q.beta == 0.f ? 0.0 : static_cast<double>(c0[o]);
      const double bj = e.bias ? bias[j] : 0.0;
      const double ref = q.alpha * ops.acc[r] + q.beta * old + bj;
      double bound =
          factor * (std::fabs(q.alpha) * ops.mag[r] + std::fabs(q.beta * old) + std::fabs(bj));
      if (e.bf16) bound += 0x1p-8 * (std::fabs(ref) + bound);
      if (!(std::fabs(c[o] - ref) <= bound))
        ++bad, ADD_FAILURE() << "C[" << i << "][" << j << "] = " << c[o] << ", want " << ref
                             << " within " << bound;
    }
  return true;
}

// Every variant with each epilogue: padded and odd layouts, a shape the split-K candidates
// split, and one whose fp32 C the warp-specialized rungs would store by TMA (the epilogue must
// take the other path there), with beta zero (C poisoned) and not.
TEST(GemmBf16Api, EveryVariantAddsTheBiasAndStoresBf16) {
  MEMHIER_REQUIRE_GPU(dev);
  const std::vector<Problem> problems = {
      {130, 136, 72, 80, 144, 140, 0, 1.f, 0.f},     // padded, 16-byte rows
      {67, 45, 37, 41, 53, 47, 1, 1.25f, 0.75f},     // odd ld, bases 2 bytes off
      {64, 256, 1024, 1024, 256, 256, 0, 1.f, 0.f},  // skinny: the split-K candidates split
      {256, 512, 256, 256, 512, 512, 0, 0.5f, 0.f},  // dense: the TMA store's case in fp32
      {129, 131, 40, 48, 136, 131, 3, 0.5f, -1.5f},  // 16-byte ld, bases off: element loads
  };
  const Epi epilogues[] = {{true, false}, {false, true}, {true, true}};
  for (const Problem& q : problems) {
    const Operands ops(q);
    for (Variant v : gemm_bf16::all_variants())
      for (Epi e : epilogues) check_epilogue(v, q, ops, e);
  }
}

// alpha == 0 (A and B unread): C = beta * C + bias, into either type.
TEST(GemmBf16Api, AlphaZeroKeepsTheEpilogue) {
  MEMHIER_REQUIRE_GPU(dev);
  for (const Problem& q : {Problem{33, 65, 17, 17, 65, 70, 0, 0.f, 2.f},
                           Problem{33, 65, 17, 17, 65, 65, 0, 0.f, 0.f}}) {
    const Operands ops(q);
    for (Epi e : {Epi{true, false}, Epi{true, true}, Epi{false, true}})
      EXPECT_TRUE(check_epilogue(Variant::best, q, ops, e));
  }
}

TEST(GemmBf16Api, MisalignedEpilogueIsInvalidArgument) {
  const auto* a = reinterpret_cast<const __nv_bfloat16*>(std::uintptr_t{4096});
  auto* c16 = reinterpret_cast<__nv_bfloat16*>(std::uintptr_t{8193});  // odd: not a bf16
  auto* c32 = reinterpret_cast<float*>(std::uintptr_t{8194});          // not 4-byte aligned
  const float* bias = reinterpret_cast<const float*>(std::uintptr_t{4098});
  float* c = reinterpret_cast<float*>(std::uintptr_t{8192});
  for (Variant v : {Variant::mma_pipelined, Variant::best}) {
    EXPECT_THROW(gemm_bf16::gemm_bf16(v, 8, 8, 8, 1.f, a, 8, a, 8, 0.f, c16, 8),
                 std::invalid_argument);
    EXPECT_THROW(gemm_bf16::gemm_bf16(v, 8, 8, 8, 1.f, a, 8, a, 8, 0.f, c32, 8, {}),
                 std::invalid_argument);
    EXPECT_THROW(gemm_bf16::gemm_bf16(v, 8, 8, 8, 1.f, a, 8, a, 8, 0.f, c, 8, {bias}),
                 std::invalid_argument);
    EXPECT_THROW(gemm_bf16::gemm_bf16(v, 8, 8, 8, 1.f, a, 8, a, 8, 0.f,
                                      static_cast<__nv_bfloat16*>(nullptr), 8),
                 std::invalid_argument);
  }
}

/// cuBLASLt's fused bias epilogue into a bf16 C (row-major C = A B + bias, as the column-major
/// C^T = B^T A^T; the bias is bf16, cuBLASLt's type for a bf16 D): the vendor's answer to the
/// same call.
class LtBiasGemm {
 public:
  LtBiasGemm(int m, int n, int k, const __nv_bfloat16* a, const __nv_bfloat16* b,
             const __nv_bfloat16* bias, __nv_bfloat16* c)
      : a_(a), b_(b), c_(c), workspace_(kWorkspace / 4) {
    check(cublasLtCreate(&lt_), "cublasLtCreate");
    check(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "MatmulDescCreate");
    const cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_BIAS;
    check(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi),
          "epilogue");
    check(
        cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias),
        "bias pointer");
    check(cublasLtMatrixLayoutCreate(&lb_, CUDA_R_16BF, n, k, n), "layout B");
    check(cublasLtMatrixLayoutCreate(&la_, CUDA_R_16BF, k, m, k), "layout A");
    check(cublasLtMatrixLayoutCreate(&lc_, CUDA_R_16BF, n, m, n), "layout C");
    cublasLtMatmulPreference_t pref = nullptr;
    check(cublasLtMatmulPreferenceCreate(&pref), "preference");
    const std::size_t ws = kWorkspace;
    check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                               sizeof ws),
          "workspace");
    int found = 0;
    check(
        cublasLtMatmulAlgoGetHeuristic(lt_, op_, lb_, la_, lc_, lc_, pref, 1, &heuristic_, &found),
        "heuristic");
    cublasLtMatmulPreferenceDestroy(pref);
    if (found < 1) throw std::runtime_error("cuBLASLt has no bias epilogue for this problem");
  }
  ~LtBiasGemm() {
    cublasLtMatrixLayoutDestroy(lc_);
    cublasLtMatrixLayoutDestroy(la_);
    cublasLtMatrixLayoutDestroy(lb_);
    cublasLtMatmulDescDestroy(op_);
    cublasLtDestroy(lt_);
  }
  LtBiasGemm(const LtBiasGemm&) = delete;
  LtBiasGemm& operator=(const LtBiasGemm&) = delete;

  void run(cudaStream_t s) {
    const float alpha = 1.f, beta = 0.f;
    check(cublasLtMatmul(lt_, op_, &alpha, b_, lb_, a_, la_, &beta, c_, lc_, c_, lc_,
                         &heuristic_.algo, workspace_.data(), kWorkspace, s),
          "cublasLtMatmul");
  }

 private:
  static constexpr std::size_t kWorkspace = 32u << 20;
  static void check(cublasStatus_t st, const char* what) {
    if (st != CUBLAS_STATUS_SUCCESS)
      throw std::runtime_error(std::string("cuBLASLt ") + what + " failed: " + std::to_string(st));
  }
  const __nv_bfloat16 *a_, *b_;
  __nv_bfloat16* c_;
  core::DeviceBuffer<float> workspace_;
  cublasLtHandle_t lt_ = nullptr;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t la_ = nullptr, lb_ = nullptr, lc_ = nullptr;
  cublasLtMatmulHeuristicResult_t heuristic_{};
};

// What the fused epilogue costs, printed (never asserted): best into a bf16 C with a bias
// against best's plain fp32 C and cuBLASLt's bias epilogue into a bf16 C, paired, at a square,
// an LLM projection and a decode shape. Each is tuned (or its choice read) before timing.
TEST(GemmBf16Api, EpilogueSpeedBesideCublasLt) {
  MEMHIER_REQUIRE_GPU(dev);
  for (const auto& [m, n, k] :
       {std::array<int, 3>{4096, 4096, 4096}, std::array<int, 3>{8192, 2816, 8192},
        std::array<int, 3>{16, 8192, 8192}}) {
    const std::size_t mk = static_cast<std::size_t>(m) * k, kn = static_cast<std::size_t>(k) * n,
                      mn = static_cast<std::size_t>(m) * n;
    core::DeviceBuffer<__nv_bfloat16> a(mk), b(kn), c16(mn), c16_lt(mn), bias16(n);
    core::DeviceBuffer<float> c32(mn), bias(n);
    a.upload(random_bf16(mk, 1));
    b.upload(random_bf16(kn, 2));
    const std::vector<__nv_bfloat16> bias_h = random_bf16(n, 3);
    bias16.upload(bias_h);
    std::vector<float> bias_f(n);
    for (int j = 0; j < n; ++j) bias_f[j] = __bfloat162float(bias_h[j]);
    bias.upload(bias_f);
    const gemm_bf16::Epilogue epi{bias.data()};
    LtBiasGemm lt(m, n, k, a.data(), b.data(), bias16.data(), c16_lt.data());
    std::vector<std::function<void(cudaStream_t)>> launches = {
        [&](cudaStream_t s) {
          gemm_bf16::gemm_bf16(Variant::best, m, n, k, 1.f, a.data(), k, b.data(), n, 0.f,
                               c32.data(), n, s);
        },
        [&](cudaStream_t s) {
          gemm_bf16::gemm_bf16(Variant::best, m, n, k, 1.f, a.data(), k, b.data(), n, 0.f,
                               c16.data(), n, epi, s);
        },
        [&](cudaStream_t s) { lt.run(s); },
    };
    for (auto& f : launches) f(nullptr);  // best tunes each epilogue for itself here
    MEMHIER_CUDA(cudaDeviceSynchronize());
    core::TimingOptions opt;
    opt.name = "gemm_bf16_epilogue";
    opt.warmup = 5;
    opt.min_reps = 20;
    opt.min_total_ms = 200.0;
    const core::PairedTiming t = core::time_paired(launches, opt);
    const double flops = 2.0 * m * static_cast<double>(n) * k;
    const auto tflops = [&](int i) { return flops / (t.each[i].median_ms * 1e-3) / 1e12; };
    const core::RatioStats vs_lt = t.ratio(2, 1), vs_plain = t.ratio(0, 1);
    std::printf(
        "[ figures  ] gemm_bf16 %dx%dx%d on %s: best bf16 C + bias %.1f TFLOP/s (%s), %.3fx "
        "cuBLASLt's bias epilogue (%.1f; p10 %.3f, p90 %.3f), %.3fx best's fp32 C (%.1f, %s)\n",
        m, n, k, dev->name.c_str(), tflops(1),
        gemm_bf16::best_config(m, n, k, a.data(), k, b.data(), n, c16.data(), n, epi).c_str(),
        vs_lt.median, tflops(2), vs_lt.p10, vs_lt.p90, vs_plain.median, tflops(0),
        gemm_bf16::best_config(m, n, k).c_str());
  }
}

// best tunes once per card and shape: afterwards best_config names the candidate it runs, one
// the table marks, and the answer is right.
TEST(GemmBf16Api, BestNamesTheCandidateItTuned) {
  MEMHIER_REQUIRE_GPU(dev);
  check(Variant::best, {512, 520, 256, 256, 520, 520, 0, 1.f, 0.f});
  const std::string chosen = gemm_bf16::best_config(512, 520, 256);
  Variant v = Variant::best;
  ASSERT_TRUE(gemm_bf16::parse_variant(chosen, &v)) << "'" << chosen << "'";
  EXPECT_NE(v, Variant::best);
  const auto& candidates = gemm_bf16::detail::best_candidates();
  EXPECT_NE(std::find(candidates.begin(), candidates.end(), v), candidates.end()) << chosen;
  // The same extents with bases 2 bytes off alignment are another key: not tuned yet.
  const auto* off = reinterpret_cast<const __nv_bfloat16*>(std::uintptr_t{0x7f0000000102});
  EXPECT_EQ(gemm_bf16::best_config(512, 520, 256, off, 256, off, 520,
                                   static_cast<const float*>(nullptr), 520),
            "");
  // Bases of the same alignment class are the tuned key; a bias or a bf16 C are others.
  const auto* al = reinterpret_cast<const __nv_bfloat16*>(std::uintptr_t{0x7f0000001000});
  const auto* c = reinterpret_cast<const float*>(std::uintptr_t{0x7f0000001000});
  EXPECT_EQ(gemm_bf16::best_config(512, 520, 256, al, 256, al, 520, c, 520), chosen);
  EXPECT_EQ(gemm_bf16::best_config(512, 520, 256, al, 256, al, 520, c, 520, {c}), "");
  EXPECT_EQ(gemm_bf16::best_config(512, 520, 256, al, 256, al, 520,
                                   reinterpret_cast<const __nv_bfloat16*>(c), 520),
            "");
}

// The first large shape a process sees no longer decides for the later ones: a call at
// 2048x3072x1536 leaves 4096^3 untuned, and 4096^3 is tuned for itself at its first call;
// a tuned shape costs nothing afterwards, in this process and the next (the cache on disk).
TEST(GemmBf16Api, EachShapeIsTunedForItself) {
  MEMHIER_REQUIRE_GPU(dev);
  const ScopedCacheDir cache("memhier-gemm-bf16-tune");
  gemm_bf16::forget_tuning();
  const int kMax = 4096;
  core::DeviceBuffer<__nv_bfloat16> a(static_cast<std::size_t>(kMax) * kMax);
  core::DeviceBuffer<__nv_bfloat16> b(static_cast<std::size_t>(kMax) * kMax);
  core::DeviceBuffer<float> c(static_cast<std::size_t>(kMax) * kMax);
  MEMHIER_CUDA(cudaMemset(a.data(), 0x3f, a.bytes()));  // bf16 0x3f3f: about 0.75
  MEMHIER_CUDA(cudaMemset(b.data(), 0x3f, b.bytes()));
  const auto tune = [&](int m, int n, int k) {
    return gemm_bf16::tune(m, n, k, a.data(), k, b.data(), n, c.data(), n);
  };

  const memhier::tuning::Outcome first = tune(2048, 3072, 1536);
  EXPECT_TRUE(first.tuned);
  EXPECT_FALSE(first.cached);
  EXPECT_GE(first.cost.timed, 1);
  EXPECT_GT(first.cost.ms, 0.0);
  EXPECT_EQ(gemm_bf16::best_config(4096, 4096, 4096), "");  // one flops class, not one entry

  // `best` itself at the second shape tunes it (and computes C).
  gemm_bf16::gemm_bf16(Variant::best, 4096, 4096, 4096, 1.f, a.data(), 4096, b.data(), 4096, 0.f,
                       c.data(), 4096);
  MEMHIER_CUDA(cudaDeviceSynchronize());
  const std::string second = gemm_bf16::best_config(4096, 4096, 4096);
  EXPECT_FALSE(second.empty());
  const memhier::tuning::Outcome again = tune(4096, 4096, 4096);
  EXPECT_TRUE(again.cached);
  EXPECT_FALSE(again.tuned);
  EXPECT_EQ(again.cost.timed, 0);
  EXPECT_EQ(again.cost.ms, 0.0);
  EXPECT_EQ(again.config, second);
  std::printf(
      "[ figures  ] gemm_bf16 first call at 2048x3072x1536: %.1f ms of tuning, %d of %d "
      "candidates timed, %d launches (%s)\n",
      first.cost.ms, first.cost.timed, first.cost.candidates, first.cost.launches,
      first.config.c_str());

  // The next process: both shapes from the disk, no tuning.
  gemm_bf16::forget_tuning();
  EXPECT_TRUE(tune(2048, 3072, 1536).cached);
  EXPECT_EQ(tune(4096, 4096, 4096).config, second);
  gemm_bf16::forget_tuning();
}

// A split-K kernel captured in a CUDA graph keeps the scratch memory it was captured with:
// a larger problem on the same stream grows the scratch afterwards, and the graph still
// replays right (core::Scratch keeps outgrown memory). Growing during a capture is refused
// with a sentence, before anything is enqueued.
TEST(GemmBf16Api, SplitKernelsReplayInAGraphAfterTheirScratchGrew) {
  MEMHIER_REQUIRE_GPU(dev);
  Variant v = Variant::best;
  ASSERT_TRUE(gemm_bf16::parse_variant("swapab_16x128", &v));
  const int m = 16, n = 1024, k = 4096, big_n = 8192;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<__nv_bfloat16> a(static_cast<std::size_t>(m) * k),
      b(static_cast<std::size_t>(k) * big_n);
  for (auto& x : a) x = __float2bfloat16_rn(u(rng));
  for (auto& x : b) x = __float2bfloat16_rn(u(rng));
  core::DeviceBuffer<__nv_bfloat16> da(a.size()), db(b.size());
  core::DeviceBuffer<float> dc(static_cast<std::size_t>(m) * n),
      dbig(static_cast<std::size_t>(m) * big_n);
  da.upload(a);
  db.upload(b);
  cudaStream_t s = nullptr;
  MEMHIER_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  // B's first n columns, read with leading dimension big_n.
  auto run = [&](int cols, float* c) {
    gemm_bf16::gemm_bf16(v, m, cols, k, 1.f, da.data(), k, db.data(), big_n, 0.f, c, cols, s);
  };
  try {
    run(n, dc.data());  // allocates this stream's scratch for the small problem
  } catch (const std::invalid_argument& e) {
    MEMHIER_CUDA(cudaStreamDestroy(s));
    GTEST_SKIP() << "swapab_16x128 does not run here: " << e.what();
  }
  MEMHIER_CUDA(cudaStreamSynchronize(s));
  cudaGraph_t graph = nullptr;
  MEMHIER_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  run(n, dc.data());
  MEMHIER_CUDA(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec = nullptr;
  MEMHIER_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  // A problem eight times wider cannot grow the scratch inside a capture...
  MEMHIER_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  EXPECT_THROW(run(big_n, dbig.data()), std::invalid_argument);
  cudaGraph_t unused = nullptr;
  MEMHIER_CUDA(cudaStreamEndCapture(s, &unused));
  if (unused) MEMHIER_CUDA(cudaGraphDestroy(unused));
  // ...and grows it outside one; then the first graph replays on the old scratch.
  run(big_n, dbig.data());
  dc.poison(s);
  MEMHIER_CUDA(cudaGraphLaunch(exec, s));
  MEMHIER_CUDA(cudaStreamSynchronize(s));
  // The first graph's problem: B's first n columns (ldb big_n); beta 0, so C's poison is not read.
  expect_c({m, n, k, k, big_n, n, 0, 1.f, 0.f}, a, b,
           std::vector<float>(static_cast<std::size_t>(m) * n, 0.f), dc.download());
  MEMHIER_CUDA(cudaGraphExecDestroy(exec));
  MEMHIER_CUDA(cudaGraphDestroy(graph));
  MEMHIER_CUDA(cudaStreamDestroy(s));
}

}  // namespace
}  // namespace memhier::testing
