// The reduction ladder's registration: variants in rung order with their techniques
// and the source texts' claims, the shapes, and the Case (random inputs in [0, 1), a float64
// sum computed on the device, NaN-poisoned output, cub::DeviceReduce::Sum as the baseline).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/families.hpp"
#include "kernels/reduction/stream.hpp"
#include "kernels/tuning/record.hpp"
#include "memhier/claims/ladders.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/random.hpp"
#include "memhier/core/verify.hpp"
#include "memhier/kernels/reduction.hpp"
#include "memhier/model/replay.hpp"
#include "variants.hpp"

namespace memhier::kernels {
namespace {

namespace rd = memhier::reduction;

// Relative error allowed for the fp32 sum. Inputs are uniform in [0, 1), so every term
// is positive and |sum| = sum|x|: the relative error is bounded by (longest chain of
// float additions any element passes through) x u, u = 2^-24 ~ 6e-8 (Higham). On an
// H100 at 2^28 elements the longest chain is about 28 for the classic trees and about
// 150 for the grid-stride ones (about 124 sequential adds per accumulator, log2 of the
// accumulators, the block and the grid), so the worst case stays below 9e-6; the typical
// (random-walk) error is near sqrt(chain) x u, about 1e-7. CUB's error is of the same kind.
constexpr double kTolerance = 1e-5;

/// The bound on the one output: (log2(n) + 16) u sum|x|. Every rung adds along a tree
/// about log2(n) deep; the sequential chains before it (up to ~150 adds per accumulator at
/// 2^28) err in random directions that average out over the accumulators, so 16 more
/// roundings leave a wide margin over the typical error of a few u, while one skipped
/// 1024-input block (3.8e-6 of the sum at 2^28) is beyond the bound (2.6e-6 there).
double bound_factor(std::size_t n) {
  return (std::log2(static_cast<double>(n)) + 16.0) * core::kFp32Unit;
}

/// The CPU float64 reference (tests of the device one) up to this many elements.
constexpr std::size_t kCpuReferenceLimit = std::size_t(1) << 25;

constexpr int kRefThreads = 256, kRefBlocks = 512;

/// One block's float64 sum and sum of |x|: a grid-stride loop and a shared-memory tree.
__device__ void block_sums(double s, double a, double* out_s, double* out_a) {
  __shared__ double ss[kRefThreads], sa[kRefThreads];
  ss[threadIdx.x] = s;
  sa[threadIdx.x] = a;
  __syncthreads();
  for (int half = kRefThreads / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half) {
      ss[threadIdx.x] += ss[threadIdx.x + half];
      sa[threadIdx.x] += sa[threadIdx.x + half];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) *out_s = ss[0], *out_a = sa[0];
}

/// Per-block float64 partials of sum x and sum |x|. Inputs are multiples of 2^-24 below 1,
/// so up to 2^29 of them sum exactly in float64, in any order.
__global__ void reference_partials(const float* __restrict__ x, std::size_t n,
                                   double* __restrict__ part) {
  double s = 0, a = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    s += x[i];
    a += fabs(static_cast<double>(x[i]));
  }
  block_sums(s, a, &part[blockIdx.x], &part[gridDim.x + blockIdx.x]);
}

/// The partials' sums: the reference sum and its bound's scale sum |x|.
__global__ void reference_total(const double* __restrict__ part, int blocks, double* ref,
                                float* scale) {
  double s = 0, a = 0;
  for (int b = threadIdx.x; b < blocks; b += blockDim.x) s += part[b], a += part[blocks + b];
  double sa = 0;
  block_sums(s, a, ref, &sa);
  if (threadIdx.x == 0) *scale = static_cast<float>(sa);
}

class ReductionCase final : public registry::Case {
 public:
  ReductionCase(std::size_t n, std::uint32_t seed)
      : n_(n), in_(n), out_(1), ws_(n), ref_(1), scale_(1), part_(2 * kRefBlocks) {
    core::fill_random(in_.data(), n_, seed, 0.0f, 1.0f);
    cub_bytes_ = std::max<std::size_t>(rd::detail::cub_sum_temp_bytes(n_), 1);
    cub_temp_ = core::DeviceBuffer<char>(cub_bytes_);
  }

  std::string shape() const override { return std::to_string(n_); }

  registry::Work work() const override {
    registry::Work w;
    w.bytes = 4.0 * static_cast<double>(n_) + 4.0;  // every input read once, one float written
    return w;
  }

  void run(const std::string& variant, cudaStream_t stream) override {
    rd::reduce(rd::variant_from_string(variant), rd::Op::sum, in_.data(), n_, out_.data(), ws_,
               stream);
  }

  void poison(cudaStream_t stream) override { out_.poison(stream); }

  std::vector<core::OutputSpec> outputs() override {
    if (!ref_ready_) {
      reference_partials<<<kRefBlocks, kRefThreads>>>(in_.data(), n_, part_.data());
      MEMHIER_CHECK_LAUNCH();
      reference_total<<<1, kRefThreads>>>(part_.data(), kRefBlocks, ref_.data(), scale_.data());
      MEMHIER_CHECK_LAUNCH();
      MEMHIER_CUDA(cudaDeviceSynchronize());
      ref_ready_ = true;
    }
    return {{"sum", out_.data(), 1, 0, core::ElemType::f32, ref_.data(), scale_.data(),
             bound_factor(n_)}};
  }

  std::vector<core::HostReference> cpu_reference() override {
    if (n_ > kCpuReferenceLimit)
      throw std::invalid_argument("reduction " + shape() + ": too large for the CPU reference.");
    const std::vector<float> x = in_.download();
    double sum = 0, abs_sum = 0;
    for (float v : x) sum += static_cast<double>(v), abs_sum += std::fabs(static_cast<double>(v));
    return {{{sum}, {abs_sum}}};
  }

  double tolerance() const override { return kTolerance; }

  std::string baseline_name() const override { return "cub::DeviceReduce::Sum"; }

  void run_baseline(cudaStream_t stream) override {
    rd::detail::cub_sum(cub_temp_.data(), cub_bytes_, in_.data(), n_, out_.data(), stream);
  }

 private:
  std::size_t n_;
  core::DeviceBuffer<float> in_;
  core::DeviceBuffer<float> out_;
  rd::Workspace ws_;
  core::DeviceBuffer<double> ref_;   // the float64 sum, computed on the first outputs()
  core::DeviceBuffer<float> scale_;  // sum |x|, its bound's scale
  core::DeviceBuffer<double> part_;  // per-block partials of both
  bool ref_ready_ = false;
  std::size_t cub_bytes_ = 0;
  core::DeviceBuffer<char> cub_temp_;
};

/// A rung of the table (reduction_rungs.inc) as the bench registers it, with its stream.
registry::Variant variant(rd::Variant v, int rung, std::string technique, registry::Claim claim,
                          const void* symbol, int block_threads,
                          std::function<void(const std::string&, model::AccessSink&)> stream) {
  registry::Variant out = registry::make_variant(rd::to_string(v), rung, std::move(technique),
                                                 std::move(claim), symbol, block_threads);
  out.stream = std::move(stream);
  return out;
}

}  // namespace

registry::Family reduction_family() {
  using rd::Variant;
  namespace d = rd::detail;
  registry::Family f;
  f.name = "reduction";
  f.python_name = "reduce";
  // 16 MiB, and 256 MiB (five L2s; 1 GiB would double the replay for nothing).
  f.comparison_shapes = {"4194304", "67108864"};
  f.title = "Reduction (sum) of an fp32 array";
  f.story =
      "The source texts tell the classic ladder: a tree in shared memory whose interleaved, "
      "divergent first form idles half of every warp ('CS 380 Lecture 15: CUDA Memories, Pt. "
      "2'), sequential addressing that keeps lanes on consecutive words and retires whole "
      "warps ('GPU Memory Hierarchy', 'Shared Memory Patterns' and the lecture), warp "
      "shuffles for the last 32 partials instead of shared memory ('Shared Memory Patterns'; "
      "in the softmax ladder of 'GPU Memory Hierarchy' shuffles take 42 to 35 us and float4 "
      "35 to 28 us), and 16-byte loads worth 1.1-1.25x on a memory-bound kernel ('GPU Memory "
      "Hierarchy'). A reduction does about one flop per 4 bytes, so past the first rungs it "
      "is an HBM stream: the last rungs load float4 over a grid that fills every SM, and the "
      "single pass removes the second launch, which dominates at a few MB.";

  int rung_no = 0;
  // The table's lines in order (a braced list evaluates its elements left to right): a
  // line's rung number is its place.
  f.variants = {
#define MEMHIER_CLASSIC_RUNG(name, launch, symbol, elems, technique, source, claim)            \
  variant(Variant::name, ++rung_no, technique, {source, claim}, d::symbol(), d::kClassicBlock, \
          [](const std::string& s, model::AccessSink& k) {                                     \
            d::stream_classic(elems* d::kClassicBlock, s, k);                                  \
          }),
// The L2::256B rung's loads do not allocate in L1 and fetch 256-byte blocks into L2 (SASS
// LDG.E.NA.LTC256B); cp.async.cg's copies bypass L1 (LDGSTS.E.BYPASS).
#define MEMHIER_GRID_RUNG(name, launch, config, technique, source, claim)                  \
  variant(Variant::name, ++rung_no, technique, {source, claim}, d::config().sum_kernel,    \
          d::config().block_threads, [](const std::string& s, model::AccessSink& k) {      \
            d::stream_grid(d::config().block_threads, d::config().unroll,                  \
                           Variant::name == Variant::best_b256_v4x8_l2pf                   \
                               ? d::GridLoad::l2_256b                                      \
                           : Variant::name == Variant::cp_async_pipeline                   \
                               ? d::GridLoad::async_copy_l1_bypass                         \
                               : d::GridLoad::cached,                                      \
                           Variant::name == Variant::vectorized_grid_stride                \
                               ? d::Finish::two_pass                                       \
                           : Variant::name == Variant::single_pass ? d::Finish::fences     \
                                                                   : d::Finish::acq_rel,   \
                           s, k);                                                          \
          }),
#define MEMHIER_BEST(name, config, technique, source, claim)                            \
  variant(Variant::name, ++rung_no, technique, {source, claim}, d::config().sum_kernel, \
          d::config().block_threads, nullptr),
#include "memhier/kernels/reduction_rungs.inc"
  };
  // The configuration tuned for this card at n.
  f.variants.back().runs = [](const std::string& shape) {
    const std::vector<std::int64_t> dims = registry::parse_shape(shape, 1, "reduction");
    return std::string(rd::to_string(d::cached_best(static_cast<std::size_t>(dims[0]))));
  };
  f.tune = [](const std::string& shape, bool retune) {
    const std::vector<std::int64_t> dims = registry::parse_shape(shape, 1, "reduction");
    const std::size_t n = static_cast<std::size_t>(dims[0]);
    const std::size_t ws_bytes = rd::reduce_workspace_bytes(Variant::best, n);
    core::require_device_memory(4.0 * static_cast<double>(n) + static_cast<double>(ws_bytes),
                                "reduction " + shape);
    core::DeviceBuffer<float> in(n);
    core::DeviceBuffer<char> ws(ws_bytes);
    core::fill_random(in.data(), n, 1u, -1.f, 1.f, nullptr);
    MEMHIER_CUDA(cudaMemset(ws.data(), 0, ws_bytes));
    MEMHIER_CUDA(cudaDeviceSynchronize());
    return memhier::tuning::tune_record(
        "reduction", shape, d::tune_best(rd::Op::sum, in.data(), n, ws.data(), ws_bytes, retune));
  };
  f.read_dominated = true;  // every input read once, one word (or 256 bins) written
  f.claims.checks = claims::reduction_checks;
  f.bench_shapes = {"268435456", "1048576"};
  f.quick_shapes = {"16777216", "1048576"};
  f.test_shapes = {"1",    "7",    "31",    "32",      "33",      "1023",
                   "1025", "4099", "65537", "1000003", "16777217"};
  f.check_shape = [](const std::string& shape) { registry::parse_shape(shape, 1, "reduction"); };
  f.make_case = [](const std::string& shape,
                   std::uint32_t seed) -> std::unique_ptr<registry::Case> {
    // Parse and validate before touching the GPU: bad input is answered without one.
    const std::vector<std::int64_t> dims = registry::parse_shape(shape, 1, "reduction");
    const std::size_t n = static_cast<std::size_t>(dims[0]);
    core::require_device_memory(
        4.0 * static_cast<double>(n) + static_cast<double>(rd::reduce_workspace_bytes_all(n)) +
            static_cast<double>(rd::detail::cub_sum_temp_bytes(n)) + 16.0 * kRefBlocks + 64.0,
        "reduction " + shape);
    return std::make_unique<ReductionCase>(n, seed);
  };
  return f;
}

}  // namespace memhier::kernels
