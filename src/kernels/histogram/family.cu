// The histogram ladder's registration: variants in rung order, shapes, and the Case that
// owns the input (uint8 or int32, uniform or degenerate), the exact counts (computed on the
// device) and the cub::DeviceHistogram::HistogramEven baseline.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/families.hpp"
#include "kernels/histogram/stream.hpp"
#include "kernels/histogram/variants.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/hash.cuh"
#include "memhier/core/random.hpp"
#include "memhier/core/verify.hpp"
#include "memhier/kernels/histogram.hpp"

namespace memhier::kernels {
namespace {

namespace hist = memhier::histogram;

using hist::detail::HistShape;
using hist::detail::parse_hist_shape;

/// Random bits -> int32 values: 98% uniform in [0, 256), 2% outside it (negative or
/// >= 256), so that the skip rule is exercised.
__global__ void bits_to_values_kernel(std::int32_t* d, std::size_t n) {
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const std::uint32_t h = static_cast<std::uint32_t>(d[i]);
    const std::int32_t big = static_cast<std::int32_t>(h >> 9);  // [0, 2^23)
    std::int32_t v = static_cast<std::int32_t>(h >> 24);         // [0, 256)
    if ((h & 0xFFFFu) % 50u == 0) v = (h & 0x100u) ? -1 - big : 256 + big;
    d[i] = v;
  }
}

__global__ void fill_value_kernel(std::int32_t* d, std::size_t n, std::int32_t value) {
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    d[i] = value;
}

/// The CPU reference (tests of the device one) up to this many elements.
constexpr std::size_t kCpuReferenceLimit = std::size_t(1) << 25;

/// Bin of one value: u8 values are their own bin; int32 values outside [0, 256) have none
/// (-1), as CUB's HistogramEven skips them.
__device__ int bin_of(std::uint8_t v) {
  return v;
}
__device__ int bin_of(std::int32_t v) {
  return v >= 0 && v < 256 ? v : -1;
}

/// The reference counts, as plainly as possible: a shared-memory count per block (its
/// atomics cannot overflow: a block sees under 2^32 elements) added into 64-bit totals.
template <typename T>
__global__ void reference_counts(const T* __restrict__ in, std::size_t n,
                                 unsigned long long* __restrict__ totals) {
  __shared__ unsigned int local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const int b = bin_of(in[i]);
    if (b >= 0) atomicAdd(&local[b], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    if (local[b]) atomicAdd(&totals[b], static_cast<unsigned long long>(local[b]));
}

__global__ void counts_to_double(const unsigned long long* totals, double* ref) {
  ref[threadIdx.x] = static_cast<double>(totals[threadIdx.x]);
}

class HistogramCase final : public registry::Case {
 public:
  HistogramCase(HistShape s, std::uint32_t seed)
      : s_(std::move(s)), bins_(256), totals_(256), ref_(256) {
    const std::uint32_t h = core::hash32(seed ^ 0x9e3779b9u);
    // The degenerate value: never zero, drawn from the seed.
    const std::uint32_t value = 1 + h % 255;
    if (s_.u8) {
      const std::size_t words = (s_.n + 3) / 4;  // fill_random_bits writes whole words
      u8_ = core::DeviceBuffer<std::uint8_t>(words * 4);
      if (s_.degenerate)  // the padding too: the whole buffer is downloaded (initcheck)
        MEMHIER_CUDA(cudaMemset(u8_.data(), static_cast<int>(value), words * 4));
      else
        core::fill_random_bits(reinterpret_cast<std::uint32_t*>(u8_.data()), words, seed);
      temp_bytes_ = hist::detail::cub_temp_bytes(u8_.data(), s_.n);
    } else {
      i32_ = core::DeviceBuffer<std::int32_t>(s_.n);
      if (s_.degenerate) {
        fill_value_kernel<<<1024, 256>>>(i32_.data(), s_.n, static_cast<std::int32_t>(value));
        MEMHIER_CHECK_LAUNCH();
      } else {
        core::fill_random_bits(reinterpret_cast<std::uint32_t*>(i32_.data()), s_.n, seed);
        bits_to_values_kernel<<<1024, 256>>>(i32_.data(), s_.n);
        MEMHIER_CHECK_LAUNCH();
      }
      temp_bytes_ = hist::detail::cub_temp_bytes(i32_.data(), s_.n);
    }
    temp_ = core::DeviceBuffer<char>(std::max<std::size_t>(temp_bytes_, 16));
    MEMHIER_CUDA(cudaDeviceSynchronize());
  }

  std::string shape() const override { return s_.text; }

  registry::Work work() const override {
    // Each element read once, the 256 bins (1 KiB) written once.
    return {static_cast<double>(s_.n) * (s_.u8 ? 1.0 : 4.0) + 1024.0, 0.0};
  }

  void run(const std::string& variant, cudaStream_t stream) override {
    const std::optional<hist::Variant> v = hist::variant_from_string(variant);
    if (!v) throw std::invalid_argument("unknown histogram variant '" + variant + "'.");
    if (s_.u8)
      hist::histogram256(*v, u8_.data(), s_.n, bins_.data(), stream);
    else
      hist::histogram256(*v, i32_.data(), s_.n, bins_.data(), stream);
  }

  // 0xFFFFFFFF in every bin: a variant that does not zero and rewrite all 256 bins fails.
  void poison(cudaStream_t stream) override { bins_.poison(stream); }

  // Counts are integers: any difference is a lost or doubled element (bound factor 0).
  std::vector<core::OutputSpec> outputs() override {
    if (!ref_ready_) {
      MEMHIER_CUDA(cudaMemset(totals_.data(), 0, totals_.bytes()));
      if (s_.u8)
        reference_counts<<<1024, 256>>>(u8_.data(), s_.n, totals_.data());
      else
        reference_counts<<<1024, 256>>>(i32_.data(), s_.n, totals_.data());
      MEMHIER_CHECK_LAUNCH();
      counts_to_double<<<1, 256>>>(totals_.data(), ref_.data());
      MEMHIER_CHECK_LAUNCH();
      MEMHIER_CUDA(cudaDeviceSynchronize());
      ref_ready_ = true;
    }
    return {{"bins", bins_.data(), 256, 0, core::ElemType::u32, ref_.data(), nullptr, 0.0}};
  }

  std::vector<core::HostReference> cpu_reference() override {
    if (s_.n > kCpuReferenceLimit)
      throw std::invalid_argument("histogram " + s_.text + ": too large for the CPU reference.");
    std::vector<double> c(256, 0.0);
    if (s_.u8) {
      const std::vector<std::uint8_t> host = u8_.download();
      for (std::size_t i = 0; i < s_.n; ++i) ++c[host[i]];
    } else {
      const std::vector<std::int32_t> host = i32_.download();
      for (std::size_t i = 0; i < s_.n; ++i) {
        const std::uint32_t u = static_cast<std::uint32_t>(host[i]);
        if (u < 256) ++c[u];  // outside [0, 256): skipped, as CUB's HistogramEven does
      }
    }
    return {{c, {}}};
  }

  double tolerance() const override { return 0.0; }

  std::string baseline_name() const override { return "cub::DeviceHistogram::HistogramEven"; }

  void run_baseline(cudaStream_t stream) override {
    if (s_.u8)
      hist::detail::cub_histogram(temp_.data(), temp_bytes_, u8_.data(), s_.n, bins_.data(),
                                  stream);
    else
      hist::detail::cub_histogram(temp_.data(), temp_bytes_, i32_.data(), s_.n, bins_.data(),
                                  stream);
  }

 private:
  HistShape s_;
  core::DeviceBuffer<std::uint8_t> u8_;
  core::DeviceBuffer<std::int32_t> i32_;
  core::DeviceBuffer<std::uint32_t> bins_;
  core::DeviceBuffer<char> temp_;
  std::size_t temp_bytes_ = 0;
  core::DeviceBuffer<unsigned long long> totals_;  // the reference counts, 64-bit
  core::DeviceBuffer<double> ref_;                 // as float64, computed on the first outputs()
  bool ref_ready_ = false;
};

/// A rung's global address stream (stream.hpp): which global instructions it issues and
/// its static shared memory per block (the replay's occupancy).
std::function<void(const std::string&, model::AccessSink&)> stream_of(hist::Variant v) {
  using hist::detail::StreamKind;
  StreamKind kind = StreamKind::lane_pairs;
  int smem = 32 * 1024 + 1024;  // 32 lane copies of the bins, the pair's 256 totals
  switch (v) {
    case hist::Variant::global_atomics:
      kind = StreamKind::global_atomics, smem = 0;
      break;
    case hist::Variant::shared_privatized:
      kind = StreamKind::block_privatized, smem = 1024;  // 256 bins
      break;
    case hist::Variant::warp_privatized:
      kind = StreamKind::block_privatized, smem = 8 * 1024;  // a copy per warp of 8
      break;
    case hist::Variant::lane_privatized:
    case hist::Variant::lane_privatized_runs:
      kind = StreamKind::lane_privatized, smem = 32 * 1024 + 4;  // totals[1] unused
      break;
    default:  // lane_privatized_pairs, and best, which runs it
      break;
  }
  return [kind, smem](const std::string& shape, model::AccessSink& sink) {
    hist::detail::stream_histogram(kind, smem, shape, sink);
  };
}

/// A rung of the table (histogram_rungs.inc) as the bench registers it, with its stream.
registry::Variant variant(hist::Variant v, int rung, std::string technique, registry::Claim claim,
                          const void* symbol, int block_threads, int max_blocks_per_sm) {
  registry::Variant r = registry::make_variant(hist::to_string(v), rung, std::move(technique),
                                               std::move(claim), symbol, block_threads);
  r.max_blocks_per_sm = max_blocks_per_sm;  // the launch's own cap (0: as many as fit)
  r.stream = stream_of(v);
  return r;
}

}  // namespace

registry::Family histogram_family() {
  using namespace hist::detail;  // the table names its kernels and constants in detail
  registry::Family f;
  f.name = "histogram";
  f.python_name = "histogram256";
  // 16 MiB of uint8, and 128 MiB (2.5 L2s: at 256 MiB global_atomics replays one
  // random-bin atomic per element for 7.5 s).
  f.comparison_shapes = {"u8-uniform:16777216", "u8-uniform:134217728"};
  f.title = "Histogram, 256 bins, uint8 and int32";
  f.story =
      "'GPU Memory Hierarchy' prescribes per-block shared-memory histograms to avoid atomic "
      "contention on global memory (§Common Shared Memory Patterns), and 'Shared Memory and "
      "Bank Conflicts' counts a bank conflict as one serialized cycle per extra thread on a "
      "bank (§Banks and Bandwidth). A histogram is all atomics: the ladder moves them from "
      "256 global words to a shared copy per block, per warp, then per lane, where lane l's "
      "copy of every bin sits in bank l so a warp's 32 increments never collide, even when "
      "every value is the same (degenerate input, the case that serializes the other rungs). "
      "The input is uint8 or int32 (values outside [0, 256) are skipped), uniform random or "
      "all one value.";
  int rung_no = 0;
  // The table's lines in order (a braced list evaluates its elements left to right): a
  // line's rung number is its place.
  f.variants = {
#define MEMHIER_RUNG(name, launch, symbol, threads, blocks_per_sm, technique, source, claim) \
  variant(hist::Variant::name, ++rung_no, technique, {source, claim}, symbol(), threads,     \
          blocks_per_sm),
#define MEMHIER_BEST(name, launch, symbol, threads, technique, source, claim) \
  variant(hist::Variant::name, ++rung_no, technique, {source, claim}, symbol(), threads, 0),
#include "memhier/kernels/histogram_rungs.inc"
  };
  f.read_dominated = true;  // every input read once, one word (or 256 bins) written
  f.bench_shapes = {"u8-uniform:268435456", "u8-degenerate:268435456", "i32-uniform:67108864",
                    "i32-degenerate:67108864"};
  f.quick_shapes = {"u8-uniform:16777216", "u8-degenerate:16777216", "i32-uniform:16777216",
                    "i32-degenerate:16777216"};
  f.test_shapes = {"u8-uniform:1",       "u8-uniform:7",          "u8-uniform:1025",
                   "u8-degenerate:4099", "u8-uniform:1000003",    "i32-uniform:7",
                   "i32-uniform:65537",  "i32-degenerate:1000003"};
  f.check_shape = [](const std::string& shape) { parse_hist_shape(shape); };
  f.make_case = [](const std::string& shape,
                   std::uint32_t seed) -> std::unique_ptr<registry::Case> {
    HistShape s = parse_hist_shape(shape);  // bad input is answered before touching the GPU
    // The input (u8 rounded up to whole words), CUB's scratch (sized without touching the
    // input) and the bins, counts and reference.
    const double input = s.u8 ? 4.0 * static_cast<double>((s.n + 3) / 4) : 4.0 * s.n;
    const std::size_t temp =
        s.u8 ? hist::detail::cub_temp_bytes(static_cast<const std::uint8_t*>(nullptr), s.n)
             : hist::detail::cub_temp_bytes(static_cast<const std::int32_t*>(nullptr), s.n);
    core::require_device_memory(input + static_cast<double>(temp) + 256 * 20.0 + 16,
                                "histogram " + s.text);
    return std::make_unique<HistogramCase>(std::move(s), seed);
  };
  return f;
}

}  // namespace memhier::kernels
