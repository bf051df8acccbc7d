// The public attention entry point: names, input checks (one sentence per bad input), the
// unfused rung's workspace, and the dispatch to the rung or to `best`.
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "memhier/core/check.hpp"
#include "memhier/kernels/attention.hpp"
#include "memhier/registry/names.hpp"
#include "variants.hpp"

namespace memhier::attention {
namespace {

constexpr registry::Named<Variant> kNames[] = {
#define MEMHIER_RUNG(name, ...) {Variant::name, #name},
#define MEMHIER_BEST(name, ...) {Variant::name, #name},
#include "memhier/kernels/attention_rungs.inc"
};

std::uintptr_t addr(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p);
}

bool overlap(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) {
  return addr(a) < addr(b) + b_bytes && addr(b) < addr(a) + a_bytes;
}

/// Elements of a [batch, seq, heads, head_dim] tensor.
std::size_t elems(const Shape& s, int seq, int heads) {
  return static_cast<std::size_t>(s.batch) * seq * heads * s.head_dim;
}

/// Scores of the unfused rung's S (and of P): batch x heads x seq_q x seq_k.
std::size_t score_count(const Shape& s) {
  return static_cast<std::size_t>(s.batch) * s.heads * s.seq_q * s.seq_k;
}

}  // namespace

const char* to_string(Variant v) {
  return registry::name_of(kNames, v);
}

std::optional<Variant> variant_from_string(const std::string& name) {
  return registry::from_name(kNames, name);
}

const std::vector<Variant>& all_variants() {
  static const std::vector<Variant> all(std::begin(kAllVariants), std::end(kAllVariants));
  return all;
}

void check_shape(const Shape& s) {
  if (s.batch <= 0 || s.heads <= 0 || s.kv_heads <= 0 || s.seq_q <= 0 || s.seq_k <= 0)
    throw std::invalid_argument(
        "attention: batch, heads, kv_heads, seq_q and seq_k must all be positive.");
  if (s.heads % s.kv_heads != 0)
    throw std::invalid_argument("attention: kv_heads (" + std::to_string(s.kv_heads) +
                                ") must divide heads (" + std::to_string(s.heads) + ").");
  if (s.head_dim != 64 && s.head_dim != 128)
    throw std::invalid_argument("attention: head_dim " + std::to_string(s.head_dim) +
                                " is not supported; the kernels take 64 or 128.");
  if (!std::isfinite(s.scale) || !(s.scale > 0.f))
    throw std::invalid_argument("attention: the scale must be finite and positive.");
  // Rows of head_dim: the kernels' grids and the unfused scores index them in 32 bits.
  const double rows_q = static_cast<double>(s.batch) * s.seq_q * s.heads;
  const double rows_k = static_cast<double>(s.batch) * s.seq_k * s.kv_heads;
  const double score_rows = static_cast<double>(s.batch) * s.heads * s.seq_q;
  if (rows_q > INT32_MAX || rows_k > INT32_MAX || score_rows > INT32_MAX)
    throw std::invalid_argument("attention: batch x seq x heads exceeds 2^31 rows.");
}

std::size_t workspace_bytes(Variant v, const Shape& s) {
  check_shape(s);
  if (v == Variant::best) v = detail::best_variant(s);
  if (v != Variant::unfused) return 0;
  return 2 * score_count(s) * sizeof(float);
}

void forward(Variant v, const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* vv,
             __nv_bfloat16* o, const Shape& s, void* workspace, std::size_t bytes,
             cudaStream_t stream) {
  if (!variant_from_string(to_string(v)))
    throw std::invalid_argument("attention: unknown variant value.");
  check_shape(s);
  if (!q || !k || !vv || !o)
    throw std::invalid_argument("attention: q, k, v and o must be device pointers, not null.");
  if (addr(q) % 16 || addr(k) % 16 || addr(vv) % 16 || addr(o) % 16)
    throw std::invalid_argument(
        "attention: q, k, v and o must be 16-byte aligned (rows are read 8 bf16 at a time).");
  const std::size_t q_bytes = elems(s, s.seq_q, s.heads) * 2;
  const std::size_t kv_bytes = elems(s, s.seq_k, s.kv_heads) * 2;
  if (overlap(o, q_bytes, q, q_bytes) || overlap(o, q_bytes, k, kv_bytes) ||
      overlap(o, q_bytes, vv, kv_bytes))
    throw std::invalid_argument("attention: o overlaps q, k or v.");
  const Variant run = v == Variant::best ? detail::best_variant(s) : v;
  detail::Problem p{q, k, vv, o, s, nullptr, nullptr, stream};
  if (run == Variant::unfused) {
    const std::size_t need = workspace_bytes(run, s);
    if (!workspace || bytes < need)
      throw std::invalid_argument("attention: the unfused rung needs a workspace of " +
                                  std::to_string(need) + " bytes (workspace_bytes), got " +
                                  std::to_string(workspace ? bytes : 0) + ".");
    if (addr(workspace) % 16)
      throw std::invalid_argument("attention: the workspace must be 16-byte aligned.");
    if (overlap(workspace, need, o, q_bytes))
      throw std::invalid_argument("attention: the workspace overlaps o.");
    p.scores = static_cast<float*>(workspace);
    p.probs = p.scores + score_count(s);
  }
  switch (run) {
#define MEMHIER_RUNG(name, launch, ...) \
  case Variant::name:                   \
    return detail::launch(p);
#define MEMHIER_BEST(name, ...) \
  case Variant::name:           \
    break;
#include "memhier/kernels/attention_rungs.inc"
  }
  throw std::invalid_argument("attention: best did not resolve to a rung.");
}

void forward(Variant v, const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* vv,
             __nv_bfloat16* o, int batch, int heads, int kv_heads, int seq_q, int seq_k,
             int head_dim, bool causal, float scale, cudaStream_t stream) {
  const Shape s{batch, heads, kv_heads, seq_q, seq_k, head_dim, causal, scale};
  const std::size_t need = workspace_bytes(v, s);
  if (need == 0) return forward(v, q, k, vv, o, s, nullptr, 0, stream);
  void* ws = nullptr;
  MEMHIER_CUDA(cudaMallocAsync(&ws, need, stream));
  try {
    forward(v, q, k, vv, o, s, ws, need, stream);
  } catch (...) {
    cudaFreeAsync(ws, stream);
    throw;
  }
  MEMHIER_CUDA(cudaFreeAsync(ws, stream));
}

namespace detail {

// No tuner yet: at head_dim 64 the three-warpgroup configuration, whose third consumer's
// softmax hides behind the other two's wgmma (the exponentials weigh twice what they do at
// 128); at 128 rung 5, which reaches its bar with two.
Variant best_variant(const Shape& s) {
  const Variant top = s.head_dim == 64 ? Variant::wgmma_tma_3wg : Variant::wgmma_tma;
  try {
    if (wgmma_tma_unsupported(top, s).empty()) return top;
  } catch (const core::CudaError&) {
    // No device to ask (the registry without a GPU): the rung that runs on every card.
  }
  return Variant::cp_async_pipeline;
}

}  // namespace detail
}  // namespace memhier::attention
