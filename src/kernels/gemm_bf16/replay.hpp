// The replay of the bf16 GEMM kernels for their predictions (predict.hpp): the problem as
// the kernels see it and one replay per kernel, each recording every global and shared
// instruction its SASS executes (sm_90, nvcc 13.0), lane by lane, through the recorder the
// SGEMM ladder's replays use (kernels/predict.hpp). A rung's table line
// (gemm_bf16_rungs.inc) names the replay predict() runs for it. Host-only.
#pragma once

#include <cstdint>

#include "kernels/predict.hpp"
#include "variants.hpp"

namespace memhier::gemm_bf16::detail::replay {

using kernels::predict::Recorder;

/// The problem as the kernels see it (Params with byte addresses instead of pointers).
struct Problem {
  int m = 0, n = 0, k = 0;
  int lda = 0, ldb = 0, ldc = 0;
  bool beta = false;                    ///< beta != 0: the epilogue reads C
  bool vec_a = false, vec_b = false;    ///< 16-byte accesses legal (Params::vec_a, vec_b)
  bool wmma_a = false, wmma_b = false;  ///< rung 1 may load fragments from A, B directly
  std::uint64_t A = kernels::predict::buffer_base(0), B = kernels::predict::buffer_base(1),
                C = kernels::predict::buffer_base(2);
};

/// A rung's replay: records every global and shared instruction its kernel executes for
/// `p` (v: the rung, whose launcher's block size is checked against the replayed one).
using Replay = void (*)(Recorder& rec, const Problem& p, Variant v);

/// What a table line names for a rung the model does not cover: it has no prediction.
inline constexpr Replay none = nullptr;

// One replay per kernel (replay.cpp); the table names them.
void wmma_global(Recorder& rec, const Problem& p, Variant v);    ///< wmma_global.cu
void wmma_smem(Recorder& rec, const Problem& p, Variant v);      ///< wmma_smem.cu
void mma_padded(Recorder& rec, const Problem& p, Variant v);     ///< mma_kernel<padded, 1>
void mma_swizzled(Recorder& rec, const Problem& p, Variant v);   ///< mma_kernel<swizzled, 1>
void mma_pipelined(Recorder& rec, const Problem& p, Variant v);  ///< mma_kernel<swizzled, 4>
/// scale.cu, the alpha == 0 path of every rung.
void scale_c(Recorder& rec, const Problem& p);

}  // namespace memhier::gemm_bf16::detail::replay
