// Attention forward, bf16: O = softmax(Q K^T scale, causal mask) V per head, fp32 softmax
// statistics and accumulation, Q, K, V and O in [batch, seq, heads, head_dim] contiguous
// layout, grouped-query heads (kv_heads divides heads). One entry point for every rung of
// the ladder, from three unfused kernels to a cp.async-pipelined mma.sync kernel and (sm_90a
// only) a warp-specialized wgmma kernel fed by TMA.
//
// Causal mask, aligned to the bottom-right as FlashAttention (2.1 and later) does: query i
// sees key j when j <= i + (seq_k - seq_q), so the last query sees every key. When seq_q >
// seq_k, the first seq_q - seq_k queries see no key; their output rows are 0.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace memhier::attention {

/// The rungs of the ladder, in order (attention_rungs.inc); `best` runs the highest rung.
enum class Variant {
#define MEMHIER_RUNG(name, ...) name,
#define MEMHIER_BEST(name, ...) name,
#include "memhier/kernels/attention_rungs.inc"
};

/// Every variant, in rung order (best last).
inline constexpr Variant kAllVariants[] = {
#define MEMHIER_RUNG(name, ...) Variant::name,
#define MEMHIER_BEST(name, ...) Variant::name,
#include "memhier/kernels/attention_rungs.inc"
};

/// The variant's readable name ("mma_ldmatrix").
const char* to_string(Variant v);

/// The variant called `name`, or nullopt.
std::optional<Variant> variant_from_string(const std::string& name);

/// Every variant, in rung order (best last).
const std::vector<Variant>& all_variants();

/// One attention problem's extents and options.
struct Shape {
  int batch = 1, heads = 1, kv_heads = 1;
  int seq_q = 1, seq_k = 1, head_dim = 64;
  bool causal = false;
  float scale = 0.125f;  ///< multiplies Q K^T before the softmax (usually 1/sqrt(head_dim))
};

/// Throws std::invalid_argument with one sentence when `s` is not a problem the ladder
/// takes: non-positive extents, kv_heads not dividing heads, head_dim other than 64 or 128,
/// a scale that is not finite and positive, or a tensor past 2^31 rows of head_dim.
void check_shape(const Shape& s);

/// Device scratch bytes `v` needs at `s` (the unfused rung's S and P, fp32); 0 for the fused
/// rungs.
std::size_t workspace_bytes(Variant v, const Shape& s);

/// O = attention(Q, K, V) on `stream`. q and o are [batch, seq_q, heads, head_dim], k and v
/// [batch, seq_k, kv_heads, head_dim], contiguous bf16 device memory, 16-byte aligned, o not
/// overlapping an input; query head h reads key/value head h / (heads / kv_heads).
/// `workspace` (device, 16-byte aligned, at least workspace_bytes(v, s)) holds the unfused
/// rung's scratch and is otherwise unused. Throws std::invalid_argument (one sentence) for a
/// bad shape, a null, misaligned or overlapping pointer, or a workspace too small; CudaError
/// for a failed CUDA call.
void forward(Variant v, const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* vv,
             __nv_bfloat16* o, const Shape& s, void* workspace, std::size_t workspace_bytes,
             cudaStream_t stream = nullptr);

/// The same with the arguments spelled out; the unfused rung's workspace is allocated and
/// freed in stream order on `stream` (cudaMallocAsync).
void forward(Variant v, const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* vv,
             __nv_bfloat16* o, int batch, int heads, int kv_heads, int seq_q, int seq_k,
             int head_dim, bool causal, float scale, cudaStream_t stream = nullptr);

}  // namespace memhier::attention
