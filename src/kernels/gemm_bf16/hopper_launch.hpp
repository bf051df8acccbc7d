// Host entry points of the Hopper rungs of the bf16 GEMM ladder (6: WGMMA fed by TMA through
// an mbarrier pipeline; 7: warp-specialized, persistent, cluster multicast; best's ws_*
// candidates: rung 7's kernel at other tile widths, stage counts and cluster sizes, listed
// in ws_configs.inc). Both compute
// C = alpha * A * B + beta * C (+ bias) with A (m x k) and B (k x n) row-major bf16, fp32
// accumulation and C (m x n) row-major fp32 or bf16 (COut), on sm_90a devices (compute
// capability 9.0) only.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <string>

#include "memhier/kernels/gemm_preselect.hpp"
#include "output.hpp"

namespace memhier::kernels::gemm_bf16 {

using memhier::gemm_bf16::detail::COut;

/// Why the Hopper rungs cannot run this problem on the current device (one sentence), or ""
/// when they can: sizes positive, lda >= k, ldb >= n, ldc >= n, lda and ldb multiples of 8
/// elements (TMA row pitches are multiples of 16 bytes), compute capability 9.0.
std::string hopper_gemm_unsupported(int m, int n, int k, int lda, int ldb, int ldc);

/// hopper_gemm_unsupported plus the pointers: A and B non-null and 16-byte aligned (TMA), C
/// non-null and aligned to its element, the bias (if any) 4-byte aligned.
std::string hopper_gemm_unsupported(int m, int n, int k, int lda, int ldb, int ldc, const void* a,
                                    const void* b, const COut& c);

/// Rung 6: one 128 x 256 tile of C a block, two warpgroups each on 64 rows with wgmma
/// m64n256k16; one thread issues TMA loads of 64-deep k-blocks into 128-byte-swizzled shared
/// memory, four stages on full/empty mbarriers. Throws std::invalid_argument with
/// hopper_gemm_unsupported's sentence, CudaError on a CUDA failure. C is read only when
/// beta != 0; A and B are read even when alpha == 0 (the result is then beta * C exactly).
void wgmma_tma(int m, int n, int k, float alpha, const __nv_bfloat16* a, int lda,
               const __nv_bfloat16* b, int ldb, float beta, const COut& c, int ldc,
               cudaStream_t stream);

/// What the family table records of a Hopper rung.
struct HopperKernelInfo {
  const void* symbol = nullptr;  ///< the __global__ function (registers, spills, static smem)
  int block_threads = 0;
  int dynamic_smem = 0;  ///< bytes, opted in above 48 KiB by the launcher
  int cluster_size = 1;
  /// Splits K over idle SMs (always: declines shapes it would not split) or the last wave's
  /// tiles (tail: declines shapes without such a wave).
  memhier::gemm::tuning::SplitK split_k = memhier::gemm::tuning::SplitK::never;
  /// The fewest 64-deep k-blocks a split runs (the split_count or tail_split_plan argument).
  int min_split_blocks = 1;
  /// A tail split's most rounds of splits (tail_split_plan's max_rounds; 0: any).
  int split_rounds = 0;
};

/// Rung 6's kernel and launch shape.
HopperKernelInfo wgmma_tma_info();

/// Rung 7 and the ws_* candidates (ws_configs.inc): a producer warpgroup (setmaxnreg down)
/// issues the TMA loads while two consumer warpgroups (setmaxnreg up) run wgmma; persistent
/// blocks walk the 128 x BN tiles in grouped order; in clusters, blocks on neighbouring row
/// tiles share each B k-block, each loading its share and multicasting it. Same contract as
/// wgmma_tma. name_info() gives the kernel and launch shape (its grid: as many clusters as
/// fit, at most the tiles).
#define MEMHIER_WS(name, ...)                                                    \
  void name(int m, int n, int k, float alpha, const __nv_bfloat16* a, int lda,   \
            const __nv_bfloat16* b, int ldb, float beta, const COut& c, int ldc, \
            cudaStream_t stream);                                                \
  HopperKernelInfo name##_info();
#include "ws_configs.inc"

/// best's skinny candidates (swap_ab.sm90a.cu): C^T = B^T A^T on wgmma m64n16/32/64, a
/// block taking 16, 32 or 64 rows of C (swap_configs.inc) by 128 or 64 columns, K split over
/// the blocks the tiles leave idle (the 128-column ones decline shapes they would not split;
/// the 64-column ones run them unsplit). Same contract as wgmma_tma.
#define MEMHIER_SWAP_AB(name, ...)                                               \
  void name(int m, int n, int k, float alpha, const __nv_bfloat16* a, int lda,   \
            const __nv_bfloat16* b, int ldb, float beta, const COut& c, int ldc, \
            cudaStream_t stream);                                                \
  HopperKernelInfo name##_info();
#include "swap_configs.inc"

}  // namespace memhier::kernels::gemm_bf16
