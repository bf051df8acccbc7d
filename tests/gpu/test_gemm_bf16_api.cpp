// The public bf16 GEMM API beyond what the family's case calls: every variant right with
// padded leading dimensions and bases off 16-byte alignment (the element-load paths), C's
// padding columns untouched, and BLAS semantics for alpha == 0. CPU float64 reference.
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../src/kernels/gemm_bf16/variants.hpp"
#include "gpu_test_util.hpp"
#include "memhier/core/buffer.hpp"
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

TEST(GemmBf16Api, PaddedLeadingDimensionsAndMisalignedBases) {
  MEMHIER_REQUIRE_GPU(dev);
  const std::vector<Problem> problems = {
      {130, 136, 72, 80, 144, 140, 0, 1.f, 0.f},     // padded, 16-byte rows (ld % 8 == 0)
      {67, 45, 37, 41, 53, 47, 1, 1.25f, 0.f},       // odd ld, bases 2 bytes off
      {129, 131, 40, 48, 136, 131, 3, 0.5f, -1.5f},  // 16-byte ld but bases off: element loads
  };
  for (Variant v : gemm_bf16::all_variants())
    for (const Problem& q : problems) {
      // The TMA rungs decline (invalid_argument) what TMA cannot describe: 16-byte row
      // pitches and bases; every other rung and shape must run (wgmma_staged declines only
      // leading dimensions that are multiples of 64 with 128-byte bases: none here).
      const bool tma_able = q.lda % 8 == 0 && q.ldb % 8 == 0 && q.offset % 8 == 0;
      const std::string name = gemm_bf16::to_string(v);
      const bool hopper = v == Variant::wgmma_tma || v == Variant::warp_specialized ||
                          name.rfind("ws_", 0) == 0 || name.rfind("swapab_", 0) == 0;
      try {
        check(v, q);
      } catch (const std::invalid_argument& e) {
        EXPECT_TRUE(hopper && !tma_able) << gemm_bf16::to_string(v) << ": " << e.what();
      }
    }
}

TEST(GemmBf16Api, AlphaZeroScalesCWithoutReadingAOrB) {
  MEMHIER_REQUIRE_GPU(dev);
  check(Variant::best, {33, 65, 17, 17, 65, 70, 0, 0.f, 2.f});
  check(Variant::mma_pipelined, {33, 65, 17, 17, 65, 65, 0, 0.f, 0.f});
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
  EXPECT_EQ(gemm_bf16::best_config(512, 520, 256, off, 256, off, 520, nullptr, 520), "");
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
