// The elementwise public API: bad input gets one sentence (no GPU needed: the checks run
// before any CUDA call), and every variant is exact at every relative alignment of x and y
// (the float4 head peel, the scalar fallback, the tails), in place, and for both particle
// layouts. The generic ladder test covers the registered Case; this covers the API itself.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/kernels/elementwise.hpp"

namespace memhier::testing {
namespace {

namespace ew = memhier::elementwise;

std::vector<float> random_floats(std::size_t n, std::uint32_t seed, float lo, float hi) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& f : v) f = dist(gen);
  return v;
}

std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// A fake, never dereferenced device address: every call below throws before any launch.
float* fake(std::uintptr_t a) {
  return reinterpret_cast<float*>(a);
}

TEST(ElementwiseApi, NamesAreDistinctAndRoundTrip) {
  std::set<std::string> names;
  for (ew::Variant v : ew::kAllVariants) {
    names.insert(ew::to_string(v));
    EXPECT_EQ(ew::variant_from_string(ew::to_string(v)), v) << ew::to_string(v);
  }
  EXPECT_EQ(names.size(), std::size(ew::kAllVariants));
  EXPECT_STREQ(ew::to_string(ew::Variant::float4_unroll4), "float4_unroll4");
  EXPECT_FALSE(ew::variant_from_string("particles_aos").has_value());  // bench-only rung
}

TEST(ElementwiseApi, BadInputThrowsOneSentence) {
  const ew::Variant v = ew::Variant::best;
  EXPECT_THROW(ew::copy(v, nullptr, fake(0x10000), 4), std::invalid_argument);
  EXPECT_THROW(ew::copy(v, fake(0x10000), nullptr, 4), std::invalid_argument);
  EXPECT_THROW(ew::axpy(v, 2.f, fake(0x10000), fake(0x20000), 0), std::invalid_argument);
  // Not 4-byte aligned.
  EXPECT_THROW(ew::axpy(v, 2.f, fake(0x10002), fake(0x20000), 4), std::invalid_argument);
  // Partial overlap (a race); x == y is allowed, checked on the GPU below.
  EXPECT_THROW(ew::axpy(v, 2.f, fake(0x10000), fake(0x10004), 4), std::invalid_argument);
  // Wraps past the end of the address space.
  EXPECT_THROW(ew::copy(v, fake(UINTPTR_MAX - 15), fake(0x10000), 8), std::invalid_argument);
  // More elements than one launch covers.
  EXPECT_THROW(ew::copy(v, fake(0x10000), fake(0x20000), std::size_t{1} << 50),
               std::invalid_argument);
  EXPECT_THROW(ew::update_particles_aos(nullptr, 4, 0.5f), std::invalid_argument);
  EXPECT_THROW(ew::update_particles_aos(reinterpret_cast<ew::Particle*>(0x10000), 0, 0.5f),
               std::invalid_argument);
  float* b = fake(0x100000);
  EXPECT_THROW(
      ew::update_particles_soa({b, b + 100, b + 200, b + 250, b + 400, b + 500}, 100, 0.5f),
      std::invalid_argument);  // z overlaps vx
  EXPECT_THROW(
      ew::update_particles_soa({b, nullptr, b + 200, b + 300, b + 400, b + 500}, 100, 0.5f),
      std::invalid_argument);
  try {
    ew::copy(v, fake(0x10000), fake(0x10004), 4);
    ADD_FAILURE() << "overlap not rejected";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("overlap"), std::string::npos) << e.what();
  }
}

// Every variant, copy and axpy, x and y at every 4-byte offset 0..3 floats from a 256-byte
// boundary (same misalignment: peeled head; different: scalar fallback), lengths with and
// without whole vectors. Exact: one fma on the host rounds the same way as on the device.
// Elements outside [oy, oy + n) must be untouched.
TEST(ElementwiseApi, EveryVariantExactAtEveryAlignment) {
  MEMHIER_REQUIRE_GPU(dev);
  const float a = 1.75f;
  for (std::size_t n : {std::size_t{1}, std::size_t{5}, std::size_t{33}, std::size_t{1029},
                        std::size_t{4 * 256 * 4 + 7}}) {
    const std::size_t len = n + 8;
    const std::vector<float> x0 =
        random_floats(len, 7u + static_cast<std::uint32_t>(n), 0.5f, 1.5f);
    const std::vector<float> y0 = random_floats(len, 9u + static_cast<std::uint32_t>(n), -1.f, 1.f);
    core::DeviceBuffer<float> xb(len), yb(len);
    xb.upload(x0);
    for (bool axpy : {false, true})
      for (ew::Variant v : ew::kAllVariants) {
        VariantRuns runs;  // a documented decline is allowed; running none is not
        for (std::size_t ox = 0; ox < 4; ++ox)
          for (std::size_t oy = 0; oy < 4; ++oy)
            runs.attempt([&] {
              yb.upload(y0);
              if (axpy)
                ew::axpy(v, a, xb.data() + ox, yb.data() + oy, n);
              else
                ew::copy(v, xb.data() + ox, yb.data() + oy, n);
              MEMHIER_CUDA(cudaDeviceSynchronize());
              const std::vector<float> y = yb.download();
              std::size_t wrong = 0, first = len;
              for (std::size_t j = 0; j < len; ++j) {
                float want = y0[j];
                if (j >= oy && j < oy + n) {
                  const float xv = x0[j - oy + ox];
                  want = axpy ? std::fma(a, xv, y0[j]) : xv;
                }
                if (bits(y[j]) != bits(want)) {
                  ++wrong;
                  if (first == len) first = j;
                }
              }
              EXPECT_EQ(wrong, 0u)
                  << (axpy ? "axpy " : "copy ") << ew::to_string(v) << " n=" << n << " x+" << ox
                  << " y+" << oy << ": first wrong element " << first;
            });
        EXPECT_TRUE(runs.ran_where_supported())
            << ew::to_string(v) << " n=" << n << " ran at no alignment: " << runs.why();
      }
  }
}

TEST(ElementwiseApi, AxpyInPlace) {
  MEMHIER_REQUIRE_GPU(dev);
  const std::size_t n = 100003;
  const std::vector<float> y0 = random_floats(n, 3u, -1.f, 1.f);
  core::DeviceBuffer<float> yb(n);
  for (ew::Variant v : ew::kAllVariants) {
    yb.upload(y0);
    ew::axpy(v, 0.5f, yb.data(), yb.data(), n);  // y = 0.5*y + y
    MEMHIER_CUDA(cudaDeviceSynchronize());
    const std::vector<float> y = yb.download();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) wrong += bits(y[i]) != bits(std::fma(0.5f, y0[i], y0[i]));
    EXPECT_EQ(wrong, 0u) << ew::to_string(v);
  }
}

TEST(ElementwiseApi, BestOnLargeMisalignedShapes) {
  MEMHIER_REQUIRE_GPU(dev);
  const std::size_t n = (std::size_t{1} << 22) + 3;
  const std::vector<float> x0 = random_floats(n + 4, 11u, 0.5f, 1.5f);
  const std::vector<float> y0 = random_floats(n + 4, 12u, -1.f, 1.f);
  core::DeviceBuffer<float> xb(n + 4), yb(n + 4);
  xb.upload(x0);
  // (1, 1): float4 after a peeled head; (1, 3): float2 after a peeled head; (1, 2): scalar.
  for (std::size_t oy : {std::size_t{1}, std::size_t{3}, std::size_t{2}}) {
    yb.upload(y0);
    ew::axpy(ew::Variant::best, -2.5f, xb.data() + 1, yb.data() + oy, n);
    MEMHIER_CUDA(cudaDeviceSynchronize());
    const std::vector<float> y = yb.download();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i)
      wrong += bits(y[oy + i]) != bits(std::fma(-2.5f, x0[1 + i], y0[oy + i]));
    EXPECT_EQ(wrong, 0u) << "y+" << oy;
  }
}

TEST(ElementwiseApi, ParticleLayoutsAgreeExactly) {
  MEMHIER_REQUIRE_GPU(dev);
  const float dt = 0.375f;
  for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{1000}, std::size_t{65537}}) {
    std::vector<std::vector<float>> field(6);
    for (std::size_t f = 0; f < 6; ++f)
      field[f] = random_floats(n + 1, 21u + static_cast<std::uint32_t>(f), f < 3 ? 0.5f : 0.25f,
                               f < 3 ? 1.5f : 1.25f);
    std::vector<float> aos((n + 1) * 6);
    for (std::size_t i = 0; i <= n; ++i)
      for (std::size_t f = 0; f < 6; ++f) aos[i * 6 + f] = field[f][i];

    core::DeviceBuffer<float> d_aos(aos.size());
    d_aos.upload(aos);
    ew::update_particles_aos(reinterpret_cast<ew::Particle*>(d_aos.data()), n, dt);
    std::vector<core::DeviceBuffer<float>> d(6);
    for (std::size_t f = 0; f < 6; ++f) {
      d[f] = core::DeviceBuffer<float>(n + 1);
      d[f].upload(field[f]);
    }
    ew::update_particles_soa(
        {d[0].data(), d[1].data(), d[2].data(), d[3].data(), d[4].data(), d[5].data()}, n, dt);
    MEMHIER_CUDA(cudaDeviceSynchronize());
    const std::vector<float> got_aos = d_aos.download();
    std::size_t wrong_aos = 0, wrong_soa = 0;
    for (std::size_t f = 0; f < 6; ++f) {
      const std::vector<float> got_soa = d[f].download();
      for (std::size_t i = 0; i <= n; ++i) {
        // Positions of particles 0..n-1 move; velocities and the guard particle n do not.
        const float want =
            (f < 3 && i < n) ? std::fma(field[f + 3][i], dt, field[f][i]) : field[f][i];
        wrong_aos += bits(got_aos[i * 6 + f]) != bits(want);
        wrong_soa += bits(got_soa[i]) != bits(want);
      }
    }
    EXPECT_EQ(wrong_aos, 0u) << "aos n=" << n;
    EXPECT_EQ(wrong_soa, 0u) << "soa n=" << n;
  }
}

}  // namespace
}  // namespace memhier::testing
