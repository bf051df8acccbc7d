// The elementwise ladder's registration: its variants in rung order, its shapes and the
// Case that owns inputs, the float64 reference and the cublasSaxpy baseline at one shape.
//
// One family, three problems, chosen by the shape's prefix: "axpy:N" (y = a*x + y, the
// ladder's benchmark), "copy:N" (y = x) and "particles:N" (p += v*dt in both layouts).
// Each Case has one work model; a variant that does not apply to its problem declines with
// std::invalid_argument (recorded as "did not run", with the reason).
//
// Misaligned rungs: copy and axpy Cases hold n + 1 elements per array. The aligned variants
// run on x[0..n) -> y[0..n); float4_misaligned_base on x + 1 -> y + 1 (both 4 bytes past a
// 16-byte boundary: the float4 path peels a 3-element scalar head); float4_mismatched_alignment
// on x + 1 -> y (different misalignments: the float4 call falls back to scalar). Same n,
// same work; error() computes the reference for the offsets that ran, and checks that the
// one element outside the written range is untouched (an out-of-bounds write fails).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/elementwise/index.cuh"
#include "kernels/elementwise/predict.hpp"
#include "kernels/elementwise/variants.hpp"
#include "kernels/families.hpp"
#include "memhier/claims/ladders.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/random.hpp"
#include "memhier/core/verify.hpp"
#include "memhier/kernels/elementwise.hpp"

namespace memhier::kernels {
namespace {

namespace ew = memhier::elementwise;
using ew::detail::Op;

void check_cublas(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(call) + " failed: " + cublasGetStatusString(status));
}

// ---------------------------------------------------------------------------------------
// Shapes: "<problem>:<n>".

enum class Problem { copy, axpy, particles };

struct Shape {
  Problem problem;
  std::size_t n;
  std::string text;  // normalized
};

Shape parse_elementwise_shape(const std::string& shape) {
  const std::size_t colon = shape.find(':');
  if (colon == std::string::npos)
    throw std::invalid_argument("elementwise shape '" + shape +
                                "' needs a problem prefix: axpy:N, copy:N or particles:N.");
  const std::string name = shape.substr(0, colon);
  Problem p;
  if (name == "axpy")
    p = Problem::axpy;
  else if (name == "copy")
    p = Problem::copy;
  else if (name == "particles")
    p = Problem::particles;
  else
    throw std::invalid_argument("elementwise shape '" + shape + "' names problem '" + name +
                                "'; use axpy:N, copy:N or particles:N.");
  // Positive, at most 4e9 (parse_shape's bound): (n + 1) * 6 floats cannot overflow size_t.
  const std::vector<std::int64_t> dims =
      registry::parse_shape(shape.substr(colon + 1), 1, "elementwise " + name);
  const std::size_t n = static_cast<std::size_t>(dims[0]);
  return {p, n, name + ":" + std::to_string(n)};
}

// ---------------------------------------------------------------------------------------
// Verification helpers.

/// Up to this many floats per checked array, error() compares every element; above it, both
/// ends and a deterministic spread (the CPU side stays far under a second per case).
constexpr std::size_t kFullCheckFloats = std::size_t{1} << 25;
constexpr std::size_t kEdgeSamples = 1024;
constexpr std::size_t kSpreadSamples = std::size_t{1} << 16;

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// Indices 0..len-1 that error() checks: all when len * floats_each is small, else the first
/// and last kEdgeSamples (heads, tails, the guard) and a hashed spread, sorted and unique.
std::vector<std::size_t> check_positions(std::size_t len, std::size_t floats_each,
                                         std::uint32_t seed) {
  std::vector<std::size_t> pos;
  if (len * floats_each <= kFullCheckFloats) {
    pos.resize(len);
    std::iota(pos.begin(), pos.end(), std::size_t{0});
    return pos;
  }
  for (std::size_t i = 0; i < kEdgeSamples && i < len; ++i) {
    pos.push_back(i);
    pos.push_back(len - 1 - i);
  }
  for (std::size_t k = 0; k < kSpreadSamples; ++k)
    pos.push_back(static_cast<std::size_t>(splitmix64((std::uint64_t{seed} << 32) ^ k) % len));
  std::sort(pos.begin(), pos.end());
  pos.erase(std::unique(pos.begin(), pos.end()), pos.end());
  return pos;
}

__global__ void gather_kernel(const float* __restrict__ src, const std::size_t* __restrict__ idx,
                              float* __restrict__ out, std::size_t k) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < k) out[i] = src[idx[i]];
}

/// All `len` floats of a device array (synchronous).
std::vector<float> download(const float* dev, std::size_t len) {
  std::vector<float> host(len);
  MEMHIER_CUDA(cudaMemcpy(host.data(), dev, len * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

/// dev[idx[k]] for every k (every idx[k] < len; synchronous): a whole download when the
/// indices cover much of the array, else a gather on the device.
std::vector<float> read_at(const float* dev, std::size_t len, const std::vector<std::size_t>& idx) {
  std::vector<float> out(idx.size());
  if (idx.empty()) return out;
  if (idx.size() * 8 >= len) {
    const std::vector<float> all = download(dev, len);
    for (std::size_t k = 0; k < idx.size(); ++k) out[k] = all[idx[k]];
    return out;
  }
  core::DeviceBuffer<std::size_t> d_idx(idx.size());
  core::DeviceBuffer<float> d_out(idx.size());
  d_idx.upload(idx);
  const unsigned threads = 256;
  const unsigned blocks = static_cast<unsigned>((idx.size() + threads - 1) / threads);
  gather_kernel<<<blocks, threads>>>(dev, d_idx.data(), d_out.data(), idx.size());
  MEMHIER_CHECK_LAUNCH();
  return d_out.download();
}

std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---------------------------------------------------------------------------------------
// Which variants apply to which problem.

const char* const kMisalignedBase = "float4_misaligned_base";
const char* const kMismatched = "float4_mismatched_alignment";
const char* const kParticlesAos = "particles_aos";
const char* const kParticlesSoa = "particles_soa";

bool is_vector_variant(const std::string& v, ew::Variant* out) {
  const std::optional<ew::Variant> e = ew::variant_from_string(v);
  if (e) *out = *e;
  return e.has_value();
}

[[noreturn]] void decline(const std::string& variant, const char* applies_to, const Shape& s) {
  throw std::invalid_argument("variant " + variant + " applies to " + applies_to +
                              " shapes, not to " + s.text + ".");
}

[[noreturn]] void unknown(const std::string& variant) {
  throw std::invalid_argument("unknown elementwise variant '" + variant + "'.");
}

// ---------------------------------------------------------------------------------------
// copy:N and axpy:N.

class StreamCase final : public registry::Case {
 public:
  StreamCase(const Shape& s, std::uint32_t seed)
      : shape_(s), n_(s.n), len_(s.n + 1), a_(1.5f + 0.125f * static_cast<float>(seed % 8)) {
    x_ = core::DeviceBuffer<float>(len_);
    y_ = core::DeviceBuffer<float>(len_);
    // x in [0.5, 1.5): never zero, so a*x moves every y by at least 0.75 and an element the
    // kernel skipped (left at y0 by poison()) fails by far.
    core::fill_random(x_.data(), len_, seed * 2654435761u + 1u, 0.5f, 1.5f, nullptr);
    if (axpy()) {
      y0_ = core::DeviceBuffer<float>(len_);
      core::fill_random(y0_.data(), len_, seed * 2654435761u + 2u, -1.f, 1.f, nullptr);
    }
    MEMHIER_CUDA(cudaDeviceSynchronize());
    pos_ = check_positions(len_, 1, seed);
    std::vector<std::size_t> next(pos_.size());
    for (std::size_t k = 0; k < pos_.size(); ++k) next[k] = std::min(pos_[k] + 1, n_);
    x_at_ = read_at(x_.data(), len_, pos_);
    x_next_ = read_at(x_.data(), len_, next);
    if (axpy()) y0_at_ = read_at(y0_.data(), len_, pos_);
  }
  ~StreamCase() override {
    if (handle_) cublasDestroy(handle_);
  }
  StreamCase(const StreamCase&) = delete;
  StreamCase& operator=(const StreamCase&) = delete;

  std::string shape() const override { return shape_.text; }

  // copy reads x and writes y: 8 bytes per element; axpy reads x and y and writes y: 12.
  // flops stay 0 (axpy's 2n would turn the family's chart from GB/s to GFLOP/s, and every
  // problem here is bound by bandwidth).
  registry::Work work() const override {
    return {static_cast<double>(n_) * (axpy() ? 12.0 : 8.0), 0.0};
  }

  void run(const std::string& variant, cudaStream_t stream) override {
    ew::Variant v = ew::Variant::float4;
    std::size_t ox = 0, oy = 0;  // offsets into x and y: 0, or 1 for the misaligned rungs
    if (variant == kMisalignedBase) {
      ox = 1, oy = 1;
    } else if (variant == kMismatched) {
      ox = 1, oy = 0;
    } else if (variant == kParticlesAos || variant == kParticlesSoa) {
      decline(variant, "particles", shape_);
    } else if (!is_vector_variant(variant, &v)) {
      unknown(variant);
    }
    ox_ = ox, oy_ = oy, ran_ = true;
    if (axpy())
      ew::axpy(v, a_, x_.data() + ox, y_.data() + oy, n_, stream);
    else
      ew::copy(v, x_.data() + ox, y_.data() + oy, n_, stream);
  }

  // copy: every y element NaN. axpy: y is input and output (BLAS semantics), so poison
  // restores y0 instead; a skipped element keeps y0, which differs from a*x + y0 by >= 0.75.
  void poison(cudaStream_t stream) override {
    if (axpy())
      MEMHIER_CUDA(cudaMemcpyAsync(y_.data(), y0_.data(), len_ * sizeof(float),
                                   cudaMemcpyDeviceToDevice, stream));
    else
      y_.poison(stream);
  }

  double error() override {
    if (!ran_) return kNaN;
    MEMHIER_CUDA(cudaDeviceSynchronize());
    std::vector<float> out;
    if (!axpy() && pos_.size() < len_) {
      // Sampled copy: the whole output is still scanned for NaN (an unwritten element).
      const std::vector<float> all = download(y_.data(), len_);
      for (std::size_t j = oy_; j < oy_ + n_; ++j)
        if (!std::isfinite(all[j])) return kNaN;
      out.resize(pos_.size());
      for (std::size_t k = 0; k < pos_.size(); ++k) out[k] = all[pos_[k]];
    } else {
      out = read_at(y_.data(), len_, pos_);
    }
    std::vector<float> got;
    std::vector<double> ref;
    got.reserve(pos_.size());
    ref.reserve(pos_.size());
    for (std::size_t k = 0; k < pos_.size(); ++k) {
      const std::size_t j = pos_[k];
      if (j >= oy_ && j < oy_ + n_) {
        // y[j] comes from x[j - oy + ox]: x[j] when the offsets agree, x[j + 1] for (1, 0).
        const double xv = static_cast<double>(ox_ == oy_ ? x_at_[k] : x_next_[k]);
        got.push_back(out[k]);
        ref.push_back(axpy() ? static_cast<double>(a_) * xv + static_cast<double>(y0_at_[k]) : xv);
      } else if (bits(out[k]) != (axpy() ? bits(y0_at_[k]) : 0xffffffffu)) {
        return kInf;  // the element outside [oy, oy + n) was written: out of bounds
      }
    }
    return core::rel_l2_error(got, ref);
  }

  // One fma per element (axpy) or none (copy): the result is the float64 value rounded
  // once, 6e-8 relative at most; 1e-6 leaves room for cuBLAS's unfused a*x + y and still
  // catches one wrong element in a million.
  double tolerance() const override { return 1e-6; }

  std::string baseline_name() const override { return axpy() ? "cublasSaxpy" : ""; }

  // Copy has none: cudaMemcpy is already the ceiling every row is measured against.
  void run_baseline(cudaStream_t stream) override {
    if (!axpy()) return;
    if (!handle_) check_cublas(cublasCreate(&handle_), "cublasCreate");
    check_cublas(cublasSetStream(handle_, stream), "cublasSetStream");
    check_cublas(cublasSetPointerMode(handle_, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
    ox_ = 0, oy_ = 0, ran_ = true;
    if (n_ <= static_cast<std::size_t>(std::numeric_limits<int>::max()))
      check_cublas(cublasSaxpy(handle_, static_cast<int>(n_), &a_, x_.data(), 1, y_.data(), 1),
                   "cublasSaxpy");
    else
      check_cublas(
          cublasSaxpy_64(handle_, static_cast<std::int64_t>(n_), &a_, x_.data(), 1, y_.data(), 1),
          "cublasSaxpy_64");
  }

 private:
  bool axpy() const { return shape_.problem == Problem::axpy; }

  Shape shape_;
  std::size_t n_, len_;  // len_ = n_ + 1: room for the offset-by-one rungs
  float a_;
  core::DeviceBuffer<float> x_, y_, y0_;
  std::vector<std::size_t> pos_;              // y indices error() checks (all, or a sample)
  std::vector<float> x_at_, x_next_, y0_at_;  // x[j], x[min(j + 1, n)], y0[j] at each one
  std::size_t ox_ = 0, oy_ = 0;               // offsets of the last run
  bool ran_ = false;
  cublasHandle_t handle_ = nullptr;
};

// ---------------------------------------------------------------------------------------
// particles:N. Both layouts hold the same particles (the AoS buffer is packed from the SoA
// arrays), so one reference serves both; each array has one guard particle past n.

__global__ void pack_aos_kernel(const float* __restrict__ x, const float* __restrict__ y,
                                const float* __restrict__ z, const float* __restrict__ vx,
                                const float* __restrict__ vy, const float* __restrict__ vz,
                                float* __restrict__ aos, std::size_t len) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= len) return;
  using ew::detail::aos_word;
  aos[aos_word(i, 0)] = x[i];
  aos[aos_word(i, 1)] = y[i];
  aos[aos_word(i, 2)] = z[i];
  aos[aos_word(i, 3)] = vx[i];
  aos[aos_word(i, 4)] = vy[i];
  aos[aos_word(i, 5)] = vz[i];
}

class ParticlesCase final : public registry::Case {
 public:
  ParticlesCase(const Shape& s, std::uint32_t seed)
      : shape_(s), n_(s.n), len_(s.n + 1), dt_(0.25f + 0.125f * static_cast<float>(seed % 4)) {
    for (int f = 0; f < 6; ++f) {
      field_[f] = core::DeviceBuffer<float>(len_);
      // Positions in [0.5, 1.5), velocities in [0.25, 1.25): an update moves each position
      // by at least 0.0625, so a skipped particle (restored by poison()) fails by far.
      core::fill_random(field_[f].data(), len_,
                        seed * 2654435761u + 11u + static_cast<std::uint32_t>(f),
                        f < 3 ? 0.5f : 0.25f, f < 3 ? 1.5f : 1.25f, nullptr);
    }
    for (int f = 0; f < 3; ++f) {
      pristine_[f] = core::DeviceBuffer<float>(len_);
      MEMHIER_CUDA(cudaMemcpy(pristine_[f].data(), field_[f].data(), len_ * sizeof(float),
                              cudaMemcpyDeviceToDevice));
    }
    aos_ = core::DeviceBuffer<float>(len_ * ew::detail::kParticleFloats);
    aos0_ = core::DeviceBuffer<float>(len_ * ew::detail::kParticleFloats);
    pack_aos_kernel<<<ew::detail::blocks_for(len_), ew::detail::kBlock>>>(
        field_[0].data(), field_[1].data(), field_[2].data(), field_[3].data(), field_[4].data(),
        field_[5].data(), aos0_.data(), len_);
    MEMHIER_CHECK_LAUNCH();
    MEMHIER_CUDA(cudaMemcpy(aos_.data(), aos0_.data(), aos_.bytes(), cudaMemcpyDeviceToDevice));
    pos_ = check_positions(len_, ew::detail::kParticleFloats, seed);
    for (int f = 0; f < 6; ++f) at_[f] = read_at(field_[f].data(), len_, pos_);
    aos_idx_.resize(pos_.size() * ew::detail::kParticleFloats);
    for (std::size_t k = 0; k < pos_.size(); ++k)
      for (int f = 0; f < 6; ++f)
        aos_idx_[k * 6 + static_cast<std::size_t>(f)] = ew::detail::aos_word(pos_[k], f);
  }

  std::string shape() const override { return shape_.text; }

  // Read six floats, write three: 36 bytes per particle in either layout, the minimum. The
  // AoS kernel really moves more (whole-sector write-back), which its lower GB/s shows.
  registry::Work work() const override { return {static_cast<double>(n_) * 36.0, 0.0}; }

  void run(const std::string& variant, cudaStream_t stream) override {
    ew::Variant v = ew::Variant::best;
    if (variant == kParticlesAos) {
      last_ = Layout::aos;
      ew::update_particles_aos(reinterpret_cast<ew::Particle*>(aos_.data()), n_, dt_, stream);
    } else if (variant == kParticlesSoa || variant == "best") {
      last_ = Layout::soa;  // best: structure of arrays, the layout the GPU wants
      ew::update_particles_soa(soa(), n_, dt_, stream);
    } else if (is_vector_variant(variant, &v) || variant == kMisalignedBase ||
               variant == kMismatched) {
      decline(variant, "axpy and copy", shape_);
    } else {
      unknown(variant);
    }
  }

  // The update is in place: poison restores the starting positions (both layouts); a skipped
  // particle then keeps p0, which differs from p0 + v*dt by at least 0.0625.
  void poison(cudaStream_t stream) override {
    MEMHIER_CUDA(
        cudaMemcpyAsync(aos_.data(), aos0_.data(), aos_.bytes(), cudaMemcpyDeviceToDevice, stream));
    for (int f = 0; f < 3; ++f)
      MEMHIER_CUDA(cudaMemcpyAsync(field_[f].data(), pristine_[f].data(), len_ * sizeof(float),
                                   cudaMemcpyDeviceToDevice, stream));
  }

  double error() override {
    if (last_ == Layout::none) return kNaN;
    MEMHIER_CUDA(cudaDeviceSynchronize());
    std::vector<float> got;
    std::vector<double> ref;
    if (last_ == Layout::aos) {
      const std::vector<float> out =
          read_at(aos_.data(), len_ * ew::detail::kParticleFloats, aos_idx_);
      for (std::size_t k = 0; k < pos_.size(); ++k)
        for (int f = 0; f < 6; ++f) {
          const float o = out[k * 6 + static_cast<std::size_t>(f)];
          // Velocities must come back untouched: their reference is their start value.
          if (pos_[k] == n_) {
            if (bits(o) != bits(at_[f][k])) return kInf;  // the guard particle was written
            continue;
          }
          got.push_back(o);
          ref.push_back(f < 3 ? expected(f, k) : static_cast<double>(at_[f][k]));
        }
    } else {
      for (int f = 0; f < 3; ++f) {
        const std::vector<float> out = read_at(field_[f].data(), len_, pos_);
        for (std::size_t k = 0; k < pos_.size(); ++k) {
          if (pos_[k] == n_) {
            if (bits(out[k]) != bits(at_[f][k])) return kInf;
            continue;
          }
          got.push_back(out[k]);
          ref.push_back(expected(f, k));
        }
      }
    }
    return core::rel_l2_error(got, ref);
  }

  // One fma per coordinate: 6e-8 relative at most.
  double tolerance() const override { return 1e-6; }

 private:
  enum class Layout { none, aos, soa };

  double expected(int f, std::size_t k) const {
    return static_cast<double>(at_[f][k]) +
           static_cast<double>(at_[f + 3][k]) * static_cast<double>(dt_);
  }

  ew::ParticlesSoA soa() {
    return {field_[0].data(), field_[1].data(), field_[2].data(),
            field_[3].data(), field_[4].data(), field_[5].data()};
  }

  Shape shape_;
  std::size_t n_, len_;  // len_ = n_ + 1: one guard particle
  float dt_;
  core::DeviceBuffer<float> field_[6];     // SoA: x, y, z, vx, vy, vz
  core::DeviceBuffer<float> pristine_[3];  // starting x, y, z
  core::DeviceBuffer<float> aos_, aos0_;   // AoS: working and starting records
  std::vector<std::size_t> pos_;           // particles error() checks
  std::vector<std::size_t> aos_idx_;       // their six words in the AoS buffer
  std::vector<float> at_[6];               // starting fields at each checked particle
  Layout last_ = Layout::none;
};

// ---------------------------------------------------------------------------------------
// Registration.

/// A rung of the table (elementwise_rungs.inc) as the bench registers it.
registry::Variant variant(std::string name, int rung, std::string technique, registry::Claim claim,
                          const void* symbol) {
  return registry::make_variant(std::move(name), rung, std::move(technique), std::move(claim),
                                symbol, ew::detail::kBlock);
}

}  // namespace

registry::Family elementwise_family() {
  using ew::Variant;
  namespace d = ew::detail;
  registry::Family f;
  f.name = "elementwise";
  f.title = "Elementwise fp32: axpy (y = a*x + y), copy, particle update";
  f.story =
      "Elementwise kernels do about one flop per byte, so on any GPU they are bound by memory "
      "bandwidth and the only question is how close they come to the copy ceiling. 'GPU "
      "Memory Hierarchy' ranks the fixes: coalescing first (convert AoS to SoA: on an A100, a "
      "16-byte particle record read one field at a time gives ~400 GB/s useful against "
      "~1,600-1,700 for SoA, 4x), then 16-byte vector loads (float4: ~1,400 -> ~1,750 GB/s, "
      "1.25x, with a scalar tail for lengths not divisible by 4) and an aligned base address "
      "(a misaligned base costs the same 1.25x). The ladder benchmarks axpy (12 bytes per "
      "element) from one float per thread to 16-byte accesses with several loads in flight "
      "and a grid sized to the SMs, against cublasSaxpy and cudaMemcpy moving the same bytes; "
      "copy shapes run the same kernels with cudaMemcpy as their own ceiling; the misaligned "
      "rungs show the scalar-head peel and the scalar fallback; particles shapes compare the "
      "two layouts with every field used (so the AoS cost is L1 wavefronts and whole-sector "
      "write-back, not unused bytes).";
  int rung_no = 0;
  // The table's lines in order (a braced list evaluates its elements left to right): a
  // line's rung number is its place.
  f.variants = {
#define MEMHIER_RUNG(name, width, launch, symbol, prediction, technique, source, claim) \
  variant(#name, ++rung_no, technique, {source, claim}, d::symbol(Op::axpy)),
#define MEMHIER_BENCH_RUNG(name, symbol, technique, source, claim) \
  variant(#name, ++rung_no, technique, {source, claim}, d::symbol),
#define MEMHIER_BEST MEMHIER_BENCH_RUNG
#include "memhier/kernels/elementwise_rungs.inc"
  };
  for (registry::Variant& v : f.variants)
    if (d::has_prediction(v.name)) {
      v.predict = [name = v.name](const std::string& shape) {
        const Shape s = parse_elementwise_shape(shape);
        if (s.problem == Problem::particles) return d::predict_particles(name, s.n);
        return d::predict_stream(name, s.problem == Problem::axpy ? Op::axpy : Op::copy, s.n);
      };
      v.stream = [name = v.name](const std::string& shape, model::AccessSink& sink) {
        const Shape s = parse_elementwise_shape(shape);
        if (s.problem == Problem::particles) return d::stream_particles(name, s.n, sink);
        d::stream_stream(name, s.problem == Problem::axpy ? Op::axpy : Op::copy, s.n, sink);
      };
    }
  f.bench_shapes = {"axpy:268435456", "copy:268435456", "particles:16777216"};
  f.quick_shapes = {"axpy:16777216", "copy:16777216", "particles:1048576"};
  // 1 and 7 (all head/tail, no full vector), 1025 (one past a 1024 tile), primes, and a
  // tile-straddling copy; every variant also runs offset by one on the misaligned rungs.
  f.test_shapes = {"axpy:1", "axpy:7",    "axpy:1025",   "axpy:1000003",
                   "copy:1", "copy:4099", "particles:7", "particles:1000"};
  // A prime past a multiple of 4: a 3-element scalar tail, a partial last tile and warp
  // (lanes off), and on the misaligned rung a 3-element head as well.
  f.profile_shape = "axpy:100003";
  f.make_case = [](const std::string& shape,
                   std::uint32_t seed) -> std::unique_ptr<registry::Case> {
    const Shape s = parse_elementwise_shape(shape);  // before touching the GPU
    if (s.problem == Problem::particles) return std::make_unique<ParticlesCase>(s, seed);
    return std::make_unique<StreamCase>(s, seed);
  };
  f.claims.checks = claims::elementwise_checks;
  return f;
}

}  // namespace memhier::kernels
