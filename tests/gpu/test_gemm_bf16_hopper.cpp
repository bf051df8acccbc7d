// The Hopper rungs of the bf16 GEMM ladder (6: wgmma_tma, 7: warp_specialized, and best's ws_*
// candidates built from rung 7's kernel): right on small
// and odd shapes against a float64 reference of the bf16 inputs, right at 1024^3 and 4096^3
// against cuBLAS, and their speed beside cuBLAS printed (never asserted). Every element is held
// to |C - ref| <= (k + 2) * 2^-23 * (|alpha| sum_k |a||b| + |beta| |C0|): fp32 accumulation
// of k exact bf16 products, with slack for the alpha/beta rounding. Skips without a device of
// compute capability 9.0.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../src/kernels/gemm_bf16/hopper_launch.hpp"
#include "gpu_test_util.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/launch.hpp"
#include "memhier/core/timing.hpp"
#include "memhier/kernels/gemm_preselect.hpp"

namespace memhier::testing {
namespace {

namespace hk = memhier::kernels::gemm_bf16;
using memhier::gemm::tuning::SplitK;
using bf16 = __nv_bfloat16;
using GemmFn = void (*)(int, int, int, float, const bf16*, int, const bf16*, int, float,
                        const hk::COut&, int, cudaStream_t);

struct Rung {
  const char* name;
  GemmFn run;
  hk::HopperKernelInfo (*info)();
  int tile_n;
  int tile_m = 128;
};
const Rung kRungs[] = {
    {"wgmma_tma", &hk::wgmma_tma, &hk::wgmma_tma_info, 256},
#define MEMHIER_WS(name, BN, ...) {#name, &hk::name, &hk::name##_info, BN},
#include "../../src/kernels/gemm_bf16/ws_configs.inc"
#define MEMHIER_SWAP_AB(name, MS, Cols, ...) {#name, &hk::name, &hk::name##_info, Cols, MS},
#include "../../src/kernels/gemm_bf16/swap_configs.inc"
};
constexpr int kRungCount = static_cast<int>(sizeof kRungs / sizeof kRungs[0]);

constexpr double kEps32 = 1.1920928955078125e-07;  // 2^-23
constexpr std::uint16_t kBf16Nan = 0x7FC0;

#define MEMHIER_REQUIRE_HOPPER()                                                        \
  MEMHIER_REQUIRE_GPU(hopper_dev_);                                                     \
  if (hopper_dev_->cc_major != 9 || hopper_dev_->cc_minor != 0)                         \
  GTEST_SKIP() << "the Hopper rungs need compute capability 9.0 (sm_90a); device 0 is " \
               << hopper_dev_->cc_major << "." << hopper_dev_->cc_minor

/// float -> bf16 bits, rounded to nearest even (inputs are finite).
std::uint16_t bf16_bits(float f) {
  std::uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>(u >> 16);
}

/// The value of bf16 bits.
double bf16_value(std::uint16_t h) {
  const std::uint32_t u = static_cast<std::uint32_t>(h) << 16;
  float f = 0;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// A rows x cols bf16 matrix with leading dimension ld: uniform in [-1, 1) (never exactly 0),
/// the padding columns NaN, so a read past the row shows in C.
std::vector<std::uint16_t> random_bf16(int rows, int cols, int ld, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<std::uint16_t> m(static_cast<std::size_t>(rows) * ld, kBf16Nan);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      float v = dist(rng);
      if (v == 0.f) v = 0.5f;
      m[static_cast<std::size_t>(r) * ld + c] = bf16_bits(v);
    }
  return m;
}

int round_up8(int x) {
  return (x + 7) / 8 * 8;
}

const bf16* as_bf16(const core::DeviceBuffer<std::uint16_t>& b) {
  return reinterpret_cast<const bf16*>(b.data());
}

/// One problem on the device: A, B, C (and C0, C's contents before the call) with their
/// leading dimensions.
struct Problem {
  int m, n, k, lda, ldb, ldc;
  std::vector<std::uint16_t> a, b;
  std::vector<float> c0;
  core::DeviceBuffer<std::uint16_t> da, db;
  core::DeviceBuffer<float> dc;

  /// lda and ldb: k and n rounded up to 8, plus `pad` (NaN-filled) elements.
  Problem(int m_, int n_, int k_, int ldc_, int pad, std::uint32_t seed)
      : m(m_), n(n_), k(k_), lda(round_up8(k_) + pad), ldb(round_up8(n_) + pad), ldc(ldc_) {
    std::mt19937 rng(seed);
    a = random_bf16(m, k, lda, rng);
    b = random_bf16(k, n, ldb, rng);
    da = core::DeviceBuffer<std::uint16_t>(a.size());
    db = core::DeviceBuffer<std::uint16_t>(b.size());
    dc = core::DeviceBuffer<float>(static_cast<std::size_t>(m) * ldc);
    da.upload(a);
    db.upload(b);
  }
  /// C0 for beta == 0: all NaN (poison), so every element must be written and C never read.
  /// Otherwise random in [-1, 1), padding NaN. Uploads it.
  void reset_c(bool poison, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    c0.assign(static_cast<std::size_t>(m) * ldc, std::nanf(""));
    if (!poison)
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) c0[static_cast<std::size_t>(i) * ldc + j] = dist(rng);
    dc.upload(c0);
  }
};

/// Compares `got` (m x ldc) with alpha * A * B + beta * C0 in float64, rows `rows` (all when
/// empty); checks that C's padding columns kept their bits. Returns the failures, at most 5.
std::vector<std::string> compare_with_reference(const Problem& p, float alpha, float beta,
                                                const std::vector<float>& got,
                                                std::vector<int> rows = {}) {
  std::vector<std::string> failures;
  int bad = 0;
  if (rows.empty())
    for (int i = 0; i < p.m; ++i) rows.push_back(i);
  std::vector<double> acc(static_cast<std::size_t>(p.n)), mag(static_cast<std::size_t>(p.n));
  for (int i : rows) {
    std::fill(acc.begin(), acc.end(), 0.0);
    std::fill(mag.begin(), mag.end(), 0.0);
    for (int kk = 0; kk < p.k; ++kk) {
      const double av = bf16_value(p.a[static_cast<std::size_t>(i) * p.lda + kk]);
      const std::uint16_t* brow = &p.b[static_cast<std::size_t>(kk) * p.ldb];
      for (int j = 0; j < p.n; ++j) {
        const double bv = bf16_value(brow[j]);
        acc[j] += av * bv;
        mag[j] += std::fabs(av * bv);
      }
    }
    for (int j = 0; j < p.ldc; ++j) {
      const std::size_t at = static_cast<std::size_t>(i) * p.ldc + j;
      const float g = got[at];
      if (j >= p.n) {  // padding: untouched, bit for bit
        if (std::memcmp(&g, &p.c0[at], sizeof g) != 0 && ++bad <= 5)
          failures.push_back("C(" + std::to_string(i) + ", " + std::to_string(j) +
                             ") past n was written");
        continue;
      }
      const double c0 = beta != 0.f ? static_cast<double>(p.c0[at]) : 0.0;
      const double want = alpha * acc[j] + beta * c0;
      const double bound =
          (p.k + 2) * kEps32 * (std::fabs(alpha) * mag[j] + std::fabs(beta) * std::fabs(c0)) +
          1e-30;
      if (!(std::fabs(g - want) <= bound) && ++bad <= 5)
        failures.push_back("C(" + std::to_string(i) + ", " + std::to_string(j) +
                           ") = " + std::to_string(g) + ", want " + std::to_string(want) + " +- " +
                           std::to_string(bound));
    }
  }
  if (bad > 5) failures.push_back(std::to_string(bad) + " elements wrong in all");
  return failures;
}

TEST(GemmBf16Hopper, UnsupportedProblemsSayWhy) {
  // Argument checks come before the device query: these hold on any machine.
  EXPECT_NE(hk::hopper_gemm_unsupported(0, 8, 8, 8, 8, 8), "");
  EXPECT_NE(hk::hopper_gemm_unsupported(8, 8, 8, 4, 8, 8), "");     // lda < k
  EXPECT_NE(hk::hopper_gemm_unsupported(8, 8, 12, 12, 8, 8), "");   // lda not a multiple of 8
  EXPECT_NE(hk::hopper_gemm_unsupported(8, 12, 8, 8, 12, 12), "");  // ldb not a multiple of 8
  EXPECT_NE(hk::hopper_gemm_unsupported(8, 8, 8, 8, 8, 7), "");     // ldc < n
  const void* aligned = reinterpret_cast<const void*>(std::uintptr_t{4096});
  const void* off8 = reinterpret_cast<const void*>(std::uintptr_t{4104});
  float* c = reinterpret_cast<float*>(std::uintptr_t{4096});
  EXPECT_NE(hk::hopper_gemm_unsupported(8, 8, 8, 8, 8, 8, off8, aligned, c), "");
  EXPECT_NE(hk::hopper_gemm_unsupported(8, 8, 8, 8, 8, 8, aligned, off8, c), "");
  EXPECT_NE(hk::hopper_gemm_unsupported(8, 8, 8, 8, 8, 8, aligned, nullptr, c), "");
  // An fp32 C needs 4-byte alignment (a bf16 C 2), the bias 4.
  const float* bias_off2 = reinterpret_cast<const float*>(std::uintptr_t{4098});
  EXPECT_NE(hk::hopper_gemm_unsupported(8, 8, 8, 8, 8, 8, aligned, aligned,
                                        hk::COut(reinterpret_cast<float*>(std::uintptr_t{4098}))),
            "");
  EXPECT_NE(hk::hopper_gemm_unsupported(8, 8, 8, 8, 8, 8, aligned, aligned,
                                        hk::COut(reinterpret_cast<bf16*>(std::uintptr_t{4097}))),
            "");
  EXPECT_NE(hk::hopper_gemm_unsupported(8, 8, 8, 8, 8, 8, aligned, aligned, hk::COut(c, bias_off2)),
            "");
  const bf16* fa = reinterpret_cast<const bf16*>(off8);
  const bf16* fb = reinterpret_cast<const bf16*>(aligned);
  float* fc = reinterpret_cast<float*>(std::uintptr_t{8192});
  for (const Rung& r : kRungs)
    EXPECT_THROW(r.run(8, 8, 8, 1.f, fa, 8, fb, 8, 0.f, fc, 8, nullptr), std::invalid_argument)
        << r.name;

  MEMHIER_REQUIRE_GPU(dev);
  const std::string why = hk::hopper_gemm_unsupported(64, 128, 64, 64, 128, 128);
  if (dev->cc_major == 9 && dev->cc_minor == 0)
    EXPECT_EQ(why, "");
  else
    EXPECT_NE(why.find("9.0"), std::string::npos) << why;
}

/// Whether rung r runs m x n x k on this device: every rung does, but a split-K rung only where
/// the tuner's model splits it (its tiles fill at most half this card's resident blocks, K has
/// two 64-deep blocks) and a tail-split rung only where the model splits its last wave;
/// elsewhere they decline. Asked after a run attempt, which opts the kernel's shared memory in
/// (the occupancy is 0 before).
bool runs_here(const Rung& r, int m, int n, int k) {
  const hk::HopperKernelInfo info = r.info();
  if (info.split_k == SplitK::never || info.split_k == SplitK::where_idle) return true;
  const int resident = core::resident_grid(info.symbol, info.block_threads,
                                           static_cast<std::size_t>(info.dynamic_smem));
  const long long tiles =
      static_cast<long long>((m + r.tile_m - 1) / r.tile_m) * ((n + r.tile_n - 1) / r.tile_n);
  const long long k_blocks = (k + 63) / 64;
  if (info.split_k == SplitK::tail)
    return memhier::gemm::tuning::tail_split_plan(tiles, resident, k_blocks,
                                                  info.min_split_blocks, info.split_rounds)
               .splits > 1;
  return memhier::gemm::tuning::split_count(tiles, resident, k_blocks, info.min_split_blocks) > 1;
}

/// Runs rung r; a decline is right only where runs_here says so, and then ends the case.
bool run_or_decline(const Rung& r, int m, int n, int k, float alpha, const bf16* a, int lda,
                    const bf16* b, int ldb, float beta, float* c, int ldc) {
  try {
    r.run(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, nullptr);
  } catch (const std::invalid_argument& e) {
    EXPECT_FALSE(runs_here(r, m, n, k))
        << r.name << " " << m << "x" << n << "x" << k << " declined: " << e.what();
    return false;
  }
  EXPECT_TRUE(runs_here(r, m, n, k))
      << r.name << " ran " << m << "x" << n << "x" << k << ", which it should decline";
  return true;
}

/// One test per rung, so that a failing (or trapping) rung can be run alone:
/// --gtest_filter='*GemmBf16HopperRung*warp_specialized*'.
class GemmBf16HopperRung : public ::testing::TestWithParam<int> {
 protected:
  const Rung& rung() const { return kRungs[GetParam()]; }
};

TEST_P(GemmBf16HopperRung, MatchesFloat64OnSmallAndOddShapes) {
  MEMHIER_REQUIRE_HOPPER();
  const Rung& r = rung();
  struct Shape {
    int m, n, k;
  };
  // Tile-sized, two tiles, one past a tile (257 = 2 * 128 + 1, n = 129, k = 72: a k-block
  // tail), one row of 8 x 8, a long k (1000 = 15 * 64 + 40), a grid with a lone last row tile
  // (rung 7's cluster partner then reads zeros and stores nothing) and k = 40 (not a multiple of
  // 16), and k = 37 (not a multiple of 8: the row's last elements come from TMA's bound); a
  // skinny 16-row one the split-K rungs cut 16 ways (k 3000: splits of 2 or 3 k-blocks).
  const Shape shapes[] = {{64, 128, 64},    {128, 256, 128}, {257, 129, 72}, {1, 8, 8},
                          {300, 200, 1000}, {515, 1030, 40}, {130, 96, 37},  {16, 1000, 3000}};
  std::uint32_t seed = 1;
  for (const Shape& s : shapes) {
    for (int variant = 0; variant < 2; ++variant) {
      // beta == 0 with a NaN-poisoned C, ldc = n and lda, ldb = k, n rounded up to 8; beta != 0
      // with negative alpha, ldc = n + 1 (odd when n is even: the scalar store path) and 8 more
      // NaN columns in A and B (a read past k or n would show).
      const bool poison = variant == 0;
      const float alpha = poison ? 1.f : -0.75f, beta = poison ? 0.f : 0.5f;
      Problem p(s.m, s.n, s.k, poison ? s.n : s.n + 1, poison ? 0 : 8, seed++);
      p.reset_c(poison, seed++);
      if (!run_or_decline(r, p.m, p.n, p.k, alpha, as_bf16(p.da), p.lda, as_bf16(p.db), p.ldb, beta,
                          p.dc.data(), p.ldc))
        continue;
      MEMHIER_CUDA(cudaDeviceSynchronize());
      const std::vector<float> got = p.dc.download();
      for (const std::string& f : compare_with_reference(p, alpha, beta, got))
        ADD_FAILURE() << r.name << " " << s.m << "x" << s.n << "x" << s.k << " alpha " << alpha
                      << " beta " << beta << " lda " << p.lda << " ldb " << p.ldb << " ldc "
                      << p.ldc << ": " << f;
      // The splits' partials are added in split order, whichever finished last: a second run
      // gives the same bits.
      if (r.info().split_k != SplitK::never) {
        p.dc.upload(p.c0);
        r.run(p.m, p.n, p.k, alpha, as_bf16(p.da), p.lda, as_bf16(p.db), p.ldb, beta, p.dc.data(),
              p.ldc, nullptr);
        MEMHIER_CUDA(cudaDeviceSynchronize());
        EXPECT_EQ(std::memcmp(got.data(), p.dc.download().data(), got.size() * sizeof(float)), 0)
            << r.name << " " << s.m << "x" << s.n << "x" << s.k << ": two runs differ";
      }
    }
  }
}

void check_cublas(cublasStatus_t st, const char* call) {
  if (st != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(call) + " failed: " + cublasGetStatusString(st));
}

/// A cuBLAS handle for one test.
struct Cublas {
  cublasHandle_t h = nullptr;
  Cublas() { check_cublas(cublasCreate(&h), "cublasCreate"); }
  ~Cublas() { cublasDestroy(h); }
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;

  /// Row-major C = alpha A B + beta C as cuBLAS's column-major C^T = B^T A^T: bf16 in, fp32
  /// compute and out.
  void gemm(int m, int n, int k, float alpha, const bf16* a, int lda, const bf16* b, int ldb,
            float beta, float* c, int ldc, cudaStream_t stream) {
    check_cublas(cublasSetStream(h, stream), "cublasSetStream");
    check_cublas(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b, CUDA_R_16BF, ldb, a,
                              CUDA_R_16BF, lda, &beta, c, CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx");
  }
};

/// |M| of a bf16 matrix (the sign bit cleared, NaN padding kept).
std::vector<std::uint16_t> abs_bf16(std::vector<std::uint16_t> v) {
  for (std::uint16_t& x : v)
    if (x != kBf16Nan) x = static_cast<std::uint16_t>(x & 0x7FFFu);
  return v;
}

TEST_P(GemmBf16HopperRung, MatchesCublasAt1024And4096) {
  MEMHIER_REQUIRE_HOPPER();
  const Rung& r = rung();
  Cublas blas;
  for (int size : {1024, 4096}) {
    Problem p(size, size, size, size, 0, 100u + static_cast<std::uint32_t>(size));
    p.reset_c(true, 7);
    // sum_k |a||b| for every element, on the device: cuBLAS over |A| and |B|.
    core::DeviceBuffer<std::uint16_t> abs_a(p.a.size()), abs_b(p.b.size());
    abs_a.upload(abs_bf16(p.a));
    abs_b.upload(abs_bf16(p.b));
    core::DeviceBuffer<float> dmag(p.dc.size()), dref(p.dc.size());
    blas.gemm(p.m, p.n, p.k, 1.f, as_bf16(abs_a), p.lda, as_bf16(abs_b), p.ldb, 0.f, dmag.data(),
              p.ldc, nullptr);
    blas.gemm(p.m, p.n, p.k, 1.f, as_bf16(p.da), p.lda, as_bf16(p.db), p.ldb, 0.f, dref.data(),
              p.ldc, nullptr);
    MEMHIER_CUDA(cudaDeviceSynchronize());
    const std::vector<float> mag = dmag.download(), ref = dref.download();
    p.dc.poison();
    if (!run_or_decline(r, p.m, p.n, p.k, 1.f, as_bf16(p.da), p.lda, as_bf16(p.db), p.ldb, 0.f,
                        p.dc.data(), p.ldc))
      continue;
    MEMHIER_CUDA(cudaDeviceSynchronize());
    const std::vector<float> got = p.dc.download();
    // Both results lie within the bound of the exact product: they differ by at most twice it.
    int bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double bound = 2.0 * (p.k + 2) * kEps32 * mag[i] + 1e-30;
      if (!(std::fabs(static_cast<double>(got[i]) - ref[i]) <= bound) && ++bad <= 5)
        ADD_FAILURE() << r.name << " " << size << "^3: C(" << i / p.ldc << ", " << i % p.ldc
                      << ") = " << got[i] << ", cuBLAS " << ref[i] << " +- " << bound;
    }
    EXPECT_EQ(bad, 0) << r.name << " " << size << "^3: elements off cuBLAS";
    // And some rows (both tile edges among them) against float64 directly.
    for (const std::string& f :
         compare_with_reference(p, 1.f, 0.f, got, {0, 1, 127, 128, 255, 256, size - 1}))
      ADD_FAILURE() << r.name << " " << size << "^3: " << f;
  }
}

// The tail split at shapes that split on any card: a wave of tiles (from this device's
// resident blocks) and three or four more. Odd m (a partial last row tile), n inside one column
// tile or past it (a partial second), K with a partial last k-block; beta == 0 with C poisoned,
// beta != 0 with an odd ldc and NaN past k and n in A and B; every element against float64, and
// a second run gives the same bits. Under one wave and short K it declines.
TEST(GemmBf16Hopper, TailSplitRightPastTheLastWave) {
  MEMHIER_REQUIRE_HOPPER();
  const Rung* rung = nullptr;
  for (const Rung& r : kRungs)
    if (r.info().split_k == SplitK::tail) rung = &r;
  ASSERT_NE(rung, nullptr);
  const hk::HopperKernelInfo info = rung->info();
  // One run opts the kernel's shared memory in before the occupancy is asked.
  Problem warm(8, 8, 8, 8, 0, 1);
  EXPECT_THROW(rung->run(8, 8, 8, 1.f, as_bf16(warm.da), warm.lda, as_bf16(warm.db), warm.ldb, 0.f,
                         warm.dc.data(), warm.ldc, nullptr),
               std::invalid_argument);
  const int resident = core::resident_grid(info.symbol, info.block_threads,
                                           static_cast<std::size_t>(info.dynamic_smem));
  struct Shape {
    int m, n, k;
  };
  const Shape shapes[] = {{128 * (resident + 3) - 5, 72, 1000},
                          {128 * ((resident + 4) / 2) - 3, 300, 450}};
  std::uint32_t seed = 900;
  for (const Shape& s : shapes)
    for (int variant = 0; variant < 2; ++variant) {
      const bool poison = variant == 0;
      const float alpha = poison ? 1.f : -0.75f, beta = poison ? 0.f : 0.5f;
      Problem p(s.m, s.n, s.k, poison ? s.n : s.n + 1, poison ? 0 : 8, seed++);
      p.reset_c(poison, seed++);
      ASSERT_TRUE(runs_here(*rung, p.m, p.n, p.k)) << s.m << "x" << s.n << "x" << s.k;
      rung->run(p.m, p.n, p.k, alpha, as_bf16(p.da), p.lda, as_bf16(p.db), p.ldb, beta,
                p.dc.data(), p.ldc, nullptr);
      MEMHIER_CUDA(cudaDeviceSynchronize());
      const std::vector<float> got = p.dc.download();
      for (const std::string& f : compare_with_reference(p, alpha, beta, got))
        ADD_FAILURE() << s.m << "x" << s.n << "x" << s.k << " beta " << beta << ": " << f;
      p.dc.upload(p.c0);
      rung->run(p.m, p.n, p.k, alpha, as_bf16(p.da), p.lda, as_bf16(p.db), p.ldb, beta,
                p.dc.data(), p.ldc, nullptr);
      MEMHIER_CUDA(cudaDeviceSynchronize());
      EXPECT_EQ(std::memcmp(got.data(), p.dc.download().data(), got.size() * sizeof(float)), 0)
          << s.m << "x" << s.n << "x" << s.k << ": two runs differ";
    }
  for (const Shape& s : {Shape{128 * (resident + 3) - 5, 72, 128}, Shape{300, 300, 1000}}) {
    Problem p(s.m, s.n, s.k, s.n, 0, seed++);
    try {
      rung->run(p.m, p.n, p.k, 1.f, as_bf16(p.da), p.lda, as_bf16(p.db), p.ldb, 0.f, p.dc.data(),
                p.ldc, nullptr);
      ADD_FAILURE() << "the tail split ran " << s.m << "x" << s.n << "x" << s.k;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("a kernel without it runs this shape"),
                std::string::npos)
          << e.what();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Rungs, GemmBf16HopperRung, ::testing::Range(0, kRungCount),
                         [](const ::testing::TestParamInfo<int>& param) {
                           return std::string(kRungs[param.param].name);
                         });

/// Times the rungs (the split-K ones decline squares this large) and cuBLAS paired at size^3
/// (beta 0) and prints TFLOP/s and the paired ratios.
void print_speed_beside_cublas(int size, const std::string& device) {
  Problem p(size, size, size, size, 0, static_cast<std::uint32_t>(size));
  core::DeviceBuffer<float> dref(p.dc.size());
  Cublas blas;
  const bf16* a = as_bf16(p.da);
  const bf16* b = as_bf16(p.db);
  std::vector<std::function<void(cudaStream_t)>> launches;
  std::vector<const char*> names;
  for (const Rung& r : kRungs) {
    if (r.info().split_k != SplitK::never) continue;
    names.push_back(r.name);
    launches.push_back([&p, a, b, r](cudaStream_t s) {
      r.run(p.m, p.n, p.k, 1.f, a, p.lda, b, p.ldb, 0.f, p.dc.data(), p.ldc, s);
    });
  }
  launches.push_back([&blas, &dref, &p, a, b](cudaStream_t s) {
    blas.gemm(p.m, p.n, p.k, 1.f, a, p.lda, b, p.ldb, 0.f, dref.data(), p.ldc, s);
  });
  core::TimingOptions opt;
  opt.name = "gemm_bf16_hopper_" + std::to_string(size);
  opt.warmup = 5;
  opt.min_reps = 20;
  opt.min_total_ms = 300.0;
  const core::PairedTiming t = core::time_paired(launches, opt);
  const double flops = 2.0 * size * static_cast<double>(size) * size;
  const std::size_t blas_at = launches.size() - 1;
  std::printf("[ speed    ] bf16 GEMM %d^3 on %s (fp32 C, beta 0), median of %d paired rounds\n",
              size, device.c_str(), t.each[blas_at].reps);
  std::printf("[ speed    ]   %-18s %7.1f TFLOP/s\n", "cublasGemmEx",
              flops / (t.each[blas_at].median_ms * 1e-3) / 1e12);
  for (std::size_t i = 0; i < blas_at; ++i) {
    const core::RatioStats x = t.ratio(blas_at, i);  // cuBLAS time / rung time = rung speedup
    std::printf("[ speed    ]   %-18s %7.1f TFLOP/s  %.3fx cuBLAS (p10 %.3f, p90 %.3f)\n", names[i],
                flops / (t.each[i].median_ms * 1e-3) / 1e12, x.median, x.p10, x.p90);
  }
}

TEST(GemmBf16Hopper, SpeedBesideCublas) {
  MEMHIER_REQUIRE_HOPPER();
  for (int size : {4096, 8192}) print_speed_beside_cublas(size, hopper_dev_->name);
  SUCCEED();  // a print for the log, never an assertion on speed
}

}  // namespace
}  // namespace memhier::testing
