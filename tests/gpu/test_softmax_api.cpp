// The softmax API: bad input answered with one sentence before any launch, the scalar
// fallback for rows that are not 16-byte aligned, and `best` against a float64 reference.
// (test_kernels.cpp verifies every variant on the family's odd shapes.)
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gpu_test_util.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/random.hpp"
#include "memhier/kernels/softmax.hpp"

namespace {

namespace sm = memhier::softmax;
using memhier::core::DeviceBuffer;

/// Relative L2 error of `y` (rows x cols at element offset `off`) against a float64 softmax
/// of `x` (same layout); NaN if any output is not finite.
double softmax_error(const std::vector<float>& x, const std::vector<float>& y, std::size_t off,
                     int rows, int cols) {
  double num = 0, den = 0;
  for (int r = 0; r < rows; ++r) {
    const float* xr = x.data() + off + static_cast<std::size_t>(r) * static_cast<std::size_t>(cols);
    const float* yr = y.data() + off + static_cast<std::size_t>(r) * static_cast<std::size_t>(cols);
    double m = -INFINITY, s = 0;
    for (int c = 0; c < cols; ++c) m = std::fmax(m, static_cast<double>(xr[c]));
    for (int c = 0; c < cols; ++c) s += std::exp(static_cast<double>(xr[c]) - m);
    for (int c = 0; c < cols; ++c) {
      if (!std::isfinite(yr[c])) return NAN;
      const double ref = std::exp(static_cast<double>(xr[c]) - m) / s;
      num += (yr[c] - ref) * (yr[c] - ref);
      den += ref * ref;
    }
  }
  return std::sqrt(num / den);
}

/// Runs `v` on random rows x cols at element offsets (in_off, out_off) into fresh buffers;
/// returns the error, or throws what the API throws.
double run_case(sm::Variant v, int rows, int cols, std::size_t in_off, std::size_t out_off) {
  const std::size_t n = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  DeviceBuffer<float> in(n + in_off), out(n + out_off);
  memhier::core::fill_random(in.data(), in.size(), 7, -4.f, 4.f);
  out.poison();
  sm::softmax(v, in.data() + in_off, out.data() + out_off, rows, cols);
  MEMHIER_CUDA(cudaDeviceSynchronize());
  const std::vector<float> x = in.download(), y = out.download();
  // Compare with the input shifted to the output's offset.
  std::vector<float> xs(y.size());
  for (std::size_t i = 0; i < n; ++i) xs[out_off + i] = x[in_off + i];
  return softmax_error(xs, y, out_off, rows, cols);
}

TEST(SoftmaxApi, NamesRoundTrip) {
  for (sm::Variant v : sm::kAllVariants) {
    const std::string name = sm::to_string(v);
    ASSERT_TRUE(sm::variant_from_string(name).has_value()) << name;
    EXPECT_EQ(*sm::variant_from_string(name), v) << name;
  }
  EXPECT_FALSE(sm::variant_from_string("fastest").has_value());
}

TEST(SoftmaxApi, RejectsBadInputBeforeAnyLaunch) {
  // Checked before the device is touched: fake, well-aligned addresses are enough.
  float* a = reinterpret_cast<float*>(std::uintptr_t{1} << 20);
  float* b = reinterpret_cast<float*>(std::uintptr_t{1} << 24);
  EXPECT_THROW(sm::softmax(sm::Variant::best, nullptr, b, 4, 4), std::invalid_argument);
  EXPECT_THROW(sm::softmax(sm::Variant::best, a, nullptr, 4, 4), std::invalid_argument);
  EXPECT_THROW(sm::softmax(sm::Variant::best, a, b, 0, 4), std::invalid_argument);
  EXPECT_THROW(sm::softmax(sm::Variant::best, a, b, 4, 0), std::invalid_argument);
  EXPECT_THROW(sm::softmax(sm::Variant::best, a, b, -3, 4), std::invalid_argument);
  EXPECT_THROW(sm::softmax(sm::Variant::best, a, b, 1, (1 << 30) + 1), std::invalid_argument);
  EXPECT_THROW(sm::softmax(sm::Variant::best, a, a + 3, 2, 4), std::invalid_argument);  // overlap
  EXPECT_THROW(sm::softmax(sm::Variant::online, a, a, 2, 4), std::invalid_argument);    // in place
  EXPECT_THROW(
      sm::softmax(sm::Variant::best,
                  reinterpret_cast<const float*>(reinterpret_cast<std::uintptr_t>(a) + 2), b, 2, 4),
      std::invalid_argument);  // not 4-byte aligned
  EXPECT_THROW(sm::softmax(sm::Variant::warp_per_row, a, b, 2, 1025), std::invalid_argument);
  EXPECT_THROW(sm::best_variant(0, 10), std::invalid_argument);
}

TEST(SoftmaxApi, BlockPerRowRejectsRowsBeyondSharedMemory) {
  MEMHIER_REQUIRE_GPU(dev);
  const int cols = dev->smem_per_block_optin / 4 + 1024;
  DeviceBuffer<float> in(static_cast<std::size_t>(cols)), out(static_cast<std::size_t>(cols));
  EXPECT_THROW(sm::softmax(sm::Variant::block_per_row, in.data(), out.data(), 1, cols),
               std::invalid_argument);
  // best falls back to a path that takes it, and is right.
  EXPECT_LE(run_case(sm::Variant::best, 1, cols, 0, 0), 1e-5);
}

TEST(SoftmaxApi, UnalignedRowsFallBackToScalar) {
  MEMHIER_REQUIRE_GPU(dev);
  // cols % 4 == 0 but pointers one and three floats past 16-byte alignment.
  for (sm::Variant v : sm::kAllVariants) {
    for (int cols : {96, 2048}) {
      double e = NAN;
      try {
        e = run_case(v, 5, cols, 1, 3);
      } catch (const std::invalid_argument& ex) {
        ASSERT_EQ(v, sm::Variant::warp_per_row) << ex.what();  // only cols > 1024 is refused
        continue;
      }
      EXPECT_LE(e, 1e-5) << sm::to_string(v) << " at 5x" << cols;
    }
  }
}

TEST(SoftmaxApi, BestMatchesFloat64Reference) {
  MEMHIER_REQUIRE_GPU(dev);
  const std::pair<int, int> shapes[] = {{300, 100}, {3, 5000},   {8, 65536},
                                        {2, 70001}, {257, 4096}, {1, 300000}};
  for (const auto& s : shapes) {
    EXPECT_LE(run_case(sm::Variant::best, s.first, s.second, 0, 0), 1e-5)
        << "best (" << sm::to_string(sm::best_variant(s.first, s.second)) << ") at " << s.first
        << "x" << s.second;
  }
}

TEST(SoftmaxApi, BestDispatchesByShape) {
  MEMHIER_REQUIRE_GPU(dev);
  EXPECT_EQ(sm::best_variant(65536, 128), sm::Variant::warp_per_row);
  EXPECT_EQ(sm::best_variant(32768, 1024), sm::Variant::warp_per_row);
  EXPECT_EQ(sm::best_variant(1024, 4096), sm::Variant::block_per_row);
  EXPECT_EQ(sm::best_variant(8192, 8192), sm::Variant::block_per_row);
  // Rows enough to fill the SMs and a row that fits in shared memory: a block per row.
  EXPECT_EQ(sm::best_variant(4096, 32768), sm::Variant::block_per_row);
  if (dev->cc_major >= 9) {  // few long rows: thread-block clusters split each row
    EXPECT_EQ(sm::best_variant(8, 65536), sm::Variant::cluster_per_row);
  }
}

}  // namespace
