// The reduction ladder's registration: variants in rung order with their techniques
// and the seeds' claims, the shapes, and the Case (random inputs in [0, 1), a float64
// CPU sum, NaN-poisoned output, cub::DeviceReduce::Sum as the baseline).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/families.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/random.hpp"
#include "memhier/core/verify.hpp"
#include "memhier/kernels/reduction.hpp"
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

class ReductionCase final : public registry::Case {
 public:
  ReductionCase(std::size_t n, std::uint32_t seed) : n_(n), in_(n), out_(1), ws_(n) {
    core::fill_random(in_.data(), n_, seed, 0.0f, 1.0f);
    ref_ = cpu_sum();
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

  double error() override {
    const std::vector<float> out = out_.download();
    return core::rel_l2_error(out, std::vector<double>{ref_});
  }

  double tolerance() const override { return kTolerance; }

  std::string baseline_name() const override { return "cub::DeviceReduce::Sum"; }

  void run_baseline(cudaStream_t stream) override {
    rd::detail::cub_sum(cub_temp_.data(), cub_bytes_, in_.data(), n_, out_.data(), stream);
  }

 private:
  // The float64 sum of the inputs as the GPU holds them, downloaded in 64 MB chunks.
  // Inputs are multiples of 2^-24 below 1, so up to 2^29 of them sum exactly.
  double cpu_sum() const {
    constexpr std::size_t kChunk = std::size_t(1) << 24;
    std::vector<float> host(std::min(n_, kChunk));
    double sum = 0;
    for (std::size_t off = 0; off < n_; off += kChunk) {
      const std::size_t m = std::min(kChunk, n_ - off);
      MEMHIER_CUDA(
          cudaMemcpy(host.data(), in_.data() + off, m * sizeof(float), cudaMemcpyDeviceToHost));
      for (std::size_t i = 0; i < m; ++i) sum += static_cast<double>(host[i]);
    }
    return sum;
  }

  std::size_t n_;
  core::DeviceBuffer<float> in_;
  core::DeviceBuffer<float> out_;
  rd::Workspace ws_;
  double ref_ = 0;
  std::size_t cub_bytes_ = 0;
  core::DeviceBuffer<char> cub_temp_;
};

registry::Variant variant(rd::Variant v, int rung, std::string technique, registry::Claim claim,
                       const void* symbol, int block_threads) {
  return registry::make_variant(rd::to_string(v), rung, std::move(technique), std::move(claim),
                             symbol, block_threads);
}

}  // namespace

registry::Family reduction_family() {
  using rd::Variant;
  namespace d = rd::detail;
  registry::Family f;
  f.name = "reduction";
  f.title = "Reduction (sum) of an fp32 array";
  f.seed_story =
      "The seeds tell the classic ladder: a tree in shared memory whose interleaved, divergent "
      "first form idles half of every warp (004), sequential addressing that keeps lanes on "
      "consecutive words and retires whole warps (001, 003, 004), warp shuffles for the last "
      "32 partials instead of shared memory (003; in 001's softmax ladder shuffles take 42 to "
      "35 us and float4 35 to 28 us), and 16-byte loads worth 1.1-1.25x on a memory-bound "
      "kernel (001). "
      "A reduction does about one flop per 4 bytes, so past the first rungs it is an HBM "
      "stream: the last rungs load float4 over a grid that fills every SM, and the single "
      "pass removes the second launch, which dominates at a few MB.";

  const registry::Claim c004{"004 §Vector Reduction with Branch Divergence",
                   "the better tree has divergence only in its last 5 steps, shuts down whole "
                   "warps as it goes, and has no bank conflicts"};
  const registry::Claim c001_seq{"001 §Common Shared Memory Patterns",
                       "use sequential addressing, not interleaved, to minimize bank conflicts "
                       "and avoid warp divergence"};
  const registry::Claim c003{"003 §Pattern 2: Efficient Parallel Reduction",
                   "warp shuffles (__shfl_down_sync) reduce within a warp without shared memory, "
                   "faster; the best reductions are hybrid: shuffle, one word per warp, a small "
                   "final reduction"};
  const registry::Claim c001_vec{"001 §Vectorized Loads: float4",
                       "float4 loads cut load instructions 4x; anti-pattern table: scalar "
                       "~1,400 GB/s, float4 ~1,750 GB/s (1.25x, A100)"};
  const registry::Claim c001_async{"001 §Async Copy Impact on Tiled Kernels (A100)",
                         "a custom reduction reaches 1,600 GB/s, 1,750 GB/s with cp.async, of "
                         "2,039 GB/s peak"};

  const d::GridConfig vgs = d::vectorized_grid_stride_config();
  const d::GridConfig sp = d::single_pass_config();
  const d::GridConfig b512 = d::best_b512_v4x4_config();
  const d::GridConfig b256 = d::best_b256_v4x8_l2pf_config();

  f.variants = {
      variant(Variant::interleaved_divergent, 1,
              "shared-memory tree, stride 1, 2, 4, ...; active threads tid % (2s) == 0: "
              "divergent warps; the same kernel pass after pass",
              c004, d::interleaved_divergent_symbol(), d::kClassicBlock),
      variant(Variant::interleaved_strided, 2,
              "thread tid works on word 2*s*tid: packed active threads, no divergence, but "
              "2s-way bank conflicts",
              c004, d::interleaved_strided_symbol(), d::kClassicBlock),
      variant(Variant::sequential, 3,
              "stride s = blockDim/2 down to 1, threads tid < s add word tid+s: conflict-free, "
              "whole warps retire",
              c001_seq, d::sequential_symbol(), d::kClassicBlock),
      variant(Variant::first_add_during_load, 4,
              "each thread adds two elements while loading: 512 elements per 256-thread block, "
              "no idle thread after the load, half the blocks",
              c001_seq, d::first_add_during_load_symbol(), d::kClassicBlock),
      variant(Variant::warp_shuffle, 5,
              "as rung 4, the last 64 partials reduced by one warp with __shfl_down_sync: "
              "no barriers, no shared memory for the last 5 steps",
              c003, d::warp_shuffle_symbol(), d::kClassicBlock),
      variant(Variant::vectorized_grid_stride, 6,
              "float4 loads (scalar head peeled to 16 B), 4 in flight per thread, grid-stride "
              "over a grid filling every SM, shuffle block reduction; a 1-block second launch",
              c001_vec, vgs.sum_kernel, vgs.block_threads),
      variant(Variant::single_pass, 7,
              "rung 6 in one launch: partial, __threadfence, atomicInc ticket; the last block "
              "reduces the partials and resets the counter",
              c001_async, sp.sum_kernel, sp.block_threads),
      variant(Variant::best_b512_v4x4, 8,
              "single pass, 512 threads x 4 float4 (64 B) per step, the ticket by one "
              "acquire-release atomic (rung 7 fences twice around it)",
              c001_async, b512.sum_kernel, b512.block_threads),
      variant(Variant::best_b256_v4x8_l2pf, 9,
              "single pass, 256 threads x 8 float4 (128 B) in flight per step, loads hinted "
              "L1::no_allocate + L2::256B prefetch (aimed at arrays far beyond L2)",
              c001_async, b256.sum_kernel, b256.block_threads),
      variant(Variant::best, 10,
              "best_b512_v4x4 at every size (single pass; measured fastest on an H100)",
              c001_async, b512.sum_kernel, b512.block_threads),
  };
  f.bench_shapes = {"268435456", "1048576"};
  f.quick_shapes = {"16777216", "1048576"};
  f.test_shapes = {"1",    "7",    "31",    "32",      "33",      "1023",
                   "1025", "4099", "65537", "1000003", "16777217"};
  f.make_case = [](const std::string& shape, std::uint32_t seed) -> std::unique_ptr<registry::Case> {
    // Parse and validate before touching the GPU: bad input is answered without one.
    const std::vector<std::int64_t> dims = registry::parse_shape(shape, 1, "reduction");
    return std::make_unique<ReductionCase>(static_cast<std::size_t>(dims[0]), seed);
  };
  return f;
}

}  // namespace memhier::kernels
