// The reduction API: bad input answered with std::invalid_argument before the device
// is touched; max against a CPU max on all-negative inputs (the identity must be -inf,
// not 0); every variant on inputs that are not 16-byte aligned; one workspace reused
// across sizes and variants (the single-pass counter resets itself); best.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
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
#include "memhier/kernels/reduction.hpp"

namespace memhier::testing {
namespace {

namespace rd = memhier::reduction;

// Never dereferenced: every call below is rejected before a kernel is launched.
float* fake_pointer(std::uintptr_t address) {
  return reinterpret_cast<float*>(address);
}

TEST(ReductionApi, RejectsBadArgumentsBeforeTouchingTheDevice) {
  float* p = fake_pointer(4096);
  EXPECT_THROW(rd::reduce(rd::Variant::best, rd::Op::sum, p, 0, p + 64, p + 128, 4096),
               std::invalid_argument);
  EXPECT_THROW(rd::reduce(rd::Variant::best, rd::Op::sum, nullptr, 16, p + 64, p + 128, 4096),
               std::invalid_argument);
  EXPECT_THROW(rd::reduce(rd::Variant::best, rd::Op::sum, p, 16, nullptr, p + 128, 4096),
               std::invalid_argument);
  EXPECT_THROW(rd::reduce(rd::Variant::best, rd::Op::sum, p, 16, p + 64, nullptr, 4096),
               std::invalid_argument);
  EXPECT_THROW(rd::reduce(rd::Variant::single_pass, rd::Op::max, fake_pointer(4098), 16, p + 64,
                          p + 128, 4096),
               std::invalid_argument);
  EXPECT_THROW(rd::reduce(static_cast<rd::Variant>(99), rd::Op::sum, p, 16, p + 64, p + 128, 4096),
               std::invalid_argument);
  EXPECT_THROW(rd::reduce(rd::Variant::best, static_cast<rd::Op>(7), p, 16, p + 64, p + 128, 4096),
               std::invalid_argument);
  EXPECT_THROW(rd::variant_from_string("fastest"), std::invalid_argument);
  for (rd::Variant v : rd::all_variants()) EXPECT_EQ(rd::variant_from_string(rd::to_string(v)), v);
  EXPECT_EQ(rd::all_variants().back(), rd::Variant::best);
  EXPECT_NE(rd::best_variant_for(1u << 20), rd::Variant::best);
  EXPECT_NE(rd::best_variant_for(std::size_t(1) << 28), rd::Variant::best);
}

struct Input {
  core::DeviceBuffer<float> buf;
  std::vector<float> host;
};

Input random_input(std::size_t count, std::uint32_t seed, float lo, float hi) {
  Input in{core::DeviceBuffer<float>(count), {}};
  core::fill_random(in.buf.data(), count, seed, lo, hi);
  in.host = in.buf.download();
  return in;
}

float read_one(const float* device) {
  float v = 0;
  MEMHIER_CUDA(cudaMemcpy(&v, device, sizeof(float), cudaMemcpyDeviceToHost));
  return v;
}

double cpu_sum(const std::vector<float>& x, std::size_t off, std::size_t n) {
  double s = 0;
  for (std::size_t i = off; i < off + n; ++i) s += static_cast<double>(x[i]);
  return s;
}

float cpu_max(const std::vector<float>& x, std::size_t off, std::size_t n) {
  return *std::max_element(x.begin() + static_cast<std::ptrdiff_t>(off),
                           x.begin() + static_cast<std::ptrdiff_t>(off + n));
}

TEST(ReductionApi, RejectsASmallOrOverlappingWorkspace) {
  MEMHIER_REQUIRE_GPU(dev);
  const std::size_t n = 1000003;
  core::DeviceBuffer<float> in(n), out(1);
  core::fill_random(in.data(), n, 3, 0.0f, 1.0f);
  const std::size_t need = rd::reduce_workspace_bytes(rd::Variant::single_pass, n);
  EXPECT_GT(need, std::size_t(256));
  core::DeviceBuffer<char> ws(need);
  MEMHIER_CUDA(cudaMemset(ws.data(), 0, need));
  EXPECT_THROW(rd::reduce(rd::Variant::single_pass, rd::Op::sum, in.data(), n, out.data(),
                          ws.data(), need - 1),
               std::invalid_argument);
  EXPECT_THROW(rd::reduce(rd::Variant::single_pass, rd::Op::sum, in.data(), n, out.data(),
                          in.data(), n * sizeof(float)),
               std::invalid_argument);
  rd::Workspace small(100);
  EXPECT_THROW(rd::reduce(rd::Variant::best, rd::Op::sum, in.data(), n, out.data(), small),
               std::invalid_argument);
  // The exact size is enough.
  rd::reduce(rd::Variant::single_pass, rd::Op::sum, in.data(), n, out.data(), ws.data(), need);
  const double ref = cpu_sum(in.download(), 0, n);
  EXPECT_LE(std::fabs(static_cast<double>(read_one(out.data())) - ref) / ref, 1e-5);
}

// Max is exact: every variant must return the CPU's maximum bit for bit, on inputs in
// [-3, -1) (an identity of 0 would win), at offsets 0..3 floats from a 16-byte boundary.
TEST(ReductionApi, MaxMatchesTheCpuForEveryVariantAndAlignment) {
  MEMHIER_REQUIRE_GPU(dev);
  const std::size_t sizes[] = {1, 33, 4099, 1000003};
  const std::size_t largest = 1000003;
  Input in = random_input(largest + 4, 11, -3.0f, -1.0f);
  core::DeviceBuffer<float> out(1);
  rd::Workspace ws(largest);
  for (rd::Variant v : rd::all_variants())
    for (std::size_t n : sizes)
      for (std::size_t off = 0; off < 4; ++off) {
        out.poison();
        rd::reduce(v, rd::Op::max, in.buf.data() + off, n, out.data(), ws);
        EXPECT_EQ(read_one(out.data()), cpu_max(in.host, off, n))
            << rd::to_string(v) << " n=" << n << " offset=" << off;
      }
}

// Sums at offsets 1..3 floats (not 16-byte aligned): vectorized variants peel a head.
TEST(ReductionApi, SumIsRightForEveryVariantOnMisalignedInput) {
  MEMHIER_REQUIRE_GPU(dev);
  const std::size_t sizes[] = {1, 5, 4099, 1000003};
  const std::size_t largest = 1000003;
  Input in = random_input(largest + 4, 12, 0.0f, 1.0f);
  core::DeviceBuffer<float> out(1);
  rd::Workspace ws(largest);
  for (rd::Variant v : rd::all_variants())
    for (std::size_t n : sizes)
      for (std::size_t off = 1; off < 4; ++off) {
        out.poison();
        rd::reduce(v, rd::Op::sum, in.buf.data() + off, n, out.data(), ws);
        const double ref = cpu_sum(in.host, off, n);
        const double got = static_cast<double>(read_one(out.data()));
        EXPECT_LE(std::fabs(got - ref) / ref, 1e-5)
            << rd::to_string(v) << " n=" << n << " offset=" << off << ": " << got << " vs " << ref;
      }
}

// One workspace, many calls of different sizes (so different grids) and variants, on two
// streams in turn: the arrival counter must be back at zero after every call.
TEST(ReductionApi, OneWorkspaceServesManyCallsInARow) {
  MEMHIER_REQUIRE_GPU(dev);
  const std::size_t largest = std::size_t(3) << 20;
  Input in = random_input(largest, 13, 0.0f, 1.0f);
  core::DeviceBuffer<float> out(1);
  rd::Workspace ws(largest);
  cudaStream_t s2 = nullptr;
  MEMHIER_CUDA(cudaStreamCreate(&s2));
  const std::size_t sizes[] = {1u << 20, 5000, largest, 1u << 20, 4097, largest};
  const rd::Variant singles[] = {rd::Variant::single_pass, rd::Variant::best_b512_v4x4,
                                 rd::Variant::best_b256_v4x8_l2pf, rd::Variant::cp_async_pipeline,
                                 rd::Variant::best};
  int call = 0;
  for (int round = 0; round < 2; ++round)
    for (rd::Variant v : singles)
      for (std::size_t n : sizes) {
        cudaStream_t s = (call++ % 2) ? s2 : nullptr;
        out.poison(s);
        rd::reduce(v, rd::Op::sum, in.buf.data(), n, out.data(), ws, s);
        MEMHIER_CUDA(cudaStreamSynchronize(s));
        const double ref = cpu_sum(in.host, 0, n);
        const double got = static_cast<double>(read_one(out.data()));
        EXPECT_LE(std::fabs(got - ref) / ref, 1e-5) << rd::to_string(v) << " n=" << n;
      }
  MEMHIER_CUDA(cudaStreamDestroy(s2));
}

TEST(ReductionApi, BestIsRightAcrossItsDispatchThreshold) {
  MEMHIER_REQUIRE_GPU(dev);
  const std::size_t largest = (std::size_t(1) << 22) + 3;
  Input in = random_input(largest, 14, 0.0f, 1.0f);
  core::DeviceBuffer<float> out(1);
  const std::size_t sizes[] = {std::size_t(1) << 20, (std::size_t(1) << 22) - 1, largest};
  std::size_t need = 0;  // best may pick another configuration at each size
  for (std::size_t n : sizes)
    need = std::max(need, rd::reduce_workspace_bytes(rd::Variant::best, n));
  core::DeviceBuffer<char> ws(need);
  MEMHIER_CUDA(cudaMemset(ws.data(), 0, need));
  for (std::size_t n : sizes) {
    out.poison();
    rd::reduce(rd::Variant::best, rd::Op::sum, in.buf.data(), n, out.data(), ws.data(), need);
    const double ref = cpu_sum(in.host, 0, n);
    EXPECT_LE(std::fabs(static_cast<double>(read_one(out.data())) - ref) / ref, 1e-5) << n;
  }
}

// best times its configurations at the first n of 2^21 elements or more on a card, keeps the
// choice in the cache every tuned family shares, and runs it for sum and max alike; below
// that, and before tuning, it runs best_b512_v4x4.
TEST(ReductionApi, BestIsTunedPerSizeAndKeptInTheSharedCache) {
  MEMHIER_REQUIRE_GPU(dev);
  const ScopedCacheDir cache("memhier-reduction-tune");
  rd::forget_tuning();
  const std::size_t n = (std::size_t(1) << 22) + 5;
  Input in = random_input(n + 1, 15, 0.0f, 1.0f);
  core::DeviceBuffer<float> out(1);
  rd::Workspace ws(n);
  EXPECT_EQ(rd::best_variant_for(n), rd::Variant::best_b512_v4x4);  // nothing known yet
  out.poison();
  rd::reduce(rd::Variant::best, rd::Op::sum, in.buf.data() + 1, n, out.data(), ws);
  const double ref = cpu_sum(in.host, 1, n);
  EXPECT_LE(std::fabs(static_cast<double>(read_one(out.data())) - ref) / ref, 1e-5);
  const rd::Variant chosen = rd::best_variant_for(n);
  EXPECT_TRUE(chosen == rd::Variant::best_b512_v4x4 || chosen == rd::Variant::best_b256_v4x8_l2pf ||
              chosen == rd::Variant::cp_async_pipeline)
      << rd::to_string(chosen);
  std::ifstream file(cache.dir() / "gemm-tuning.json");
  ASSERT_TRUE(file.good());
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("|reduction|" + std::to_string(n)), std::string::npos) << text;
  rd::forget_tuning();
  EXPECT_EQ(rd::best_variant_for(n), chosen);  // from the file
  EXPECT_EQ(rd::best_variant_for(std::size_t(1) << 20), rd::Variant::best_b512_v4x4);
  out.poison();
  rd::reduce(rd::Variant::best, rd::Op::max, in.buf.data() + 1, n, out.data(), ws);
  EXPECT_EQ(read_one(out.data()), cpu_max(in.host, 1, n));
  rd::forget_tuning();
}

}  // namespace
}  // namespace memhier::testing
