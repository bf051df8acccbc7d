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
// same work; the reference follows the offsets that ran, and the one element outside the
// written range must be untouched (an out-of-bounds write fails).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
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

/// The CPU float64 reference (tests of the device one) up to this many floats per output.
constexpr std::size_t kCpuReferenceFloats = std::size_t{1} << 25;

/// Per element of axpy and the particle update, |out - ref| <= 3u (|a x| + |y|): one fma
/// rounds once (u |ref|); a multiply then an add (cuBLAS) rounds twice, u |a x| + u |ref|,
/// and |ref| <= |a x| + |y|; 3 covers the second-order terms. Copies are exact (factor 0).
constexpr double kUpdateFactor = 3.0 * core::kFp32Unit;

/// The float64 reference of y = a x + y0 (y0 null: y = x) over the n + 1 elements of y,
/// for a run on x + ox -> y + oy: inside [oy, oy + n) the result and its bound's scale
/// |a x| + |y0|; outside, y0 untouched (scale 0: exact).
__global__ void stream_reference(const float* __restrict__ x, const float* __restrict__ y0, float a,
                                 std::size_t n, std::size_t ox, std::size_t oy,
                                 double* __restrict__ ref, float* __restrict__ scale) {
  for (std::size_t j = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; j <= n;
       j += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const bool inside = j >= oy && j < oy + n;
    const double xv = inside ? static_cast<double>(x[j - oy + ox]) : 0.0;
    const double yv = y0 ? static_cast<double>(y0[j]) : 0.0;
    const double ax = y0 ? static_cast<double>(a) * xv : xv;
    ref[j] = inside ? ax + yv : yv;
    if (scale) scale[j] = inside ? static_cast<float>(fabs(ax) + fabs(yv)) : 0.f;
  }
}

std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

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
    ref_ = core::DeviceBuffer<double>(len_);
    // x in [0.5, 1.5): never zero, so a*x moves every y by at least 0.75 and an element the
    // kernel skipped (left at y0 by poison()) fails by far.
    core::fill_random(x_.data(), len_, seed * 2654435761u + 1u, 0.5f, 1.5f, nullptr);
    if (axpy()) {
      y0_ = core::DeviceBuffer<float>(len_);
      scale_ = core::DeviceBuffer<float>(len_);
      core::fill_random(y0_.data(), len_, seed * 2654435761u + 2u, -1.f, 1.f, nullptr);
    }
    MEMHIER_CUDA(cudaDeviceSynchronize());
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
    ox_ = ox, oy_ = oy;
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

  // The reference for the offsets of the last run (aligned before any run). copy checks
  // the n written elements; axpy all n + 1, the untouched one exactly.
  std::vector<core::OutputSpec> outputs() override {
    const int key = static_cast<int>(ox_ * 2 + oy_);
    if (ref_key_ != key) {
      stream_reference<<<1024, 256>>>(x_.data(), axpy() ? y0_.data() : nullptr, a_, n_, ox_, oy_,
                                      ref_.data(), axpy() ? scale_.data() : nullptr);
      MEMHIER_CHECK_LAUNCH();
      MEMHIER_CUDA(cudaDeviceSynchronize());
      ref_key_ = key;
    }
    if (axpy())
      return {{"y", y_.data(), len_, 0, core::ElemType::f32, ref_.data(), scale_.data(),
               kUpdateFactor}};
    return {{"y", y_.data() + oy_, n_, 0, core::ElemType::f32, ref_.data() + oy_, nullptr, 0.0}};
  }

  bool in_place() const override { return axpy(); }  // y = a x + y

  // copy: the one element outside the written range must still hold the NaN poison.
  core::ElementCheck verify() override {
    core::ElementCheck c = Case::verify();
    if (axpy()) return c;
    const std::size_t at = oy_ == 0 ? n_ : 0;  // its index in y
    float guard = 0;
    MEMHIER_CUDA(cudaMemcpy(&guard, y_.data() + at, sizeof guard, cudaMemcpyDeviceToHost));
    ++c.checked;
    if (bits(guard) != 0xffffffffu) {  // written: out of bounds
      ++c.over;
      c.worst = std::numeric_limits<double>::infinity();
      c.worst_index = at;
    }
    return c;
  }

  std::vector<core::HostReference> cpu_reference() override {
    if (len_ > kCpuReferenceFloats)
      throw std::invalid_argument("elementwise " + shape_.text +
                                  ": too large for the CPU reference.");
    const std::vector<float> x = x_.download();
    const std::vector<float> y0 = axpy() ? y0_.download() : std::vector<float>(len_, 0.f);
    core::HostReference h;
    for (std::size_t j = 0; j < len_; ++j) {
      const bool inside = j >= oy_ && j < oy_ + n_;
      if (!axpy() && !inside) continue;
      const double xv = inside ? static_cast<double>(x[j - oy_ + ox_]) : 0.0;
      const double ax = axpy() ? static_cast<double>(a_) * xv : xv;
      const double yv = y0[j];
      h.ref.push_back(inside ? ax + yv : yv);
      if (axpy()) h.scale.push_back(inside ? std::fabs(ax) + std::fabs(yv) : 0.0);
    }
    return {h};
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
    ox_ = 0, oy_ = 0;
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
  core::DeviceBuffer<double> ref_;   // float64 y for the offsets ref_key_ encodes
  core::DeviceBuffer<float> scale_;  // axpy: its bound's scale per element
  std::size_t ox_ = 0, oy_ = 0;      // offsets of the last run
  int ref_key_ = -1;                 // ox * 2 + oy of the reference in ref_; -1: none yet
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

/// The float64 reference of the particle update, both layouts, for len = n + 1 particles
/// (the last a guard, untouched): positions p0 + v dt with the bound's scale |p0| + |v dt|,
/// and everything else its start value, exactly (scale 0). SoA: field f of particle i at
/// f * len + i (positions only); AoS: at aos_word(i, f).
__global__ void particles_reference(const float* __restrict__ px, const float* __restrict__ py,
                                    const float* __restrict__ pz, const float* __restrict__ vx,
                                    const float* __restrict__ vy, const float* __restrict__ vz,
                                    float dt, std::size_t n, bool aos, double* __restrict__ ref,
                                    float* __restrict__ scale) {
  const float* field[6] = {px, py, pz, vx, vy, vz};
  const std::size_t len = n + 1;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < len;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    for (int f = 0; f < (aos ? 6 : 3); ++f) {
      const std::size_t w =
          aos ? ew::detail::aos_word(i, f) : static_cast<std::size_t>(f) * len + i;
      const double start = static_cast<double>(field[f][i]);
      const bool moves = f < 3 && i < n;
      const double step = moves ? static_cast<double>(field[f + 3][i]) * dt : 0.0;
      ref[w] = start + step;
      scale[w] = moves ? static_cast<float>(fabs(start) + fabs(step)) : 0.f;
    }
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
    ref_ = core::DeviceBuffer<double>(len_ * ew::detail::kParticleFloats);
    scale_ = core::DeviceBuffer<float>(len_ * ew::detail::kParticleFloats);
    MEMHIER_CUDA(cudaDeviceSynchronize());
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

  bool in_place() const override { return true; }  // p += v dt

  // The layout of the last run (SoA before any run): its positions, and in AoS the
  // velocities and the guard particle as well, which must come back untouched.
  std::vector<core::OutputSpec> outputs() override {
    const Layout layout = last_ == Layout::aos ? Layout::aos : Layout::soa;
    if (ref_layout_ != layout) {
      particles_reference<<<1024, 256>>>(pristine_[0].data(), pristine_[1].data(),
                                         pristine_[2].data(), field_[3].data(), field_[4].data(),
                                         field_[5].data(), dt_, n_, layout == Layout::aos,
                                         ref_.data(), scale_.data());
      MEMHIER_CHECK_LAUNCH();
      MEMHIER_CUDA(cudaDeviceSynchronize());
      ref_layout_ = layout;
    }
    if (layout == Layout::aos)
      return {{"particles", aos_.data(), aos_.size(), 0, core::ElemType::f32, ref_.data(),
               scale_.data(), kUpdateFactor}};
    std::vector<core::OutputSpec> specs;
    for (int f = 0; f < 3; ++f)
      specs.push_back({std::string(1, "xyz"[f]), field_[f].data(), len_, 0, core::ElemType::f32,
                       ref_.data() + f * len_, scale_.data() + f * len_, kUpdateFactor});
    return specs;
  }

  std::vector<core::HostReference> cpu_reference() override {
    if (len_ * ew::detail::kParticleFloats > kCpuReferenceFloats)
      throw std::invalid_argument("elementwise " + shape_.text +
                                  ": too large for the CPU reference.");
    std::vector<float> start[6];
    for (int f = 0; f < 6; ++f) start[f] = (f < 3 ? pristine_[f] : field_[f]).download();
    const bool aos = last_ == Layout::aos;
    std::vector<core::HostReference> out(aos ? 1 : 3);
    for (core::HostReference& h : out) {
      h.ref.resize(aos ? len_ * 6 : len_);
      h.scale.resize(h.ref.size());
    }
    for (std::size_t i = 0; i < len_; ++i)
      for (int f = 0; f < (aos ? 6 : 3); ++f) {
        core::HostReference& h = out[aos ? 0 : static_cast<std::size_t>(f)];
        const std::size_t w = aos ? ew::detail::aos_word(i, f) : i;
        const bool moves = f < 3 && i < n_;
        const double p = start[f][i];
        const double step = moves ? static_cast<double>(start[f + 3][i]) * dt_ : 0.0;
        h.ref[w] = p + step;
        h.scale[w] = moves ? std::fabs(p) + std::fabs(step) : 0.0;
      }
    return out;
  }

  // One fma per coordinate: 6e-8 relative at most.
  double tolerance() const override { return 1e-6; }

 private:
  enum class Layout { none, aos, soa };

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
  core::DeviceBuffer<double> ref_;         // float64 result in ref_layout_'s order
  core::DeviceBuffer<float> scale_;        // its bound's scale per element
  Layout ref_layout_ = Layout::none;
  Layout last_ = Layout::none;
};

// ---------------------------------------------------------------------------------------
// Registration.

/// A rung of the table (elementwise_rungs.inc) as the bench registers it.
registry::Variant variant(std::string name, int rung, std::string technique, registry::Claim claim,
                          const void* symbol, registry::Role role = registry::Role::api) {
  registry::Variant v = registry::make_variant(std::move(name), rung, std::move(technique),
                                               std::move(claim), symbol, ew::detail::kBlock);
  v.role = role;
  return v;
}

}  // namespace

registry::Family elementwise_family() {
  using ew::Variant;
  namespace d = ew::detail;
  registry::Family f;
  f.name = "elementwise";
  f.python_name = "axpy";
  // In L2: the profile shapes (a few MB); beyond: 512-768 MiB moved, four times the largest L2
  // of the card table (the B200's 126 MB).
  f.comparison_shapes = {"axpy:100003", "axpy:67108864", "particles:65537", "particles:16777216"};
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
  variant(#name, ++rung_no, technique, {source, claim}, d::symbol, registry::Role::lesson),
#define MEMHIER_BEST(name, symbol, technique, source, claim) \
  variant(#name, ++rung_no, technique, {source, claim}, d::symbol),
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
  f.check_shape = [](const std::string& shape) { parse_elementwise_shape(shape); };
  f.make_case = [](const std::string& shape,
                   std::uint32_t seed) -> std::unique_ptr<registry::Case> {
    const Shape s = parse_elementwise_shape(shape);  // before touching the GPU
    // Per element of n + 1: particles 6 fields, 3 starting positions, two AoS copies, the
    // float64 reference and its scale (156 bytes); axpy x, y, y0, reference, scale (24);
    // copy x, y, reference (16).
    const double per = s.problem == Problem::particles ? 156.0
                       : s.problem == Problem::axpy    ? 24.0
                                                       : 16.0;
    core::require_device_memory(per * (static_cast<double>(s.n) + 1.0), "elementwise " + s.text);
    if (s.problem == Problem::particles) return std::make_unique<ParticlesCase>(s, seed);
    return std::make_unique<StreamCase>(s, seed);
  };
  f.claims.checks = claims::elementwise_checks;
  return f;
}

}  // namespace memhier::kernels
