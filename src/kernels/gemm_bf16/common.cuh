// Device helpers shared by the bf16 rungs: 8-element staging loads (16-byte where legal,
// zero past the edges), the epilogue's store of one element (output.cuh: C unread when
// beta == 0), the mma.sync and ldmatrix wrappers, and the one launch path.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "memhier/core/check.hpp"
#include "memhier/core/ptx.cuh"
#include "output.cuh"
#include "variants.hpp"

namespace memhier::gemm_bf16::detail {

/// Offset in elements of (row, col) of a row-major matrix, in 64 bits.
__host__ __device__ __forceinline__ std::size_t rm_offset(int row, int col, int ld) {
  return static_cast<std::size_t>(row) * static_cast<std::size_t>(ld) +
         static_cast<std::size_t>(col);
}

/// Eight elements p[0..7] of a row with `avail` valid (<= 0: none), zero past the end: one
/// 16-byte load when `vec` and all eight are inside, element loads otherwise.
__device__ __forceinline__ uint4 load8(const __nv_bfloat16* p, int avail, bool vec) {
  if (vec && avail >= 8) return __ldg(reinterpret_cast<const uint4*>(p));
  const unsigned short* s = reinterpret_cast<const unsigned short*>(p);
  unsigned short e[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) e[i] = i < avail ? __ldg(s + i) : static_cast<unsigned short>(0);
  return make_uint4(e[0] | (unsigned{e[1]} << 16), e[2] | (unsigned{e[3]} << 16),
                    e[4] | (unsigned{e[5]} << 16), e[6] | (unsigned{e[7]} << 16));
}

/// The epilogue beyond the plain fp32 store (a bias, a bf16 C: output.cuh) for C(row, col) and,
/// when col + 1 < n, C(row, col + 1), row inside C; C read only when beta != 0. Out of line:
/// inlined at every fragment store of the unrolled tiles it made mma_swizzled's code 1.7x as
/// large for every call, the plain ones included.
static __device__ __noinline__ void store2_epilogue(COut c, int ldc, int n, float alpha, float beta,
                                                    int row, int col, float v0, float v1) {
  const float v[2] = {v0, v1};
  for (int j = 0; j < 2 && col + j < n; ++j) {
    const std::size_t i = rm_offset(row, col + j, ldc);
    const float old = beta != 0.f ? c_load(c, i) : 0.f;
    c_store(c, i, c_finish(v[j], alpha, beta, old, c_bias(c, col + j)));
  }
}

/// One output C(row, col), inside C: C = alpha * acc (+ beta * C when beta != 0; C is not read
/// otherwise), or the epilogue's. The plain store is c_finish without its alpha == 0 and bias
/// terms (alpha == 0 comes only from scale.cu, with acc = 0): the instructions replay.cpp models.
__device__ __forceinline__ void store1(const Params& p, int row, int col, float acc) {
  if (!p.C.plain()) {
    store2_epilogue(p.C, p.ldc, col + 1, p.alpha, p.beta, row, col, acc, 0.f);
    return;
  }
  float* c = p.C.f32 + rm_offset(row, col, p.ldc);
  float o = p.alpha * acc;
  if (p.beta != 0.f) o = fmaf(p.beta, *c, o);
  *c = o;
}

/// Two outputs C(row, col), C(row, col + 1), each guarded against the edges of C.
__device__ __forceinline__ void store2(const Params& p, int row, int col, float v0, float v1) {
  if (row >= p.m) return;
  if (!p.C.plain()) {
    if (col < p.n) store2_epilogue(p.C, p.ldc, p.n, p.alpha, p.beta, row, col, v0, v1);
    return;
  }
  if (col < p.n) store1(p, row, col, v0);
  if (col + 1 < p.n) store1(p, row, col + 1, v1);
}

/// ldmatrix.x4: four 8x8 b16 matrices, lanes 8j..8j+7 giving matrix j's row addresses.
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(ptx::smem_addr(smem_row)));
}

/// ldmatrix.x4.trans: the same, each matrix transposed (B stored k-major as the mma's
/// column operand).
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(ptx::smem_addr(smem_row)));
}

/// d += a * b: mma.sync m16n8k16, bf16 inputs, fp32 accumulators.
__device__ __forceinline__ void mma_bf16(float (&d)[4], const unsigned (&a)[4], unsigned b0,
                                         unsigned b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/// The one launch path of the ladder: launch, then check the launch.
template <typename... KernelArgs, typename... Args>
inline void launch_kernel(void (*kernel)(KernelArgs...), dim3 grid, dim3 block, std::size_t smem,
                          cudaStream_t stream, Args&&... args) {
  // clang-format off
  kernel<<<grid, block, smem, stream>>>(std::forward<Args>(args)...);
  // clang-format on
  MEMHIER_CHECK_LAUNCH();
}

}  // namespace memhier::gemm_bf16::detail
