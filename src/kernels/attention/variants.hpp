// Private to the attention ladder: the validated problem every launch takes and one host
// launch function per rung (each in its own .cu), with its kernel symbol for the registry.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <string>

#include "memhier/kernels/attention.hpp"

namespace memhier::attention::detail {

/// One validated call: device pointers, the shape, the unfused rung's scratch, the stream.
struct Problem {
  const __nv_bfloat16* q = nullptr;
  const __nv_bfloat16* k = nullptr;
  const __nv_bfloat16* v = nullptr;
  __nv_bfloat16* o = nullptr;
  Shape s;
  float* scores = nullptr;  ///< unfused: S, [batch, heads, seq_q, seq_k] fp32
  float* probs = nullptr;   ///< unfused: P, the same shape
  cudaStream_t stream = nullptr;
};

// launch_x(p) runs rung x on p.stream and checks the launch; x_symbol() is its main kernel.
#define MEMHIER_RUNG(name, launch, symbol, ...) \
  void launch(const Problem& p);                \
  const void* symbol();
#define MEMHIER_BEST(...)
#include "memhier/kernels/attention_rungs.inc"

/// Why wgmma rung `v` (wgmma_tma, wgmma_tma_wide or wgmma_tma_3wg; sm_90a only) cannot run
/// `s` on the current device, in one sentence, or "" when it can. Throws CudaError when there
/// is no device to ask.
std::string wgmma_tma_unsupported(Variant v, const Shape& s);

/// The rung `best` runs at `s`: wgmma_tma_3wg at head_dim 64 and wgmma_tma at 128 where they
/// run, else cp_async_pipeline.
Variant best_variant(const Shape& s);

}  // namespace memhier::attention::detail
