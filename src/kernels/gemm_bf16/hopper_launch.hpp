// Host entry points of the Hopper rungs of the bf16 GEMM ladder (6: WGMMA fed by TMA through
// an mbarrier pipeline; 7: warp-specialized, persistent, cluster multicast; best's ws_*
// candidates: rung 7's kernel at other tile widths, stage counts and cluster sizes). Both compute
// C = alpha * A * B + beta * C with A (m x k) and B (k x n) row-major bf16, fp32 accumulation
// and C (m x n) row-major fp32, on sm_90a devices (compute capability 9.0) only.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <string>

namespace memhier::kernels::gemm_bf16 {

/// Why the Hopper rungs cannot run this problem on the current device (one sentence), or ""
/// when they can: sizes positive, lda >= k, ldb >= n, ldc >= n, lda and ldb multiples of 8
/// elements (TMA row pitches are multiples of 16 bytes), compute capability 9.0.
std::string hopper_gemm_unsupported(int m, int n, int k, int lda, int ldb, int ldc);

/// hopper_gemm_unsupported plus the pointers: A and B non-null and 16-byte aligned (TMA), C
/// non-null and 4-byte aligned.
std::string hopper_gemm_unsupported(int m, int n, int k, int lda, int ldb, int ldc, const void* a,
                                    const void* b, const void* c);

/// Rung 6: one 128 x 256 tile of C a block, two warpgroups each on 64 rows with wgmma
/// m64n256k16; one thread issues TMA loads of 64-deep k-blocks into 128-byte-swizzled shared
/// memory, four stages on full/empty mbarriers. Throws std::invalid_argument with
/// hopper_gemm_unsupported's sentence, CudaError on a CUDA failure. C is read only when
/// beta != 0; A and B are read even when alpha == 0 (the result is then beta * C exactly).
void wgmma_tma(int m, int n, int k, float alpha, const __nv_bfloat16* a, int lda,
               const __nv_bfloat16* b, int ldb, float beta, float* c, int ldc, cudaStream_t stream);

/// Rung 7: a producer warpgroup (setmaxnreg down) issues the TMA loads while two consumer
/// warpgroups (setmaxnreg up) run wgmma; persistent blocks walk the 128 x 256 tiles in grouped
/// order through four stages; clusters of two blocks on neighbouring row tiles share each B
/// k-block, each loading half and multicasting it to both. Same contract as wgmma_tma.
void warp_specialized(int m, int n, int k, float alpha, const __nv_bfloat16* a, int lda,
                      const __nv_bfloat16* b, int ldb, float beta, float* c, int ldc,
                      cudaStream_t stream);

/// Rung 7's kernel without clusters: each block loads all of its B (no lockstep with a peer).
void ws_c1_s4_128x256(int m, int n, int k, float alpha, const __nv_bfloat16* a, int lda,
                      const __nv_bfloat16* b, int ldb, float beta, float* c, int ldc,
                      cudaStream_t stream);

/// Rung 7's kernel in clusters of four row tiles: each block loads a quarter of B and
/// multicasts it, 24 KiB of L2 reads a 64-deep k-block instead of 32 (rung 7) or 48 (rung 6).
void ws_c4_s4_128x256(int m, int n, int k, float alpha, const __nv_bfloat16* a, int lda,
                      const __nv_bfloat16* b, int ldb, float beta, float* c, int ldc,
                      cudaStream_t stream);

/// Rung 7's kernel on 128 x 128 tiles (twice the tiles, for shapes that do not fill the SMs)
/// with six 32 KiB stages, clusters of two sharing B.
void ws_c2_s6_128x128(int m, int n, int k, float alpha, const __nv_bfloat16* a, int lda,
                      const __nv_bfloat16* b, int ldb, float beta, float* c, int ldc,
                      cudaStream_t stream);

/// ws_c2_s6_128x128 without clusters.
void ws_c1_s6_128x128(int m, int n, int k, float alpha, const __nv_bfloat16* a, int lda,
                      const __nv_bfloat16* b, int ldb, float beta, float* c, int ldc,
                      cudaStream_t stream);

/// Rung 7's kernel on 128 x 64 tiles (m64n64k16) with eight 24 KiB stages, no clusters: at
/// 1024^3 that is 128 tiles for 132 SMs, against 64 of 128 x 128.
void ws_c1_s8_128x64(int m, int n, int k, float alpha, const __nv_bfloat16* a, int lda,
                     const __nv_bfloat16* b, int ldb, float beta, float* c, int ldc,
                     cudaStream_t stream);

/// What the family table records of a Hopper rung.
struct HopperKernelInfo {
  const void* symbol = nullptr;  ///< the __global__ function (registers, spills, static smem)
  int block_threads = 0;
  int dynamic_smem = 0;  ///< bytes, opted in above 48 KiB by the launcher
  int cluster_size = 1;
};

/// Rung 6's kernel and launch shape.
HopperKernelInfo wgmma_tma_info();

/// Rung 7's kernel and launch shape (its grid: as many clusters as fit, at most the tiles).
HopperKernelInfo warp_specialized_info();

/// The candidates' kernels and launch shapes (grids as rung 7's).
HopperKernelInfo ws_c1_s4_128x256_info();
HopperKernelInfo ws_c4_s4_128x256_info();
HopperKernelInfo ws_c2_s6_128x128_info();
HopperKernelInfo ws_c1_s6_128x128_info();
HopperKernelInfo ws_c1_s8_128x64_info();

}  // namespace memhier::kernels::gemm_bf16
