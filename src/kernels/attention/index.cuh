// Index math of the attention ladder, __host__ __device__ so that the kernels, the float64
// reference and the work model agree: element offsets in the [batch, seq, heads, head_dim]
// layout and the bottom-right causal mask.
#pragma once

#include <cstddef>

#include "memhier/core/hd.hpp"

namespace memhier::attention::detail {

/// Element offset of row `pos` of head `head` in a [batch, seq, heads, head_dim] tensor.
MEMHIER_HD inline std::size_t row_offset(int b, int pos, int head, int seq, int heads,
                                         int head_dim) {
  return ((static_cast<std::size_t>(b) * seq + pos) * heads + head) *
         static_cast<std::size_t>(head_dim);
}

/// The key/value head that query head `h` reads (grouped-query attention).
MEMHIER_HD constexpr int kv_head_of(int h, int heads, int kv_heads) {
  return h / (heads / kv_heads);
}

/// Keys query `i` sees: [0, visible_keys) (bottom-right causal alignment: the last query sees
/// every key); <= 0 when the row is fully masked.
MEMHIER_HD constexpr long long visible_keys(int i, int seq_q, int seq_k, bool causal) {
  if (!causal) return seq_k;
  const long long end = static_cast<long long>(i) + 1 + seq_k - seq_q;
  return end < seq_k ? end : seq_k;
}

/// Keys a tile of queries [i0, i0 + rows) needs: those of its last row, within seq_k.
MEMHIER_HD constexpr int tile_key_end(int i0, int rows, int seq_q, int seq_k, bool causal) {
  const int last = i0 + rows - 1 < seq_q - 1 ? i0 + rows - 1 : seq_q - 1;
  const long long n = visible_keys(last, seq_q, seq_k, causal);
  return n < 0 ? 0 : static_cast<int>(n);
}

/// (query, key) pairs the mask leaves, summed over one head: the flops' count.
inline double visible_pairs(int seq_q, int seq_k, bool causal) {
  double n = 0;
  if (!causal) return static_cast<double>(seq_q) * seq_k;
  for (int i = 0; i < seq_q; ++i) {
    const long long v = visible_keys(i, seq_q, seq_k, true);
    n += v > 0 ? static_cast<double>(v) : 0.0;
  }
  return n;
}

/// HBM bytes of the fused rungs: Q and O (batch x seq_q x heads rows), K and V (batch x
/// seq_k x kv_heads rows), each read or written once in bf16.
inline double fused_hbm_bytes(int batch, int heads, int kv_heads, int seq_q, int seq_k,
                              int head_dim) {
  return 2.0 * head_dim * batch * (2.0 * seq_q * heads + 2.0 * seq_k * kv_heads);
}

/// HBM bytes of the unfused rung: the fused rungs' plus the fp32 scores of every (query, key)
/// pair of every head crossing HBM four times (S written, read by the softmax, P written,
/// read by P V): 16 bytes a score, masked or not.
inline double unfused_hbm_bytes(int batch, int heads, int kv_heads, int seq_q, int seq_k,
                                int head_dim) {
  return fused_hbm_bytes(batch, heads, kv_heads, seq_q, seq_k, head_dim) +
         16.0 * batch * heads * static_cast<double>(seq_q) * seq_k;
}

/// log2(e): the kernels fold it into the scale and exponentiate with exp2.
constexpr float kLog2e = 1.4426950408889634f;

}  // namespace memhier::attention::detail
