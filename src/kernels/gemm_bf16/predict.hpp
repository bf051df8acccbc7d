// The model's prediction of what Nsight Compute counts for the bf16 GEMM rungs whose table
// line (gemm_bf16_rungs.inc) names a replay (rungs 1-5), and for the alpha == 0 path: every
// block, warp and memory instruction the kernel executes, from the same index math
// (layout.cuh, kernels/gemm/index.cuh) and launch geometry as the kernels. Host-only.
#pragma once

#include "memhier/kernels/gemm_bf16.hpp"
#include "memhier/model/access.hpp"
#include "memhier/model/replay.hpp"

namespace memhier::gemm_bf16::detail {

/// True when predict() models `v`: its table line names a replay.
bool has_prediction(Variant v);

/// Counts of what gemm_bf16(v, ...) launches for C = alpha A B + beta C with row-major
/// A (m x k, lda = k), B (k x n, ldb = n) and C (m x n, ldc = n) in separate cudaMalloc
/// buffers, as the family's case runs it. Throws std::invalid_argument for a rung without
/// a prediction.
model::AccessCounts predict(Variant v, int m, int n, int k, float alpha, float beta);

/// The global address stream of the same replay, block by block in launch order, into
/// `sink` (the memory-system model). Throws like predict().
void stream(Variant v, int m, int n, int k, float alpha, float beta, model::AccessSink& sink);

}  // namespace memhier::gemm_bf16::detail
