// The device verification pass (core::check_output) against the same comparison done by hand
// on the host: exact counts, the worst element and its index, the relative L2 error; and the
// free-memory check every case makes before it allocates.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/verify.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/registry/registry.hpp"

namespace memhier::testing {
namespace {

struct Expected {
  std::uint64_t over = 0, nonfinite = 0, worst_index = 0;
  double worst = 0, err2 = 0, ref2 = 0;
};

/// The definition, element by element on the host.
Expected by_hand(const std::vector<float>& out, const std::vector<double>& ref,
                 const std::vector<float>& scale, double factor) {
  Expected e;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!std::isfinite(out[i])) {
      ++e.nonfinite;
      continue;
    }
    const double d = std::fabs(static_cast<double>(out[i]) - ref[i]);
    const double b = factor * (scale.empty() ? std::fabs(ref[i]) : static_cast<double>(scale[i]));
    const double r = d == 0 ? 0.0 : (b > 0 ? d / b : std::numeric_limits<double>::infinity());
    if (d > b) ++e.over;
    if (r > e.worst) e.worst = r, e.worst_index = i;
    e.err2 += d * d;
    e.ref2 += ref[i] * ref[i];
  }
  return e;
}

// Over a few million elements (several blocks' grid-stride spans), with faults of every
// kind planted: counts, worst and rel-L2 must match the host exactly (the sums closely).
TEST(DeviceVerify, MatchesTheDefinition) {
  MEMHIER_REQUIRE_GPU(dev);
  for (bool with_scale : {false, true}) {
    SCOPED_TRACE(with_scale ? "per-element scale" : "relative to |ref|");
    const std::size_t n = (std::size_t{1} << 22) + 12345;
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> ref(n);
    std::vector<float> out(n), scale;
    for (std::size_t i = 0; i < n; ++i) {
      ref[i] = u(rng);
      out[i] = static_cast<float>(ref[i]);  // correctly rounded: within u |ref|
    }
    if (with_scale)
      for (std::size_t i = 0; i < n; ++i)
        scale.push_back(static_cast<float>(std::fabs(ref[i]) + 0.5));
    const double factor = 2 * core::kFp32Unit;
    out[3] = std::numeric_limits<float>::quiet_NaN();
    out[n - 1] = std::numeric_limits<float>::infinity();
    out[1000] = static_cast<float>(ref[1000] + 0.25);  // far off
    ref[2000000] = 0.75;                               // 1e-4 off: beyond any bound here
    out[2000000] = static_cast<float>(0.75 * (1 + 1e-4));
    ref[77] = 0;
    out[77] = 1e-30f;  // off, against a zero bound when the bound is |ref|
    const Expected want = by_hand(out, ref, scale, factor);

    core::DeviceBuffer<float> d_out(n), d_scale(with_scale ? n : 0);
    core::DeviceBuffer<double> d_ref(n);
    d_out.upload(out);
    d_ref.upload(ref);
    if (with_scale) d_scale.upload(scale);
    core::OutputSpec spec{"y",          d_out.data(),   n,     0, core::ElemType::f32,
                          d_ref.data(), d_scale.data(), factor};
    const core::ElementCheck got = core::check_output(spec);
    EXPECT_EQ(got.checked, n);
    EXPECT_EQ(got.nonfinite, 2u);
    EXPECT_EQ(got.over, want.over);
    EXPECT_GE(got.over, with_scale ? 2u : 3u);
    EXPECT_EQ(got.worst_index, want.worst_index);
    EXPECT_EQ(got.worst, want.worst);
    EXPECT_NEAR(got.err2, want.err2, 1e-9 * want.err2);
    EXPECT_NEAR(got.ref2, want.ref2, 1e-9 * want.ref2);
    EXPECT_TRUE(std::isnan(got.rel_l2()));  // a non-finite element
    EXPECT_TRUE(std::isnan(core::gated_error(got)));

    // Repaired: only the finite faults remain; error() says infinity, rel-L2 stays a number.
    out[3] = static_cast<float>(ref[3]);
    out[n - 1] = static_cast<float>(ref[n - 1]);
    d_out.upload(out);
    const core::ElementCheck fixed = core::check_output(spec);
    EXPECT_EQ(fixed.nonfinite, 0u);
    EXPECT_EQ(fixed.over, want.over);
    EXPECT_TRUE(std::isfinite(fixed.rel_l2()));
    EXPECT_EQ(core::gated_error(fixed), std::numeric_limits<double>::infinity());
  }
}

// Exact comparison (factor 0) of unsigned counts: one count off by one is one bad element.
TEST(DeviceVerify, ExactCounts) {
  MEMHIER_REQUIRE_GPU(dev);
  std::vector<std::uint32_t> bins(256);
  std::vector<double> ref(256);
  for (std::size_t b = 0; b < 256; ++b) bins[b] = static_cast<std::uint32_t>(b * 1000003u % 65536u);
  for (std::size_t b = 0; b < 256; ++b) ref[b] = bins[b];
  core::DeviceBuffer<std::uint32_t> d_bins(256);
  core::DeviceBuffer<double> d_ref(256);
  d_ref.upload(ref);
  d_bins.upload(bins);
  const core::OutputSpec spec{"bins",       d_bins.data(), 256, 0, core::ElemType::u32,
                              d_ref.data(), nullptr,       0.0};
  core::ElementCheck c = core::check_output(spec);
  EXPECT_EQ(c.bad(), 0u);
  EXPECT_EQ(core::gated_error(c), 0.0);
  bins[200] += 1;
  d_bins.upload(bins);
  c = core::check_output(spec);
  EXPECT_EQ(c.over, 1u);
  EXPECT_EQ(c.worst_index, 200u);
  EXPECT_EQ(c.worst, std::numeric_limits<double>::infinity());
}

// A case too large for the card's free memory is refused with one sentence naming the bytes
// needed and free, before it allocates anything (the CLI turns std::invalid_argument into
// exit 2). particles:4000000000 needs 156 bytes per particle, 624 GB: more than any card.
TEST(DeviceVerify, ACaseThatDoesNotFitIsRefusedBeforeAllocating) {
  MEMHIER_REQUIRE_GPU(dev);
  kernels::register_families();
  const registry::Family* f = registry::find_family("elementwise");
  ASSERT_NE(f, nullptr);
  std::size_t free_before = 0, free_after = 0, total = 0;
  MEMHIER_CUDA(cudaMemGetInfo(&free_before, &total));
  try {
    f->make_case("particles:4000000000", 1);
    ADD_FAILURE() << "a 624 GB case was built";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("needs 624000000156 bytes"), std::string::npos) << what;
    EXPECT_NE(what.find("are free."), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  MEMHIER_CUDA(cudaMemGetInfo(&free_after, &total));
  EXPECT_EQ(free_after, free_before);
}

}  // namespace
}  // namespace memhier::testing
