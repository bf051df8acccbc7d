// The public bf16 GEMM entry point: names, input validation (one sentence per bad input),
// the alignment flags of the 16-byte paths, and dispatch to the rung or to `best`.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <iterator>
#include <limits>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/gemm/layout_check.hpp"
#include "memhier/core/check.hpp"
#include "memhier/kernels/gemm_bf16.hpp"
#include "memhier/kernels/gemm_tuning_cache.hpp"
#include "memhier/registry/names.hpp"
#include "variants.hpp"

namespace memhier::gemm_bf16 {
namespace {

constexpr registry::Named<Variant> kNames[] = {
#define MEMHIER_RUNG(name, ...) {Variant::name, #name},
#define MEMHIER_BEST(name, ...) {Variant::name, #name},
#include "memhier/kernels/gemm_bf16_rungs.inc"
};

using gemm::detail::aligned;

/// The validated problem as the kernels take it, with the 16-byte paths' flags; throws
/// std::invalid_argument with one sentence for bad input.
detail::Params make_params(int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda,
                           const __nv_bfloat16* B, int ldb, float beta, const detail::COut& C,
                           int ldc) {
  gemm::detail::check_layout("gemm_bf16: ", m, n, k, lda, ldb, ldc, A, B, C.data());
  if (!aligned(A, 2) || !aligned(B, 2))
    throw std::invalid_argument("gemm_bf16: A and B must be 2-byte aligned bf16 pointers.");
  if (!aligned(C.data(), static_cast<std::uintptr_t>(C.elem_bytes())))
    throw std::invalid_argument(C.bf16 ? "gemm_bf16: a bf16 C must be 2-byte aligned."
                                       : "gemm_bf16: an fp32 C must be 4-byte aligned.");
  if (!aligned(C.bias, 4))
    throw std::invalid_argument("gemm_bf16: the bias must be a 4-byte aligned float pointer.");
  detail::Params p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.alpha = alpha;
  p.beta = beta;
  p.A = A;
  p.B = B;
  p.C = C;
  p.lda = lda;
  p.ldb = ldb;
  p.ldc = ldc;
  p.vec_a = aligned(A, 16) && lda % 8 == 0;
  p.vec_b = aligned(B, 16) && ldb % 8 == 0;
  return p;
}

/// Every entry point's run: the alpha == 0 path, else the variant (best's choice for `p`).
void run(Variant v, const detail::Params& p, cudaStream_t stream) {
  if (p.alpha == 0.f) {  // BLAS: A and B are not read; C = beta * C (+ bias)
    detail::launch_scale_c(p, stream);
    return;
  }
  const Variant chosen = v == Variant::best ? detail::choose_best(p, stream) : v;
  detail::launcher_for(chosen).launch(p, stream);
}

/// best_config() of a call (C's pointer only names the key: the const_cast writes nothing).
std::string config_of(int m, int n, int k, const __nv_bfloat16* A, int lda, const __nv_bfloat16* B,
                      int ldb, const detail::COut& C, int ldc) {
  if (m <= 0 || n <= 0 || k <= 0) return {};
  return detail::cached_best(detail::shape_key(m, n, k, A, lda, B, ldb, C, ldc));
}

}  // namespace

const char* to_string(Variant v) {
  return registry::name_of(kNames, v);
}

const std::vector<Variant>& all_variants() {
  static const std::vector<Variant> all(std::begin(kAllVariants), std::end(kAllVariants));
  return all;
}

bool parse_variant(const std::string& name, Variant* out) {
  const std::optional<Variant> v = registry::from_name(kNames, name);
  if (v && out) *out = *v;
  return v.has_value();
}

namespace detail {

Launcher launcher_for(Variant v) {
  switch (v) {
#define MEMHIER_RUNG(name, launcher, ...) \
  case Variant::name:                     \
    return launcher();
#define MEMHIER_BEST(name, ...) \
  case Variant::name:           \
    break;
#include "memhier/kernels/gemm_bf16_rungs.inc"
  }
  throw std::invalid_argument(std::string("gemm_bf16: variant '") + to_string(v) +
                              "' has no single kernel (best picks one per shape).");
}

const std::vector<Variant>& best_candidates() {
  static const std::vector<Variant> c = [] {
    std::vector<Variant> v;
#define MEMHIER_RUNG(name, launcher, candidate, ...) \
  if (candidate) v.push_back(Variant::name);
#define MEMHIER_BEST(...)
#include "memhier/kernels/gemm_bf16_rungs.inc"
    return v;
  }();
  return c;
}

}  // namespace detail

void gemm_bf16(Variant v, int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda,
               const __nv_bfloat16* B, int ldb, float beta, float* C, int ldc,
               cudaStream_t stream) {
  run(v, make_params(m, n, k, alpha, A, lda, B, ldb, beta, detail::COut(C), ldc), stream);
}

void gemm_bf16(Variant v, int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda,
               const __nv_bfloat16* B, int ldb, float beta, float* C, int ldc,
               const Epilogue& epilogue, cudaStream_t stream) {
  run(v, make_params(m, n, k, alpha, A, lda, B, ldb, beta, detail::COut(C, epilogue.bias), ldc),
      stream);
}

void gemm_bf16(Variant v, int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda,
               const __nv_bfloat16* B, int ldb, float beta, __nv_bfloat16* C, int ldc,
               const Epilogue& epilogue, cudaStream_t stream) {
  run(v, make_params(m, n, k, alpha, A, lda, B, ldb, beta, detail::COut(C, epilogue.bias), ldc),
      stream);
}

memhier::tuning::Outcome tune(int m, int n, int k, const __nv_bfloat16* A, int lda,
                              const __nv_bfloat16* B, int ldb, float* C, int ldc, bool retune,
                              cudaStream_t stream) {
  return detail::tune_best(make_params(m, n, k, 1.f, A, lda, B, ldb, 0.f, detail::COut(C), ldc),
                           stream, retune);
}

std::string best_config(int m, int n, int k) {
  if (m <= 0 || n <= 0 || k <= 0) return {};
  return detail::cached_best(gemm::tuning::dense_shape(m, n, k));
}

std::string best_config(int m, int n, int k, const __nv_bfloat16* A, int lda,
                        const __nv_bfloat16* B, int ldb, const float* C, int ldc,
                        const Epilogue& epilogue) {
  return config_of(m, n, k, A, lda, B, ldb, detail::COut(const_cast<float*>(C), epilogue.bias),
                   ldc);
}

std::string best_config(int m, int n, int k, const __nv_bfloat16* A, int lda,
                        const __nv_bfloat16* B, int ldb, const __nv_bfloat16* C, int ldc,
                        const Epilogue& epilogue) {
  return config_of(m, n, k, A, lda, B, ldb,
                   detail::COut(const_cast<__nv_bfloat16*>(C), epilogue.bias), ldc);
}

}  // namespace memhier::gemm_bf16
