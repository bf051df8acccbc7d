// The GEMM ladders' common host side, over the input type: fp32 on the CUDA cores (gemm) and
// bf16 on the tensor cores (gemm_bf16) share the Case (random inputs, the float64 reference,
// the cuBLAS baseline) and the registration of a table's rungs. A family's `Traits` names
// what differs: its input type, its kernels' API, its error bounds and its cuBLAS call.
// Included by the two families' family.cu only.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/gemm/reference.cuh"
#include "kernels/gemm/shape.hpp"
#include "kernels/tuning/record.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/launch.hpp"
#include "memhier/core/random.hpp"
#include "memhier/core/verify.hpp"
#include "memhier/kernels/gemm_preselect.hpp"
#include "memhier/registry/family.hpp"

namespace memhier::kernels::gemm_ladder {

using gemm::detail::Shape;

// The CPU float64 reference (tests of the device one) up to this many multiply-adds.
constexpr double kCpuReferenceMacs = 67108864.0;  // 2^26

inline void check_cublas(cublasStatus_t st, const char* call) {
  if (st != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(call) + " failed: " + cublasGetStatusString(st));
}

/// One cuBLAS handle per device for the whole process (creation is slow; never destroyed,
/// so that no handle outlives its context at exit).
inline cublasHandle_t cublas_handle() {
  static std::mutex mu;
  static std::map<int, cublasHandle_t> handles;
  int dev = 0;
  MEMHIER_CUDA(cudaGetDevice(&dev));
  std::lock_guard<std::mutex> lock(mu);
  auto it = handles.find(dev);
  if (it != handles.end()) return it->second;
  cublasHandle_t h = nullptr;
  check_cublas(cublasCreate(&h), "cublasCreate");
  handles.emplace(dev, h);
  return h;
}

/// Device bytes a case needs: A and B, C (and C0 when beta != 0), the reference and its
/// scale, and the fp32 scratch the inputs are drawn in where they are not fp32.
template <class Traits>
double case_bytes(const Shape& s) {
  const double m = s.m, n = s.n, k = s.k;
  const double in = sizeof(typename Traits::Input);
  return in * (m * k + k * n) + 4.0 * m * n + (s.beta != 0.f ? 4.0 * m * n : 0.0) + 12.0 * m * n +
         Traits::kScratchBytes * std::max(m * k, k * n);
}

/// C = alpha A B + beta C at one shape: A and B of Traits::Input, C fp32, row-major.
template <class Traits>
class Case : public registry::Case {
 public:
  using Input = typename Traits::Input;
  using Variant = typename Traits::Variant;

  Case(const Shape& s, std::uint32_t seed)
      : s_(s),
        A_(static_cast<std::size_t>(s.m) * static_cast<std::size_t>(s.k)),
        B_(static_cast<std::size_t>(s.k) * static_cast<std::size_t>(s.n)),
        C_(static_cast<std::size_t>(s.m) * static_cast<std::size_t>(s.n)),
        ref_(C_.size()),
        scale_(C_.size()) {
    Traits::fill_inputs(A_, B_, seed);
    if (s_.beta != 0.f) {  // C starts random (not NaN) and is restored before every run
      C0_ = core::DeviceBuffer<float>(C_.size());
      core::fill_random(C0_.data(), C0_.size(), seed * 3u + 3u);
      MEMHIER_CUDA(cudaMemcpy(C_.data(), C0_.data(), C_.bytes(), cudaMemcpyDeviceToDevice));
    }
    MEMHIER_CUDA(cudaDeviceSynchronize());
    opt_in_dynamic_smem();
  }

  std::string shape() const override { return gemm::detail::shape_text(s_); }

  registry::Work work() const override {
    const double m = s_.m, n = s_.n, k = s_.k;
    registry::Work w;
    w.bytes = static_cast<double>(sizeof(Input)) * (m * k + k * n) + 4.0 * m * n +
              (s_.beta != 0.f ? 4.0 * m * n : 0.0);
    w.flops = 2.0 * m * n * k;
    return w;
  }

  void run(const std::string& variant, cudaStream_t stream) override {
    if (Traits::is_reference(variant)) {
      reference_ = true;
      Traits::run_reference(cublas(stream), s_, A_.data(), B_.data(), C_.data());
      return;
    }
    reference_ = false;
    Variant v;
    if (!Traits::parse_variant(variant, &v))
      throw std::invalid_argument(std::string("unknown ") + Traits::kFamily + " variant '" +
                                  variant + "'.");
    Traits::check_runs(v, work());
    Traits::run(v, s_, A_.data(), B_.data(), C_.data(), stream);
  }

  void poison(cudaStream_t stream) override {
    if (s_.beta == 0.f)
      C_.poison(stream);  // NaN: an unwritten output fails (C must not be read when beta == 0)
    else
      MEMHIER_CUDA(
          cudaMemcpyAsync(C_.data(), C0_.data(), C_.bytes(), cudaMemcpyDeviceToDevice, stream));
  }

  std::vector<core::OutputSpec> outputs() override {
    if (!ref_ready_) {
      using gemm_reference::kRefTile;
      const dim3 block(kRefTile, kRefTile);
      const dim3 grid((s_.n + kRefTile - 1) / kRefTile,
                      std::min((s_.m + kRefTile - 1) / kRefTile, 65535));
      gemm_reference::reference_kernel<<<grid, block>>>(
          s_.m, s_.n, s_.k, s_.alpha, A_.data(), B_.data(), s_.beta,
          s_.beta != 0.f ? C0_.data() : nullptr, ref_.data(), scale_.data());
      MEMHIER_CHECK_LAUNCH();
      MEMHIER_CUDA(cudaDeviceSynchronize());
      ref_ready_ = true;
    }
    const double factor =
        reference_ ? Traits::reference_factor(s_.k) : Traits::element_factor(s_.k);
    return {{"C", C_.data(), C_.size(), static_cast<std::size_t>(s_.n), core::ElemType::f32,
             ref_.data(), scale_.data(), factor}};
  }

  bool in_place() const override { return s_.beta != 0.f; }  // C = alpha A B + beta C

  std::vector<core::HostReference> cpu_reference() override {
    const double macs = static_cast<double>(s_.m) * s_.n * static_cast<double>(s_.k);
    if (macs > kCpuReferenceMacs)
      throw std::invalid_argument(std::string(Traits::kFamily) + " " + shape() +
                                  ": too large for the CPU reference.");
    const std::vector<Input> a = A_.download(), b = B_.download();
    std::vector<float> c0;
    if (s_.beta != 0.f) c0 = C0_.download();
    const std::size_t m = s_.m, n = s_.n, k = s_.k;
    const double alpha = s_.alpha, beta = s_.beta;
    std::vector<double> acc(n), mag(n);
    core::HostReference h;
    h.ref.assign(m * n, 0.0);
    h.scale.assign(m * n, 0.0);
    for (std::size_t i = 0; i < m; ++i) {
      std::fill(acc.begin(), acc.end(), 0.0);
      std::fill(mag.begin(), mag.end(), 0.0);
      for (std::size_t p = 0; p < k; ++p) {
        const double av = Traits::to_double(a[i * k + p]);
        const Input* brow = &b[p * n];
        for (std::size_t j = 0; j < n; ++j) {
          const double ab = av * Traits::to_double(brow[j]);
          acc[j] += ab;
          mag[j] += std::fabs(ab);
        }
      }
      for (std::size_t j = 0; j < n; ++j) {
        const double cv = s_.beta != 0.f ? static_cast<double>(c0[i * n + j]) : 0.0;
        h.ref[i * n + j] = alpha * acc[j] + beta * cv;
        h.scale[i * n + j] = std::fabs(alpha) * mag[j] + std::fabs(beta) * std::fabs(cv);
      }
    }
    return {h};
  }

  double tolerance() const override {
    return reference_ ? Traits::kReferenceTolerance : Traits::tolerance(s_.k);
  }

  std::string baseline_name() const override { return Traits::kBaseline; }

  /// Row-major C = A B is column-major C^T = B^T A^T: the traits swap the operands and pass
  /// (n, m, k).
  void run_baseline(cudaStream_t stream) override {
    reference_ = false;
    Traits::run_baseline(cublas(stream), s_, A_.data(), B_.data(), C_.data());
  }

 private:
  static cublasHandle_t cublas(cudaStream_t stream) {
    cublasHandle_t h = cublas_handle();
    check_cublas(cublasSetStream(h, stream), "cublasSetStream");
    return h;
  }

  /// Kernels above 48 KiB of dynamic shared memory get their opt-in now, so that the
  /// occupancy the bench reports for them (queried before the first launch) is real.
  static void opt_in_dynamic_smem() {
    for (Variant v : Traits::all_variants()) {
      if (v == Variant::best) continue;
      const auto l = Traits::launcher_for(v);
      if (l.dynamic_smem <= 48 * 1024) continue;
      try {
        core::prepare_dynamic_smem(l.symbol(), l.dynamic_smem, Traits::to_string(v));
      } catch (const std::invalid_argument&) {
        // A device with less shared memory: the variant declines when it is run.
      }
    }
  }

  Shape s_;
  core::DeviceBuffer<Input> A_, B_;
  core::DeviceBuffer<float> C_, C0_;
  core::DeviceBuffer<double> ref_;   // float64 C, computed on the first outputs()
  core::DeviceBuffer<float> scale_;  // its bound's scale per element
  bool ref_ready_ = false;
  bool reference_ = false;  // the last run was the reference line (its own bounds)
};

/// One line of a family's table as the registry needs it.
template <class Variant>
struct Rung {
  Variant v;
  int rung;
  const char* technique;
  const char* source;
  const char* claim;
};

/// The table's lines with their rung numbers: a line's rung number is its place.
template <class Variant>
std::vector<Rung<Variant>> numbered(std::initializer_list<Rung<Variant>> lines) {
  std::vector<Rung<Variant>> out(lines);
  for (std::size_t i = 0; i < out.size(); ++i) out[i].rung = static_cast<int>(i) + 1;
  return out;
}

/// A rung of the table as the bench registers it, with its launcher's resources and its
/// prediction. best runs the candidate the tuner chose for the shape's class, known once it
/// has run (the bench asks after the first run, the profiler's child after its warm-up): its
/// resource columns and its prediction are that candidate's; its own symbol is Traits::shown.
template <class Traits>
registry::Variant variant(const Rung<typename Traits::Variant>& r) {
  using Variant = typename Traits::Variant;
  const auto l = Traits::launcher_for(r.v == Variant::best ? Traits::shown_for_best() : r.v);
  registry::Variant v =
      registry::make_variant(Traits::to_string(r.v), r.rung, r.technique, {r.source, r.claim},
                             l.symbol(), l.block_threads, l.dynamic_smem);
  if (Traits::has_prediction(r.v)) {
    v.predict = [rung = r.v](const std::string& shape) {
      const Shape s = gemm::detail::parse_shape(shape, Traits::kFamily);
      return Traits::predict(rung, s.m, s.n, s.k, s.alpha, s.beta);
    };
    v.stream = [rung = r.v](const std::string& shape, model::AccessSink& sink) {
      const Shape s = gemm::detail::parse_shape(shape, Traits::kFamily);
      Traits::stream(rung, s.m, s.n, s.k, s.alpha, s.beta, sink);
    };
  }
  if (r.v == Variant::best)
    v.runs = [](const std::string& shape) {
      const Shape s = gemm::detail::parse_shape(shape, Traits::kFamily);
      // The case passes lda = k, ldb = n, ldc = n with cudaMalloc'd bases.
      return Traits::best_config(s.m, s.n, s.k);
    };
  return v;
}

/// Fills `f`'s variants from the table's rungs, and its shape check and case from Traits.
template <class Traits>
void register_ladder(registry::Family& f,
                     const std::vector<Rung<typename Traits::Variant>>& rungs) {
  for (const auto& r : rungs) f.variants.push_back(variant<Traits>(r));
  f.check_shape = [](const std::string& shape) {
    gemm::detail::parse_shape(shape, Traits::kFamily);
  };
  f.tune = [](const std::string& shape, bool retune) {
    const Shape s = gemm::detail::parse_shape(shape, Traits::kFamily);
    core::require_device_memory(case_bytes<Traits>(s),
                                std::string(Traits::kFamily) + " " + gemm::detail::shape_text(s));
    // Dense inputs as the bench's case has them: lda = k, ldb = ldc = n, cudaMalloc'd bases.
    core::DeviceBuffer<typename Traits::Input> A(static_cast<std::size_t>(s.m) * s.k);
    core::DeviceBuffer<typename Traits::Input> B(static_cast<std::size_t>(s.k) * s.n);
    core::DeviceBuffer<float> C(static_cast<std::size_t>(s.m) * s.n);
    Traits::fill_inputs(A, B, 1u);
    MEMHIER_CUDA(cudaDeviceSynchronize());
    const memhier::tuning::Outcome o = Traits::tune(s, A.data(), B.data(), C.data(), retune);
    return memhier::tuning::tune_record(Traits::kFamily, gemm::detail::shape_text(s), o);
  };
  f.make_case = [](const std::string& shape,
                   std::uint32_t seed) -> std::unique_ptr<registry::Case> {
    // Bad input answered before any CUDA call.
    const Shape s = gemm::detail::parse_shape(shape, Traits::kFamily);
    core::require_device_memory(case_bytes<Traits>(s),
                                std::string(Traits::kFamily) + " " + gemm::detail::shape_text(s));
    return std::make_unique<Case<Traits>>(s, seed);
  };
}

}  // namespace memhier::kernels::gemm_ladder
