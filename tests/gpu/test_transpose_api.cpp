// The public transpose API: bad input gets std::invalid_argument with a sentence, every
// variant is exact on odd and aligned shapes (including offset, not 16-byte aligned
// pointers, where the float4 rungs fall back), and `best` dispatches correctly.
#include <climits>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/random.hpp"
#include "memhier/kernels/transpose.hpp"

namespace memhier::testing {
namespace {

using transpose::Variant;

// Transposes `rows x cols` random floats placed `offset` elements into the buffers with
// `v`, and returns the number of output elements that differ from the exact transpose.
std::size_t mismatches(Variant v, int rows, int cols, std::size_t offset) {
  const std::size_t n = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  core::DeviceBuffer<float> in(n + offset), out(n + offset);
  core::fill_random(in.data(), n + offset, 7u + static_cast<std::uint32_t>(rows), -1.f, 1.f);
  out.poison();
  transpose::transpose(v, in.data() + offset, out.data() + offset, rows, cols);
  MEMHIER_CUDA(cudaDeviceSynchronize());
  const std::vector<float> a = in.download(), b = out.download();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < static_cast<std::size_t>(rows); ++i)
    for (std::size_t j = 0; j < static_cast<std::size_t>(cols); ++j)
      if (!(b[offset + j * static_cast<std::size_t>(rows) + i] ==
            a[offset + i * static_cast<std::size_t>(cols) + j]))
        ++bad;
  return bad;
}

TEST(TransposeApi, NamesRoundTrip) {
  for (Variant v : transpose::all_variants()) {
    const auto back = transpose::from_string(transpose::to_string(v));
    ASSERT_TRUE(back.has_value()) << transpose::to_string(v);
    EXPECT_EQ(*back, v);
  }
  EXPECT_FALSE(transpose::from_string("no_such_variant").has_value());
  EXPECT_EQ(transpose::all_variants().back(), Variant::best);
}

TEST(TransposeApi, RejectsBadShapesBeforeTouchingTheGpu) {
  EXPECT_THROW(transpose::check_shape(0, 5), std::invalid_argument);
  EXPECT_THROW(transpose::check_shape(5, 0), std::invalid_argument);
  EXPECT_THROW(transpose::check_shape(-3, 5), std::invalid_argument);
  EXPECT_THROW(transpose::check_shape(std::int64_t{INT_MAX} + 1, 1), std::invalid_argument);
  EXPECT_THROW(transpose::check_shape(1, std::int64_t{1} << 40), std::invalid_argument);
  EXPECT_THROW(transpose::check_shape(std::int64_t{1} << 30, std::int64_t{1} << 30),
               std::invalid_argument);  // 2^40 tiles of 32x32
  EXPECT_NO_THROW(transpose::check_shape(1, 1));
  EXPECT_NO_THROW(transpose::check_shape(4099, 1031));
  EXPECT_NO_THROW(transpose::check_shape(1, INT_MAX));
}

TEST(TransposeApi, RejectsBadArguments) {
  MEMHIER_REQUIRE_GPU(dev);
  core::DeviceBuffer<float> in(64 + 4), out(64 + 4);
  EXPECT_THROW(transpose::transpose(Variant::padded, in.data(), out.data(), 0, 8),
               std::invalid_argument);
  EXPECT_THROW(transpose::transpose(Variant::padded, in.data(), out.data(), 8, -1),
               std::invalid_argument);
  EXPECT_THROW(transpose::transpose(Variant::padded, nullptr, out.data(), 8, 8),
               std::invalid_argument);
  EXPECT_THROW(transpose::transpose(Variant::padded, in.data(), nullptr, 8, 8),
               std::invalid_argument);
  // In place, or partly overlapping: rejected.
  EXPECT_THROW(transpose::transpose(Variant::best, in.data(), in.data(), 8, 8),
               std::invalid_argument);
  EXPECT_THROW(transpose::transpose(Variant::best, in.data(), in.data() + 3, 8, 8),
               std::invalid_argument);
  // Not 4-byte aligned.
  const float* odd_in =
      reinterpret_cast<const float*>(reinterpret_cast<const char*>(in.data()) + 2);
  float* odd_out = reinterpret_cast<float*>(reinterpret_cast<char*>(out.data()) + 2);
  EXPECT_THROW(transpose::transpose(Variant::best_64x64, odd_in, out.data(), 8, 8),
               std::invalid_argument);
  EXPECT_THROW(transpose::transpose(Variant::best_64x64, in.data(), odd_out, 8, 8),
               std::invalid_argument);
  // An enumerator that does not exist.
  EXPECT_THROW(transpose::transpose(static_cast<Variant>(99), in.data(), out.data(), 8, 8),
               std::invalid_argument);
  MEMHIER_CUDA(cudaDeviceSynchronize());
}

struct ShapeCase {
  int rows, cols;
};

TEST(TransposeApi, EveryVariantExactOnOddAlignedAndOffsetBuffers) {
  MEMHIER_REQUIRE_GPU(dev);
  const std::vector<ShapeCase> shapes{{1, 1},  {1, 1000}, {1000, 1}, {37, 53},   {64, 65}, {4, 4},
                                      {8, 12}, {68, 132}, {132, 68}, {256, 256}, {96, 4},  {4, 96}};
  // A variant may decline a shape it documents as unsupported (std::invalid_argument), but
  // must run, exactly, at least one of those it supports.
  for (Variant v : transpose::all_variants()) {
    VariantRuns runs;
    for (const ShapeCase& s : shapes)
      for (std::size_t offset : {std::size_t{0}, std::size_t{1}, std::size_t{4}})
        runs.attempt([&] {
          EXPECT_EQ(mismatches(v, s.rows, s.cols, offset), 0u)
              << transpose::to_string(v) << " at " << s.rows << "x" << s.cols << ", offset "
              << offset;
        });
    EXPECT_TRUE(runs.ran_where_supported())
        << transpose::to_string(v) << " ran none of the shapes: " << runs.why();
  }
}

TEST(TransposeApi, BestOnLargerShapes) {
  MEMHIER_REQUIRE_GPU(dev);
  EXPECT_EQ(mismatches(Variant::best, 1024, 2048, 0), 0u);                   // float4 path
  EXPECT_EQ(mismatches(Variant::best, 1031, 2053, 0), 0u);                   // padded fallback
  EXPECT_EQ(mismatches(Variant::best, 1, 1 << 20, 0), 0u);                   // a row: memcpy
  EXPECT_EQ(mismatches(Variant::best, 1 << 20, 1, 0), 0u);                   // a column: memcpy
  EXPECT_EQ(mismatches(Variant::best_64x64_persistent, 4096, 4100, 0), 0u);  // tiles > grid
}

TEST(TransposeApi, BestIsTunedPerShapeAndKeptInTheSharedCache) {
  MEMHIER_REQUIRE_GPU(dev);
  const ScopedCacheDir cache("memhier-transpose-tune");
  transpose::forget_tuning();
  const int rows = 2048, cols = 1028;  // over 2^21 elements and multiples of 4: tuned
  const std::size_t n = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  core::DeviceBuffer<float> in(n), out(n);
  core::fill_random(in.data(), n, 0x7e57u, -1.f, 1.f);
  MEMHIER_CUDA(cudaDeviceSynchronize());
  const Variant chosen = transpose::best_variant_at(in.data(), out.data(), rows, cols);
  const std::string name = transpose::to_string(chosen);
  EXPECT_TRUE(name.rfind("best_", 0) == 0 && chosen != Variant::best) << name;
  // Known now, in this process and (after forget) from the file every tuned family shares.
  EXPECT_EQ(transpose::best_variant_at(in.data(), out.data(), rows, cols), chosen);
  std::ifstream file(cache.dir() / "gemm-tuning.json");
  ASSERT_TRUE(file.good());
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("|transpose|2048x1028"), std::string::npos) << text;
  transpose::forget_tuning();
  EXPECT_EQ(transpose::best_variant_at(in.data(), out.data(), rows, cols), chosen);
  // Untuned: padded where the float4 path cannot run (odd extents, a base off 16 bytes), the
  // default rung at a launch-bound size, a copy for a vector.
  EXPECT_EQ(transpose::best_variant_at(in.data(), out.data(), 1031, 2037), Variant::padded);
  EXPECT_EQ(transpose::best_variant_at(in.data() + 1, out.data(), 64, 64), Variant::padded);
  EXPECT_EQ(transpose::best_variant_at(in.data(), out.data(), 64, 64),
            Variant::best_64x64_prefetch);
  EXPECT_EQ(transpose::best_variant_at(in.data(), out.data(), 1, 4096), Variant::best);
  // best runs the choice, exactly.
  EXPECT_EQ(mismatches(Variant::best, rows, cols, 0), 0u);
  transpose::forget_tuning();
}

}  // namespace
}  // namespace memhier::testing
