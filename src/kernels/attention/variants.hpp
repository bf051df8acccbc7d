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

/// How a rung's kernel moves K and V tiles from global memory (its prediction's stream).
enum class KvLoad {
  plain,     ///< 16-byte loads through registers (ld.global.nc, allocating in L1)
  cp_async,  ///< 16-byte cp.async.cg (bypassing L1)
  tma        ///< TMA boxes of 128-byte rows issued by one producer thread
};

/// A rung's launch geometry at one head_dim, from the kernel's own constants, for the
/// prediction's replay (stream.cpp): queries a block, keys a K/V tile, block size, shared
/// memory a block (static + dynamic), K/V loading. The unfused rung's: P V's query rows, the
/// key tile both its kernels use (32, also the scores kernel's query tile), the scores
/// kernel's block and its static shared memory.
struct Geometry {
  int rows = 0, keys = 0, threads = 0, smem_bytes = 0;
  KvLoad load = KvLoad::plain;
};

// x_geometry(head_dim) for every rung x (in its .cu), head_dim 64 or 128.
#define MEMHIER_RUNG(name, ...) Geometry name##_geometry(int head_dim);
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
