// The attention API: names, bad input answered with one sentence before any launch, the
// spelled-out entry point (which allocates the unfused rung's workspace in stream order),
// rows that see no key written as exact zeros by every rung, the wgmma rungs on their own edge
// shapes, and cuDNN's line running where it is built. (test_kernels.cpp verifies every
// variant on the family's odd shapes against the float64 reference.)
#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/device.hpp"
#include "memhier/kernels/attention.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/registry/registry.hpp"

namespace {

namespace at = memhier::attention;
using memhier::core::DeviceBuffer;
using memhier::testing::random_bf16;

double to_double(__nv_bfloat16 x) {
  return static_cast<double>(__bfloat162float(x));
}

/// The float64 attention of the host inputs, bottom-right causal mask, rows without a
/// visible key 0.
std::vector<double> reference(const at::Shape& s, const std::vector<__nv_bfloat16>& q,
                              const std::vector<__nv_bfloat16>& k,
                              const std::vector<__nv_bfloat16>& v) {
  const int D = s.head_dim;
  std::vector<double> o(q.size(), 0.0), p(static_cast<std::size_t>(s.seq_k));
  for (int b = 0; b < s.batch; ++b)
    for (int i = 0; i < s.seq_q; ++i)
      for (int h = 0; h < s.heads; ++h) {
        const int kvh = h / (s.heads / s.kv_heads);
        const long long vis = s.causal ? std::min<long long>(s.seq_k, i + 1LL + s.seq_k - s.seq_q)
                                       : s.seq_k;
        const std::size_t qo = ((static_cast<std::size_t>(b) * s.seq_q + i) * s.heads + h) * D;
        if (vis <= 0) continue;
        double m = -INFINITY, l = 0;
        for (long long j = 0; j < vis; ++j) {
          const std::size_t ko = ((static_cast<std::size_t>(b) * s.seq_k + j) * s.kv_heads + kvh) * D;
          double dot = 0;
          for (int d = 0; d < D; ++d) dot += to_double(q[qo + d]) * to_double(k[ko + d]);
          p[j] = s.scale * dot;
          m = std::max(m, p[j]);
        }
        for (long long j = 0; j < vis; ++j) l += (p[j] = std::exp(p[j] - m));
        for (long long j = 0; j < vis; ++j) {
          const std::size_t vo = ((static_cast<std::size_t>(b) * s.seq_k + j) * s.kv_heads + kvh) * D;
          for (int d = 0; d < D; ++d) o[qo + d] += p[j] / l * to_double(v[vo + d]);
        }
      }
  return o;
}

/// Inputs for one shape on the device, an output poisoned with NaN.
struct Problem {
  at::Shape s;
  std::vector<__nv_bfloat16> hq, hk, hv;
  DeviceBuffer<__nv_bfloat16> q, k, v, o;
  explicit Problem(const at::Shape& sh)
      : s(sh),
        hq(random_bf16(static_cast<std::size_t>(s.batch) * s.seq_q * s.heads * s.head_dim, 1)),
        hk(random_bf16(static_cast<std::size_t>(s.batch) * s.seq_k * s.kv_heads * s.head_dim, 2)),
        hv(random_bf16(hk.size(), 3)),
        q(hq.size()),
        k(hk.size()),
        v(hv.size()),
        o(hq.size()) {
    q.upload(hq);
    k.upload(hk);
    v.upload(hv);
    o.poison();
  }
  /// Relative L2 error of o against the float64 reference; NaN if any element is not finite.
  double error() const {
    const std::vector<double> ref = reference(s, hq, hk, hv);
    const std::vector<__nv_bfloat16> got = o.download();
    double num = 0, den = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
      const double g = to_double(got[i]);
      if (!std::isfinite(g)) return NAN;
      num += (g - ref[i]) * (g - ref[i]);
      den += ref[i] * ref[i];
    }
    return std::sqrt(num / den);
  }
};

at::Shape shape(int batch, int heads, int kv_heads, int seq_q, int seq_k, int head_dim,
                bool causal) {
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(head_dim)));
  return {batch, heads, kv_heads, seq_q, seq_k, head_dim, causal, scale};
}

/// The wgmma rungs: sm_90a code (compute capability 9.0 exactly), one kernel in three
/// configurations; elsewhere each declines with one sentence.
constexpr at::Variant kWgmmaRungs[] = {at::Variant::wgmma_tma, at::Variant::wgmma_tma_wide,
                                       at::Variant::wgmma_tma_3wg};

/// Whether `v` runs on `dev`: every rung but the wgmma ones, which need sm_90a.
bool runs_on(at::Variant v, const memhier::core::DeviceInfo& dev) {
  const bool wgmma =
      std::find(std::begin(kWgmmaRungs), std::end(kWgmmaRungs), v) != std::end(kWgmmaRungs);
  return !wgmma || (dev.cc_major == 9 && dev.cc_minor == 0);
}

TEST(AttentionApi, NamesRoundTrip) {
  for (at::Variant v : at::kAllVariants) {
    const auto back = at::variant_from_string(at::to_string(v));
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, v);
  }
  EXPECT_FALSE(at::variant_from_string("flash").has_value());
  EXPECT_EQ(std::string(at::to_string(at::all_variants().back())), "best");
}

// Needs no GPU: every bad argument is refused before the device is touched.
TEST(AttentionApi, BadInputGetsOneSentence) {
  const auto says = [](const at::Shape& s, const std::string& what) {
    try {
      at::check_shape(s);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  says(shape(0, 8, 8, 16, 16, 64, false), "positive");
  says(shape(1, 8, 3, 16, 16, 64, false), "kv_heads (3) must divide heads (8)");
  says(shape(1, 8, 8, 16, 16, 96, false), "head_dim 96 is not supported");
  at::Shape nan_scale = shape(1, 8, 8, 16, 16, 64, false);
  nan_scale.scale = NAN;
  says(nan_scale, "scale");
  says(shape(65536, 65536, 1, 1024, 16, 64, false), "2^31 rows");

  const at::Shape s = shape(1, 2, 2, 16, 16, 64, false);
  alignas(16) static __nv_bfloat16 host[4096];  // never dereferenced: checks come first
  const __nv_bfloat16* p = host;
  __nv_bfloat16* out = host + 2048;
  EXPECT_THROW(at::forward(at::Variant::fused_plain, nullptr, p, p, out, s, nullptr, 0),
               std::invalid_argument);
  EXPECT_THROW(at::forward(at::Variant::fused_plain, p + 1, p, p, out, s, nullptr, 0),
               std::invalid_argument);  // 2 bytes off 16
  EXPECT_THROW(at::forward(at::Variant::fused_plain, p, p, p, host + 8, s, nullptr, 0),
               std::invalid_argument);  // o overlaps q
  EXPECT_THROW(at::forward(at::Variant::unfused, p, p, p, out, s, nullptr, 0),
               std::invalid_argument);  // no workspace
  EXPECT_THROW(at::forward(static_cast<at::Variant>(99), p, p, p, out, s, nullptr, 0),
               std::invalid_argument);
  EXPECT_EQ(at::workspace_bytes(at::Variant::unfused, s), 2u * 16 * 16 * 2 * 4);
  EXPECT_EQ(at::workspace_bytes(at::Variant::mma_ldmatrix, s), 0u);
}

// The spelled-out entry point, on a stream of its own: the unfused rung's scratch comes
// from cudaMallocAsync on that stream.
TEST(AttentionApi, SpelledOutEntryPointOnAStream) {
  MEMHIER_REQUIRE_GPU(dev);
  cudaStream_t stream = nullptr;
  MEMHIER_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (at::Variant v : at::kAllVariants) {
    SCOPED_TRACE(at::to_string(v));
    Problem p(shape(2, 4, 2, 77, 131, 64, true));
    if (!runs_on(v, *dev)) {
      EXPECT_THROW(at::forward(v, p.q.data(), p.k.data(), p.v.data(), p.o.data(), p.s.batch,
                               p.s.heads, p.s.kv_heads, p.s.seq_q, p.s.seq_k, p.s.head_dim,
                               p.s.causal, p.s.scale, stream),
                   std::invalid_argument);
      continue;
    }
    at::forward(v, p.q.data(), p.k.data(), p.v.data(), p.o.data(), p.s.batch, p.s.heads,
                p.s.kv_heads, p.s.seq_q, p.s.seq_k, p.s.head_dim, p.s.causal, p.s.scale, stream);
    MEMHIER_CUDA(cudaStreamSynchronize(stream));
    EXPECT_LT(p.error(), 0x1p-8);
  }
  MEMHIER_CUDA(cudaStreamDestroy(stream));
}

// Causal with seq_q > seq_k: the first seq_q - seq_k queries see no key; every rung writes
// their rows as exact zeros (no 0/0 NaN), and the rest match the reference.
TEST(AttentionApi, RowsThatSeeNoKeyAreZero) {
  MEMHIER_REQUIRE_GPU(dev);
  for (int head_dim : {64, 128})
    for (at::Variant v : at::kAllVariants) {
      SCOPED_TRACE(std::string(at::to_string(v)) + " head_dim " + std::to_string(head_dim));
      Problem p(shape(1, 2, 1, 150, 37, head_dim, true));
      const std::size_t ws_bytes = at::workspace_bytes(v, p.s);
      DeviceBuffer<unsigned char> ws(ws_bytes);
      if (!runs_on(v, *dev)) {
        EXPECT_THROW(at::forward(v, p.q.data(), p.k.data(), p.v.data(), p.o.data(), p.s, ws.data(),
                                 ws_bytes),
                     std::invalid_argument);
        continue;
      }
      at::forward(v, p.q.data(), p.k.data(), p.v.data(), p.o.data(), p.s, ws.data(), ws_bytes);
      MEMHIER_CUDA(cudaDeviceSynchronize());
      const std::vector<__nv_bfloat16> got = p.o.download();
      std::size_t nonzero = 0;
      const std::size_t masked = static_cast<std::size_t>(150 - 37) * 2 * head_dim;
      for (std::size_t i = 0; i < masked; ++i) nonzero += to_double(got[i]) != 0.0;
      EXPECT_EQ(nonzero, 0u);
      EXPECT_LT(p.error(), 0x1p-8);
    }
}

// The wgmma rungs (sm_90a) against the float64 reference where the others' tiles differ
// from their own: seq 1, primes, tails inside a batch of two (TMA's zero fill must not read
// the next batch's rows), seq_q != seq_k both ways, causal with seq_q < seq_k and > seq_k,
// grouped-query heads, head_dim 64 and 128, key counts that wrap the K/V ring several times
// (of 128 and of 192 keys; 131 and 1000 queries: one past a tile of 128 and of 192, and
// several tiles of each), and a scale of 16 whose scores overflow fp16 and fp32 without the
// max shift. Elsewhere each declines with one sentence naming the architecture.
TEST(AttentionWgmma, MatchesFloat64WhereItRuns) {
  MEMHIER_REQUIRE_GPU(dev);
  if (!runs_on(at::Variant::wgmma_tma, *dev)) {
    for (at::Variant v : kWgmmaRungs) {
      SCOPED_TRACE(at::to_string(v));
      Problem p(shape(1, 1, 1, 16, 16, 64, false));
      try {
        at::forward(v, p.q.data(), p.k.data(), p.v.data(), p.o.data(), p.s, nullptr, 0);
        ADD_FAILURE() << "ran on compute capability " << dev->cc_major << "." << dev->cc_minor;
      } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("9.0"), std::string::npos) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      }
    }
    GTEST_SKIP() << "the wgmma rungs need compute capability 9.0; checked their declines";
  }
  std::vector<at::Shape> shapes;
  for (int d : {64, 128}) {
    shapes.push_back(shape(1, 1, 1, 1, 1, d, false));
    shapes.push_back(shape(1, 2, 2, 1, 1, d, true));
    shapes.push_back(shape(2, 2, 2, 37, 37, d, false));
    shapes.push_back(shape(2, 2, 1, 131, 131, d, true));
    shapes.push_back(shape(2, 4, 2, 37, 131, d, true));     // causal, seq_q < seq_k
    shapes.push_back(shape(2, 4, 2, 131, 37, d, true));     // causal, leading rows see nothing
    shapes.push_back(shape(1, 8, 2, 129, 257, d, false));   // GQA, one past a tile
    shapes.push_back(shape(1, 4, 1, 193, 385, d, true));    // one past 192 (queries, keys)
    shapes.push_back(shape(2, 2, 2, 300, 1000, d, false));  // 8 key tiles: the ring wraps
    shapes.push_back(shape(1, 2, 1, 1000, 1000, d, true));  // causal, 8 query tiles
  }
  at::Shape big = shape(1, 2, 2, 64, 96, 64, false);
  big.scale = 16.f;  // scores near 100: exp overflows without the max shift
  shapes.push_back(big);
  big.head_dim = 128;
  shapes.push_back(big);
  for (const at::Shape& s : shapes) {
    SCOPED_TRACE(std::to_string(s.batch) + "x" + std::to_string(s.heads) + "x" +
                 std::to_string(s.kv_heads) + "x" + std::to_string(s.seq_q) + "x" +
                 std::to_string(s.seq_k) + "x" + std::to_string(s.head_dim) +
                 (s.causal ? ":causal" : "") + " scale " + std::to_string(s.scale));
    Problem p(s);
    for (at::Variant v : kWgmmaRungs) {
      SCOPED_TRACE(at::to_string(v));
      p.o.poison();
      at::forward(v, p.q.data(), p.k.data(), p.v.data(), p.o.data(), p.s, nullptr, 0);
      MEMHIER_CUDA(cudaDeviceSynchronize());
      EXPECT_LT(p.error(), s.scale > 1.f ? 0x1p-7 : 0x1p-8);
    }
  }
}

// cuDNN's line where this build has it and the loader finds libcudnn: it runs and verifies
// as the vendor baseline at square, grouped-query and bottom-right causal shapes, so that a
// decline at every shape for one reason (which the ladder test accepts) cannot hide it.
TEST(AttentionCudnn, RunsAndVerifiesWhereBuilt) {
  MEMHIER_REQUIRE_GPU(dev);
  memhier::kernels::register_families();
  const memhier::registry::Family* f = memhier::registry::find_family("attention");
  ASSERT_NE(f, nullptr);
  for (const char* text : {"2x4x4x128x128x128", "1x8x2x200x300x64:causal",
                           "1x4x4x256x256x128:causal", "1x8x2x65x129x128"}) {
    SCOPED_TRACE(text);
    const auto c = f->make_case(text, 7);
    c->poison(nullptr);
    try {
      c->run("cudnn", nullptr);
    } catch (const std::invalid_argument& e) {
      const std::string why = e.what();
      if (why.rfind("cuDNN's fused attention is not in this build", 0) == 0 ||
          why.rfind("libcudnn.so.9 could not be loaded", 0) == 0)
        GTEST_SKIP() << why;
      FAIL() << "cuDNN declined: " << why;
    }
    EXPECT_FALSE(c->baseline_name().empty());
    const double err = c->error();
    EXPECT_LE(err, c->tolerance());
  }
}

}  // namespace
