// The public SGEMM API: bad input answered with std::invalid_argument (no GPU needed),
// `best` and the vectorized rungs right on padded leading dimensions and misaligned
// pointers, BLAS semantics for alpha == 0 and beta == 0, and the tuning cache on disk.
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/kernels/gemm.hpp"

namespace memhier::testing {
namespace {

using gemm::Variant;

// A fake device address: validation rejects the call before anything is dereferenced.
const float* fake(std::uintptr_t addr) {
  return reinterpret_cast<const float*>(addr);
}
float* fake_mut(std::uintptr_t addr) {
  return reinterpret_cast<float*>(addr);
}

TEST(GemmApi, BadInputIsInvalidArgument) {
  const float* a = fake(256);
  const float* b = fake(512);
  float* c = fake_mut(1024);
  for (Variant v : {Variant::naive, Variant::double_buffered, Variant::best}) {
    EXPECT_THROW(gemm::sgemm(v, 0, 4, 4, 1.f, a, 4, b, 4, 0.f, c, 4), std::invalid_argument);
    EXPECT_THROW(gemm::sgemm(v, 4, -1, 4, 1.f, a, 4, b, 4, 0.f, c, 4), std::invalid_argument);
    EXPECT_THROW(gemm::sgemm(v, 4, 4, 0, 1.f, a, 4, b, 4, 0.f, c, 4), std::invalid_argument);
    EXPECT_THROW(gemm::sgemm(v, 4, 4, 8, 1.f, a, 7, b, 4, 0.f, c, 4),
                 std::invalid_argument);  // lda < k
    EXPECT_THROW(gemm::sgemm(v, 4, 6, 4, 1.f, a, 4, b, 5, 0.f, c, 6),
                 std::invalid_argument);  // ldb < n
    EXPECT_THROW(gemm::sgemm(v, 4, 6, 4, 1.f, a, 4, b, 6, 0.f, c, 5),
                 std::invalid_argument);  // ldc < n
    EXPECT_THROW(gemm::sgemm(v, 4, 4, 4, 1.f, nullptr, 4, b, 4, 0.f, c, 4), std::invalid_argument);
    EXPECT_THROW(gemm::sgemm(v, 4, 4, 4, 1.f, a, 4, b, 4, 0.f, nullptr, 4), std::invalid_argument);
    EXPECT_THROW(gemm::sgemm(v, 4, 4, 4, 1.f, fake(258), 4, b, 4, 0.f, c, 4),  // not 4-byte aligned
                 std::invalid_argument);
  }
  // A grid the launch limits cannot hold (rows of 16 x 65536 tiles).
  EXPECT_THROW(gemm::sgemm(Variant::smem_tile16, 16 * 65536, 1, 1, 1.f, a, 1, b, 1, 0.f, c, 1),
               std::invalid_argument);
}

TEST(GemmApi, NamesRoundTrip) {
  for (Variant v : gemm::all_variants()) {
    Variant back;
    ASSERT_TRUE(gemm::parse_variant(gemm::to_string(v), &back)) << gemm::to_string(v);
    EXPECT_EQ(back, v);
  }
  EXPECT_FALSE(gemm::parse_variant("no_such_variant", nullptr));
  EXPECT_EQ(gemm::all_variants().back(), Variant::best);
}

/// A problem on the device with padded leading dimensions and optional misalignment
/// (`offset` floats past a 256-byte-aligned allocation), its inputs and its C before.
struct Problem {
  int m, n, k, lda, ldb, ldc;
  float alpha, beta;
  std::vector<float> a, b, c0;
  core::DeviceBuffer<float> da, db, dc;
  int offset;

  Problem(int m_, int n_, int k_, int pad, int off, float alpha_, float beta_, std::uint32_t seed)
      : m(m_),
        n(n_),
        k(k_),
        lda(k_ + pad),
        ldb(n_ + pad),
        ldc(n_ + pad),
        alpha(alpha_),
        beta(beta_),
        offset(off) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    a.resize(static_cast<std::size_t>(m) * lda + off);
    b.resize(static_cast<std::size_t>(k) * ldb + off);
    c0.resize(static_cast<std::size_t>(m) * ldc + off);
    for (float& x : a) x = u(rng);
    for (float& x : b) x = u(rng);
    for (float& x : c0) x = beta == 0.f ? NAN : u(rng);  // beta == 0: C must not be read
    da = core::DeviceBuffer<float>(a.size());
    db = core::DeviceBuffer<float>(b.size());
    dc = core::DeviceBuffer<float>(c0.size());
    da.upload(a);
    db.upload(b);
    reset();
  }
  void reset() { dc.upload(c0); }
  void run(Variant v) {
    gemm::sgemm(v, m, n, k, alpha, da.data() + offset, lda, db.data() + offset, ldb, beta,
                dc.data() + offset, ldc);
    MEMHIER_CUDA(cudaDeviceSynchronize());
  }
  /// Relative L2 error against float64 over C; NaN if any output is not finite or any
  /// padding column of C was touched.
  double error() const {
    const std::vector<float> c = dc.download();
    double num = 0, den = 0;
    for (int i = 0; i < m; ++i) {
      const std::size_t row = static_cast<std::size_t>(i) * ldc + offset;
      for (int j = 0; j < n; ++j) {
        double s = 0;
        for (int p = 0; p < k; ++p)
          s += static_cast<double>(a[static_cast<std::size_t>(i) * lda + p + offset]) *
               b[static_cast<std::size_t>(p) * ldb + j + offset];
        double ref = static_cast<double>(alpha) * s;
        if (beta != 0.f) ref += static_cast<double>(beta) * c0[row + j];
        const double out = c[row + j];
        if (!std::isfinite(out)) return NAN;
        num += (out - ref) * (out - ref);
        den += ref * ref;
      }
      for (int j = n; j < ldc; ++j) {  // padding columns: untouched
        const float before = c0[row + j], after = c[row + j];
        if (!(after == before || (std::isnan(after) && std::isnan(before)))) return NAN;
      }
    }
    return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  }
  double tolerance() const { return 3e-7 * std::sqrt(static_cast<double>(k)) + 1e-6; }
  /// Whether C is finite and within tolerance of float64; a failure names the problem.
  ::testing::AssertionResult right() const {
    const double e = error();
    if (std::isfinite(e) && e <= tolerance()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << m << "x" << n << "x" << k << " pad " << lda - k << " offset " << offset << " alpha "
           << alpha << " beta " << beta << ": error " << e;
  }
};

TEST(GemmApi, PaddedAndMisalignedOperands) {
  MEMHIER_REQUIRE_GPU(dev);
  struct Layout {
    int pad, offset;
  };
  // pad 4 with offset 0: 16-byte paths; pad 3 or offset 1: scalar fallbacks.
  const std::vector<Layout> layouts{{0, 0}, {4, 0}, {3, 0}, {0, 1}, {4, 1}};
  const std::vector<Variant> variants{Variant::vectorized,
                                      Variant::warp_tiled,
                                      Variant::double_buffered,
                                      Variant::cp_async_3stage,
                                      Variant::swizzled,
                                      Variant::cfg_128x256x8_8x16,
                                      Variant::cfg_64x64x16_8x4,
                                      Variant::cfg_cp4_128x128x16_8x8,
                                      Variant::cfg_16x128x32_4x4,
                                      Variant::cfg_32x128x16_8x4,
                                      Variant::best};
  std::uint32_t seed = 7;
  for (const Layout& l : layouts)
    for (Variant v : variants) {
      Problem p(300, 260, 136, l.pad, l.offset, 1.f, 0.f, seed++);
      p.run(v);
      EXPECT_TRUE(p.right()) << gemm::to_string(v);
    }
}

/// The split-K candidates (gemm_rungs.inc's cfg_sk_* lines).
const std::vector<Variant> kSplitK{Variant::cfg_sk_16x128x32_4x4, Variant::cfg_sk_32x128x16_8x4,
                                   Variant::cfg_sk_64x128x16_8x8, Variant::cfg_sk_128x128x16_8x8,
                                   Variant::cfg_sk_128x256x8_8x16};

// Shapes whose few tiles split on any card of a handful of SMs or more (a decline throws and
// fails the test): one row, 17 rows, primes; K not a multiple of any split count; beta
// != 0 (C read once, by the last split) and beta == 0 (C NaN before, never read); padded and
// odd leading dimensions, misaligned bases.
TEST(GemmApi, SplitKRightOnOddShapesAndLayouts) {
  MEMHIER_REQUIRE_GPU(dev);
  struct Case {
    int m, n, k;
    float alpha, beta;
  };
  const std::vector<Case> cases{
      {1, 300, 1031, 1.f, 0.f}, {17, 301, 1031, 1.5f, -0.5f}, {131, 129, 521, -1.f, 2.f}};
  struct Layout {
    int pad, offset;
  };
  const std::vector<Layout> layouts{{0, 0}, {4, 0}, {3, 0}, {0, 1}};
  std::uint32_t seed = 101;
  for (Variant v : kSplitK)
    for (const Case& c : cases)
      for (const Layout& l : layouts) {
        Problem p(c.m, c.n, c.k, l.pad, l.offset, c.alpha, c.beta, seed++);
        p.run(v);
        EXPECT_TRUE(p.right()) << gemm::to_string(v);
      }
}

/// Runs `v` on `p` four times, C reset before each, and expects the same bits every time (a
/// split kernel that added its partial sums atomically would not give them), then C right.
void expect_same_bits_every_run(Problem& p, Variant v) {
  std::vector<float> first;
  for (int run = 1; run <= 4; ++run) {
    p.reset();
    p.run(v);
    const std::vector<float> c = p.dc.download();
    if (run == 1) {
      first = c;
      continue;
    }
    ASSERT_EQ(c.size(), first.size());
    EXPECT_EQ(std::memcmp(c.data(), first.data(), c.size() * sizeof(float)), 0)
        << gemm::to_string(v) << " run " << run;
  }
  EXPECT_TRUE(p.right()) << gemm::to_string(v);
}

// The last split adds the partial sums in split order, whichever split ends last.
TEST(GemmApi, SplitKIsDeterministic) {
  MEMHIER_REQUIRE_GPU(dev);
  for (Variant v : kSplitK) {
    Problem p(64, 512, 8192, 0, 0, 1.f, 0.5f, 202);
    expect_same_bits_every_run(p, v);
  }
}

// A split candidate declines, in one sentence, a shape whose tiles already fill the card:
// `best` then never times a duplicate of a non-split candidate.
TEST(GemmApi, SplitKDeclinesAShapeThatFillsTheCard) {
  MEMHIER_REQUIRE_GPU(dev);
  const int sms = dev->sm_count;
  // 1024 x (128 x SMs): 8 tiles of 128 x 128 an SM, more than half of the slots any
  // candidate can have (2048 threads an SM), and K of 64 is too short to split besides.
  Problem p(1024, 128 * sms, 64, 0, 0, 1.f, 0.f, 303);
  for (Variant v : kSplitK) EXPECT_THROW(p.run(v), std::invalid_argument) << gemm::to_string(v);
}

// The staged candidates copy the operands double_buffered cannot read with 16-byte loads into
// padded rows and run a 16-byte kernel on them: right where A alone, B alone or both need the
// copy (odd leading dimensions, a misaligned base), with C read (beta != 0) and not (beta ==
// 0); they decline in one sentence where neither does.
TEST(GemmApi, StagedCopiesWhatNeedsItAndDeclinesOtherwise) {
  MEMHIER_REQUIRE_GPU(dev);
  struct Case {
    int m, n, k, pad, offset;
    float beta;
  };
  const std::vector<Case> cases{
      {300, 260, 133, 0, 0, 0.f},     // A's rows of 133 floats: A copied, B read in place
      {300, 261, 136, 0, 0, 0.5f},    // B's rows of 261 floats: B copied
      {301, 257, 131, 0, 0, -1.f},    // both
      {300, 260, 136, 3, 0, 0.f},     // padded to odd leading dimensions: both
      {300, 260, 136, 0, 1, 2.f},     // bases off 16 bytes: both
      {129, 1031, 1031, 4, 1, 0.f}};  // several k-tiles, a partial last one
  // staged_tailsplit's shapes split on any card: a wave of tiles and three more (see below).
  const int rows = 128 * (dev->sm_count + 3) - 7;
  const std::vector<Case> tail_cases{{rows, 250, 257, 0, 0, 0.5f}, {rows, 252, 260, 0, 1, 0.f}};
  std::uint32_t seed = 404;
  for (Variant v : {Variant::staged, Variant::staged_tailsplit})
    for (const Case& c : v == Variant::staged ? cases : tail_cases) {
      Problem p(c.m, c.n, c.k, c.pad, c.offset, 1.5f, c.beta, seed++);
      p.run(v);
      EXPECT_TRUE(p.right()) << gemm::to_string(v);
    }
  Problem aligned(300, 260, 1032, 4, 0, 1.f, 0.f, seed++);
  for (Variant v : {Variant::staged, Variant::staged_tailsplit}) {
    try {
      aligned.run(v);
      ADD_FAILURE() << gemm::to_string(v) << " ran operands that need no copy";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("read them in place"), std::string::npos) << e.what();
    }
  }
}

// The tail split: the tiles of whole waves a block each, the few after them split. Shapes that
// split on any card (one wave of one 128x256 block an SM, then three or four tiles): beta != 0
// (C read once, by the last split) and beta == 0 (C NaN before, never read); padded and odd
// leading dimensions, misaligned bases, a partial last column tile and k-tile.
TEST(GemmApi, TailSplitRightOnOddShapesAndLayouts) {
  MEMHIER_REQUIRE_GPU(dev);
  struct Case {
    int m, n, k, pad, offset;
    float alpha, beta;
  };
  const int rows = 128 * (dev->sm_count + 3) - 7;             // one column tile
  const int rows2 = 128 * ((dev->sm_count + 4) / 2) - 7;      // two, the second partial
  const std::vector<Case> cases{{rows, 250, 257, 0, 0, 1.f, 0.f},
                                {rows, 250, 257, 3, 0, 1.5f, -0.5f},
                                {rows, 250, 300, 4, 1, -1.f, 2.f},
                                {rows2, 507, 520, 0, 1, 1.f, 0.f}};
  std::uint32_t seed = 505;
  for (const Case& c : cases) {
    Problem p(c.m, c.n, c.k, c.pad, c.offset, c.alpha, c.beta, seed++);
    p.run(Variant::cfg_tailsplit_128x256x8_8x16);
    EXPECT_TRUE(p.right());
  }
}

// The edges' candidates: C's whole 128x256 tiles, its last rows and its last columns each
// through their own kernel. Each remainder of rows takes another skinny tile (1, 17, 33, 100
// rows), the columns a split 128x128 tile or, past a wave of whole tiles (which also split
// their last wave), the 128x64 one; padded and odd leading dimensions, misaligned bases (the
// staged one copies those), beta == 0 (C NaN, never read) and beta != 0. C without a ragged
// edge or without a whole tile is declined in one sentence.
TEST(GemmApi, EdgesRightOnRaggedShapes) {
  MEMHIER_REQUIRE_GPU(dev);
  struct Case {
    int m, n, k, pad, offset;
    float alpha, beta;
  };
  const std::vector<Case> cases{{257, 257, 200, 0, 0, 1.f, 0.f},
                                {128 * 3 + 17, 512 + 100, 130, 4, 0, 1.5f, -0.5f},
                                {128 + 33, 256 + 129, 72, 0, 0, -1.f, 2.f},
                                {256 + 100, 512 + 252, 64, 0, 0, 1.f, 0.f},
                                {128 * (dev->sm_count + 3) + 5, 256 + 7, 520, 0, 0, 1.f, 0.5f}};
  const std::vector<Case> staged_cases{{257, 257, 201, 0, 0, 1.f, 0.f},
                                       {128 * 3 + 17, 512 + 100, 130, 3, 1, 1.5f, -0.5f}};
  std::uint32_t seed = 707;
  for (Variant v : {Variant::cfg_edges_128x256x8_8x16, Variant::staged_edges})
    for (const Case& c : v == Variant::staged_edges ? staged_cases : cases) {
      Problem p(c.m, c.n, c.k, c.pad, c.offset, c.alpha, c.beta, seed++);
      p.run(v);
      EXPECT_TRUE(p.right()) << gemm::to_string(v);
    }
  for (const auto& [m, n] : {std::pair{256, 512}, std::pair{127, 600}, std::pair{600, 255}}) {
    Problem q(m, n, 64, 0, 0, 1.f, 0.f, seed++);
    try {
      q.run(Variant::cfg_edges_128x256x8_8x16);
      ADD_FAILURE() << "the edges' candidate ran " << m << "x" << n;
    } catch (const std::invalid_argument& err) {
      EXPECT_NE(std::string(err.what()).find("cfg_edges_128x256x8_8x16: C of"), std::string::npos)
          << err.what();
    }
  }
}

// A tile's last split adds the splits in split order, whichever ends last: the same bits every
// run. It declines, in one sentence, K too short to split and a shape under one wave.
TEST(GemmApi, TailSplitIsDeterministicAndDeclinesWhatItCannotSplit) {
  MEMHIER_REQUIRE_GPU(dev);
  constexpr Variant v = Variant::cfg_tailsplit_128x256x8_8x16;
  const int rows = 128 * (dev->sm_count + 3) - 7;
  Problem p(rows, 250, 520, 0, 0, 1.f, 0.5f, 606);
  expect_same_bits_every_run(p, v);
  for (const auto& [m, k] : {std::pair{rows, 64}, std::pair{300, 1031}}) {
    Problem q(m, 250, k, 0, 0, 1.f, 0.f, 607);
    try {
      q.run(v);
      ADD_FAILURE() << "the tail split ran " << m << "x250x" << k;
    } catch (const std::invalid_argument& err) {
      EXPECT_NE(std::string(err.what()).find("a kernel without it runs this shape"),
                std::string::npos)
          << err.what();
    }
  }
}

TEST(GemmApi, AlphaZeroAndBetaZeroFollowBlas) {
  MEMHIER_REQUIRE_GPU(dev);
  for (Variant v : {Variant::naive, Variant::double_buffered, Variant::best}) {
    // alpha == 0: A and B are not read (NaN there must not reach C); C = beta * C.
    Problem p(70, 50, 30, 0, 0, 0.f, 2.f, 11);
    p.da.poison();
    p.db.poison();
    p.run(v);
    const std::vector<float> c = p.dc.download();
    for (std::size_t i = 0; i < c.size(); ++i) ASSERT_EQ(c[i], 2.f * p.c0[i]) << gemm::to_string(v);
    // beta == 0: C starts as NaN and must be fully overwritten.
    Problem q(70, 50, 30, 0, 0, 1.5f, 0.f, 12);
    q.run(v);
    const double e = q.error();
    EXPECT_TRUE(std::isfinite(e) && e <= q.tolerance()) << gemm::to_string(v) << ": " << e;
  }
}

TEST(GemmApi, BestTunesOnceAndWritesTheCache) {
  MEMHIER_REQUIRE_GPU(dev);
  // The folder CTest gives every test (MEMHIER_CACHE_DIR) is replaced by a fresh one.
  const ScopedCacheDir cache("memhier-gemm-tune");
  gemm::forget_tuning();

  const std::string path = gemm::tuning_cache_path();
  EXPECT_EQ(path, (cache.dir() / "gemm-tuning.json").string());
  Problem p(512, 384, 256, 0, 0, 1.f, 0.f, 21);  // above 2^24 flops: tuned
  EXPECT_EQ(gemm::best_config(p.m, p.n, p.k), "");
  p.run(Variant::best);
  EXPECT_TRUE(p.right());
  const std::string choice = gemm::best_config(p.m, p.n, p.k);
  EXPECT_FALSE(choice.empty());
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << path;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"choice\": \"" + choice + "\""), std::string::npos) << text;
  // A new process (forget) reads the same choice back from disk.
  gemm::forget_tuning();
  EXPECT_EQ(gemm::best_config(p.m, p.n, p.k), choice);

  // MEMHIER_NO_TUNE_CACHE=1: no path, and tuning still works.
  ::setenv("MEMHIER_NO_TUNE_CACHE", "1", 1);
  EXPECT_EQ(gemm::tuning_cache_path(), "");
  gemm::forget_tuning();
  p.reset();
  p.run(Variant::best);
  EXPECT_LE(p.error(), p.tolerance());

  gemm::forget_tuning();
}

}  // namespace
}  // namespace memhier::testing
