// The public histogram API: bad input answered with std::invalid_argument before any
// CUDA call, names round-trip, and every variant exact on unaligned inputs, runs mixed
// with random bytes, out-of-range int32 values and an empty input.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "gpu_test_util.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/kernels/histogram.hpp"

namespace memhier::testing {
namespace {

namespace hist = memhier::histogram;

std::uint32_t next_random(std::uint32_t* state) {  // xorshift32: deterministic test data
  std::uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  return x;
}

std::vector<std::uint32_t> cpu_counts(const std::vector<std::uint8_t>& v, std::size_t first,
                                      std::size_t n) {
  std::vector<std::uint32_t> c(256, 0);
  for (std::size_t i = first; i < first + n; ++i) ++c[v[i]];
  return c;
}

std::vector<std::uint32_t> cpu_counts(const std::vector<std::int32_t>& v, std::size_t first,
                                      std::size_t n) {
  std::vector<std::uint32_t> c(256, 0);
  for (std::size_t i = first; i < first + n; ++i) {
    const std::uint32_t u = static_cast<std::uint32_t>(v[i]);
    if (u < 256) ++c[u];
  }
  return c;
}

TEST(HistogramApi, NamesRoundTrip) {
  for (hist::Variant v : hist::kAllVariants) {
    const std::optional<hist::Variant> back = hist::variant_from_string(hist::to_string(v));
    ASSERT_TRUE(back.has_value()) << hist::to_string(v);
    EXPECT_EQ(*back, v);
  }
  EXPECT_FALSE(hist::variant_from_string("no_such_variant").has_value());
}

// Validation happens before any CUDA call: these need no GPU (the pointers are never used).
TEST(HistogramApi, BadInputThrows) {
  auto* fake_bins = reinterpret_cast<std::uint32_t*>(std::uintptr_t{0x10000});
  const auto* fake_u8 = reinterpret_cast<const std::uint8_t*>(std::uintptr_t{0x20000});
  const auto* fake_i32 = reinterpret_cast<const std::int32_t*>(std::uintptr_t{0x20000});
  for (hist::Variant v : hist::kAllVariants) {
    EXPECT_THROW(hist::histogram256(v, fake_u8, 16, nullptr), std::invalid_argument);
    EXPECT_THROW(hist::histogram256(v, static_cast<const std::uint8_t*>(nullptr), 16, fake_bins),
                 std::invalid_argument);
    EXPECT_THROW(hist::histogram256(v, fake_u8, 16,
                                    reinterpret_cast<std::uint32_t*>(std::uintptr_t{0x10002})),
                 std::invalid_argument);
    EXPECT_THROW(hist::histogram256(v, fake_u8, hist::kMaxElements + 1, fake_bins),
                 std::invalid_argument);
    EXPECT_THROW(
        hist::histogram256(v, reinterpret_cast<const std::int32_t*>(std::uintptr_t{0x20002}), 16,
                           fake_bins),
        std::invalid_argument);
    EXPECT_THROW(hist::histogram256(v, fake_i32, hist::kMaxElements + 1, fake_bins),
                 std::invalid_argument);
  }
}

TEST(HistogramApi, EmptyInputZeroesBins) {
  MEMHIER_REQUIRE_GPU(dev);
  core::DeviceBuffer<std::uint32_t> bins(256);
  for (hist::Variant v : hist::kAllVariants) {
    bins.poison();
    hist::histogram256(v, static_cast<const std::uint8_t*>(nullptr), 0, bins.data());
    MEMHIER_CUDA(cudaDeviceSynchronize());
    EXPECT_EQ(bins.download(), std::vector<std::uint32_t>(256, 0)) << hist::to_string(v);
  }
}

// Every variant, every start offset within 16 bytes, bytes that mix 16-byte runs (one
// value) with random ones, so the run path and the counting path meet in one warp.
TEST(HistogramApi, Uint8UnalignedAndRunsExact) {
  MEMHIER_REQUIRE_GPU(dev);
  const std::size_t total = 300007;
  std::vector<std::uint8_t> host(total);
  std::uint32_t state = 12345;
  for (std::size_t i = 0; i < total; i += 16) {
    const std::uint32_t r = next_random(&state);
    for (std::size_t j = i; j < i + 16 && j < total; ++j)
      host[j] = static_cast<std::uint8_t>(r % 3 == 0 ? (r >> 8) : next_random(&state) >> 24);
  }
  core::DeviceBuffer<std::uint8_t> in(total);
  in.upload(host);
  core::DeviceBuffer<std::uint32_t> bins(256);
  cudaStream_t stream = nullptr;
  MEMHIER_CUDA(cudaStreamCreate(&stream));
  for (hist::Variant v : hist::kAllVariants) {
    VariantRuns runs;  // a documented decline is allowed; running none is not
    for (std::size_t offset : {0, 1, 3, 7, 8, 15})
      for (std::size_t n : {std::size_t{1}, std::size_t{17}, std::size_t{4097}, total - 15})
        runs.attempt([&] {
          bins.poison(stream);
          hist::histogram256(v, in.data() + offset, n, bins.data(), stream);
          MEMHIER_CUDA(cudaStreamSynchronize(stream));
          EXPECT_EQ(bins.download(), cpu_counts(host, offset, n))
              << hist::to_string(v) << " offset " << offset << " n " << n;
        });
    EXPECT_TRUE(runs.ran_where_supported()) << hist::to_string(v) << ": " << runs.why();
  }
  MEMHIER_CUDA(cudaStreamDestroy(stream));
}

// int32: values outside [0, 256) (negative, 256, huge) are skipped; runs of 4 equal
// values (in range and out of range) take the run path.
TEST(HistogramApi, Int32SkipsOutOfRangeExact) {
  MEMHIER_REQUIRE_GPU(dev);
  const std::size_t total = 200003;
  std::vector<std::int32_t> host(total);
  std::uint32_t state = 777;
  for (std::size_t i = 0; i < total; i += 4) {
    const std::uint32_t r = next_random(&state);
    for (std::size_t j = i; j < i + 4 && j < total; ++j) {
      const std::uint32_t x = r % 4 == 0 ? r : next_random(&state);
      switch (x % 7) {
        case 0:
          host[j] = -static_cast<std::int32_t>(x >> 20) - 1;
          break;
        case 1:
          host[j] = 256;
          break;
        case 2:
          host[j] = static_cast<std::int32_t>(x >> 1);
          break;  // mostly >= 256
        default:
          host[j] = static_cast<std::int32_t>(x >> 24);
          break;
      }
    }
  }
  core::DeviceBuffer<std::int32_t> in(total);
  in.upload(host);
  core::DeviceBuffer<std::uint32_t> bins(256);
  for (hist::Variant v : hist::kAllVariants) {
    VariantRuns runs;  // a documented decline is allowed; running none is not
    for (std::size_t offset : {0, 1, 2, 3})
      for (std::size_t n : {std::size_t{1}, std::size_t{5}, std::size_t{1029}, total - 3})
        runs.attempt([&] {
          bins.poison();
          hist::histogram256(v, in.data() + offset, n, bins.data());
          MEMHIER_CUDA(cudaDeviceSynchronize());
          EXPECT_EQ(bins.download(), cpu_counts(host, offset, n))
              << hist::to_string(v) << " offset " << offset << " n " << n;
        });
    EXPECT_TRUE(runs.ran_where_supported()) << hist::to_string(v) << ": " << runs.why();
  }
}

// best on a larger input with every byte equal: one bin holds everything.
TEST(HistogramApi, BestDegenerateLarge) {
  MEMHIER_REQUIRE_GPU(dev);
  const std::size_t n = (std::size_t{1} << 24) + 5;
  core::DeviceBuffer<std::uint8_t> in(n);
  MEMHIER_CUDA(cudaMemset(in.data(), 0xA7, n));
  core::DeviceBuffer<std::uint32_t> bins(256);
  bins.poison();
  hist::histogram256(hist::Variant::best, in.data(), n, bins.data());
  MEMHIER_CUDA(cudaDeviceSynchronize());
  std::vector<std::uint32_t> want(256, 0);
  want[0xA7] = static_cast<std::uint32_t>(n);
  EXPECT_EQ(bins.download(), want);
}

}  // namespace
}  // namespace memhier::testing
