// Hopper (sm_90a) pieces of the bf16 GEMM rungs 6 and 7 (and of attention's wgmma rung): the
// tile geometry, wgmma shared-memory descriptors and the wgmma instructions (A from shared
// memory or registers), the mbarrier waits and cluster arrives core/tma.cuh
// lacks (its loads, stores and barrier set-up serve these kernels too), cluster registers,
// setmaxnreg, the tile order and the register epilogue; on the host, the operands' TMA maps.
// Include only from
// *.sm90a.cu files: wgmma, multicast and setmaxnreg exist on sm_90a alone.
#pragma once

#include <cuda.h>  // CUtensorMap: a type only, the driver is reached at run time (core/tma)
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "memhier/core/check.hpp"
#include "memhier/core/tma.cuh"
#include "memhier/core/tma.hpp"
#include "output.cuh"

namespace memhier::kernels::gemm_bf16::sm90 {

// ---- Tile geometry ------------------------------------------------------------------------
// A CTA computes a 128 x BN tile of C (BN = 256, 128 or 64); each consumer warpgroup owns 64 of its
// rows, one m64nBN fp32 accumulator (BN / 2 registers a thread). A k-block is 64 deep: one
// 128-byte row of bf16, exactly the span of the 128-byte swizzle, so each operand row is one
// swizzle row. Rung 6 is the 128 x 256 tile with four stages (the k* constants below).
inline constexpr int kBlockM = 128;
inline constexpr int kBlockN = 256;
inline constexpr int kBlockK = 64;
inline constexpr int kBoxN = 64;  // B travels as 64-column TMA boxes: 128 bytes a box row
inline constexpr int kStages = 4;
inline constexpr int kGroupM = 8;  // tile rows that sweep N together (L2 reuse of B)
inline constexpr uint32_t kBytesA = kBlockM * kBlockK * 2;  // 16 KiB
inline constexpr uint32_t kBytesBox = kBlockK * kBoxN * 2;  // 8 KiB

/// The stage sizes of a 128 x BN tile with `Stages` stages: B is BN / 64 boxes; shared memory
/// holds the stages, 1 KiB of slack to align the base to the swizzle period and the full and
/// empty barriers.
template <int BN, int Stages>
struct Geometry {
  static_assert(BN == 64 || BN == 128 || BN == 256, "wgmma tiles here are m64n64/128/256");
  static constexpr int kBoxes = BN / kBoxN;
  static constexpr uint32_t kBytesB = kBlockK * BN * 2;
  static constexpr uint32_t kStageBytes = kBytesA + kBytesB;
  static constexpr int kSmemBytes = Stages * int(kStageBytes) + 1024 + 2 * Stages * 8;
};
inline constexpr uint32_t kBytesB = Geometry<kBlockN, kStages>::kBytesB;          // 32 KiB
inline constexpr uint32_t kStageBytes = Geometry<kBlockN, kStages>::kStageBytes;  // 48 KiB
inline constexpr int kSmemBytes = Geometry<kBlockN, kStages>::kSmemBytes;

/// Shared addresses of the stage buffers and barriers from a 1024-byte aligned base:
/// [A x Stages][B x Stages][full x Stages][empty x Stages]. Every tile starts on a multiple of
/// 1024 bytes, the period of the 128-byte swizzle (descriptor base offset 0).
template <int BN, int Stages>
struct SmemLayoutT {
  using G = Geometry<BN, Stages>;
  uint32_t base;
  __device__ uint32_t a(int s) const { return base + uint32_t(s) * kBytesA; }
  __device__ uint32_t b(int s) const { return base + Stages * kBytesA + uint32_t(s) * G::kBytesB; }
  __device__ uint32_t full(int s) const { return base + Stages * G::kStageBytes + 8u * s; }
  __device__ uint32_t empty(int s) const { return full(Stages) + 8u * s; }
};
using SmemLayout = SmemLayoutT<kBlockN, kStages>;

/// The layout over this block's dynamic shared memory, its base rounded up to 1024 bytes.
template <int BN = kBlockN, int Stages = kStages>
__device__ __forceinline__ SmemLayoutT<BN, Stages> smem_layout(const void* dynamic_smem) {
  const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(dynamic_smem));
  return SmemLayoutT<BN, Stages>{(raw + 1023u) & ~1023u};
}

// ---- wgmma --------------------------------------------------------------------------------
// Shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"): bits 0-13 start
// address >> 4, bits 16-29 leading-dimension byte offset >> 4, bits 32-45 stride-dimension
// byte offset >> 4, bits 49-51 base offset (0: tiles start 1024-byte aligned), bits 62-63
// swizzle mode (1 = 128-byte swizzle, the mode of the TMA maps below).
__device__ __forceinline__ uint64_t smem_desc(uint32_t addr, uint32_t lbo, uint32_t sbo) {
  return uint64_t((addr & 0x3FFFFu) >> 4) | (uint64_t(lbo >> 4) << 16) |
         (uint64_t(sbo >> 4) << 32) | (uint64_t(1) << 62);
}

/// A, K-major: TMA wrote 128 rows of 64 k (128 bytes a row), swizzled per 8-row group of
/// 1024 bytes, so SBO (next 8 rows) = 1024. LBO is unused when a wgmma's K (16 elements, 32
/// bytes) stays inside the swizzle row; 16 by convention. The kk-th 16-deep slice starts
/// 32 * kk bytes into the rows: the hardware applies the XOR swizzle to the address it forms
/// from the start, as TMA did when it wrote.
__device__ __forceinline__ uint64_t desc_a(uint32_t rows_addr, int kk) {
  return smem_desc(rows_addr + 32u * uint32_t(kk), 16, 1024);
}

/// B, MN-major (transposed): BN / 64 TMA boxes of 64 k-rows x 64 n (128 bytes a row), box j at
/// j * 8 KiB. The canonical MN-major 128-byte layout is ((8 x 16 B of n, n-chunks),
/// (8 k-rows of 128 B, k-groups)): LBO = bytes between 64-wide n chunks = 8192 (one box), SBO =
/// bytes between 8-row k groups = 1024. The kk-th 16-deep slice starts 16 rows (2048 bytes) in,
/// a multiple of the swizzle period. Boxes deeper than 64 k-rows (attention's V: a key tile of
/// 128 rows a box) pass their size as `box_bytes`, the n-chunk stride.
__device__ __forceinline__ uint64_t desc_b(uint32_t tile_addr, int kk,
                                           uint32_t box_bytes = kBytesBox) {
  return smem_desc(tile_addr + 2048u * uint32_t(kk), box_bytes, 1024);
}

/// Orders this warpgroup's earlier register accesses before the next wgmma (wgmma.fence).
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
/// Closes the wgmma operations issued so far into one group.
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
/// Waits until at most N of this warpgroup's wgmma groups are pending.
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

#define MEMHIER_ACC8(i)                                                                       \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
      "+f"(d[i + 6]), "+f"(d[i + 7])

/// Keeps the compiler from moving accumulator reads or writes across a wgmma wait: the
/// registers are "changed" here, after the asynchronous writes completed.
template <int R>
__device__ __forceinline__ void fence_accumulators(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; i += 8) asm volatile("" : MEMHIER_ACC8(i)::"memory");
}

/// D(64x256, fp32) = A(64x16) * B(16x256) + (accumulate ? D : 0), A K-major and B MN-major
/// (imm-trans-b = 1) in shared memory, bf16. Register d[v] of a thread holds row
/// 16 * warp + lane / 4 + 8 * ((v >> 1) & 1), column 8 * (v >> 2) + 2 * (lane % 4) + (v & 1).
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], uint64_t da, uint64_t db,
                                                 int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, "
      "%111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, "
      "%125, %126, %127}, %128, %129, p, 1, 1, 0, 1;\n}\n"
      : MEMHIER_ACC8(0), MEMHIER_ACC8(8), MEMHIER_ACC8(16), MEMHIER_ACC8(24), MEMHIER_ACC8(32),
        MEMHIER_ACC8(40), MEMHIER_ACC8(48), MEMHIER_ACC8(56), MEMHIER_ACC8(64), MEMHIER_ACC8(72),
        MEMHIER_ACC8(80), MEMHIER_ACC8(88), MEMHIER_ACC8(96), MEMHIER_ACC8(104), MEMHIER_ACC8(112),
        MEMHIER_ACC8(120)
      : "l"(da), "l"(db), "r"(accumulate));
}
/// The m64n128k16 form of wgmma_m64n256k16 (64 registers, columns 0..127). TransB = 0 takes B
/// K-major instead (desc_a's layout: n rows of 64 k, as attention's K tile for S = Q K^T).
template <int TransB = 1>
__device__ __forceinline__ void wgmma_m64n128k16(float (&d)[64], uint64_t da, uint64_t db,
                                                 int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "%64, %65, p, 1, 1, 0, %67;\n}\n"
      : MEMHIER_ACC8(0), MEMHIER_ACC8(8), MEMHIER_ACC8(16), MEMHIER_ACC8(24), MEMHIER_ACC8(32),
        MEMHIER_ACC8(40), MEMHIER_ACC8(48), MEMHIER_ACC8(56)
      : "l"(da), "l"(db), "r"(accumulate), "n"(TransB));
}
/// The m64n64k16 form (32 registers, columns 0..63): 128 x 64 tiles, twice as many again, for
/// shapes whose 128 x 128 tiles leave SMs idle (cuBLAS's choice at 1024^3 on the H100).
/// TransB = 0 takes B K-major, as in wgmma_m64n128k16; TransA = 1 takes A MN-major
/// (wgmma_m64n64k16_ta).
template <int TransB = 1, int TransA = 0>
__device__ __forceinline__ void wgmma_m64n64k16(float (&d)[32], uint64_t da, uint64_t db,
                                                int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, p, 1, 1, %36, %35;\n}\n"
      : MEMHIER_ACC8(0), MEMHIER_ACC8(8), MEMHIER_ACC8(16), MEMHIER_ACC8(24)
      : "l"(da), "l"(db), "r"(accumulate), "n"(TransB), "n"(TransA));
}
/// Swapped operands (swap_ab.sm90a.cu): D(64 x N) = A(64x16) * B(16xN) with A MN-major
/// (imm-trans-a = 1: a 64-column box of the GEMM's B, desc_b's layout) and B K-major (rows of
/// the GEMM's A, desc_a's layout), N = 16 or 64; d[] laid out as for wgmma_m64n256k16.
__device__ __forceinline__ void wgmma_m64n16k16_ta(float (&d)[8], uint64_t da, uint64_t db,
                                                   int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p, 1, 1, 1, 0;\n}\n"
      : MEMHIER_ACC8(0)
      : "l"(da), "l"(db), "r"(accumulate));
}
__device__ __forceinline__ void wgmma_m64n32k16_ta(float (&d)[16], uint64_t da, uint64_t db,
                                                   int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
      "%16, %17, p, 1, 1, 1, 0;\n}\n"
      : MEMHIER_ACC8(0), MEMHIER_ACC8(8)
      : "l"(da), "l"(db), "r"(accumulate));
}
__device__ __forceinline__ void wgmma_m64n64k16_ta(float (&d)[32], uint64_t da, uint64_t db,
                                                   int accumulate) {
  wgmma_m64n64k16<0, 1>(d, da, db, accumulate);
}

// A from registers (wgmma's RS form): a thread's four .b32 registers hold eight bf16 of A in
// mma.sync's m16k16 layout within its warp's 16 rows (row 16 warp + lane / 4, + 8 in a[1] and
// a[3]; columns 2 (lane % 4) + {0, 1}, + 8 in a[2] and a[3]; the lower column in the low half).
// That is the accumulator layout above, so an fp32 result rounded to bf16 in place feeds the
// next wgmma without shared memory (attention's P V). B stays MN-major in shared memory.
#define MEMHIER_A4 "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3])

/// D(64x128, fp32) += A(64x16, registers) * B(16x128, MN-major), or = when !accumulate.
__device__ __forceinline__ void wgmma_m64n128k16_rs(float (&d)[64], const uint32_t (&a)[4],
                                                    uint64_t db, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "{%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"
      : MEMHIER_ACC8(0), MEMHIER_ACC8(8), MEMHIER_ACC8(16), MEMHIER_ACC8(24), MEMHIER_ACC8(32),
        MEMHIER_ACC8(40), MEMHIER_ACC8(48), MEMHIER_ACC8(56)
      : MEMHIER_A4, "l"(db), "r"(accumulate));
}
/// The m64n64k16 form of wgmma_m64n128k16_rs (32 registers, columns 0..63).
__device__ __forceinline__ void wgmma_m64n64k16_rs(float (&d)[32], const uint32_t (&a)[4],
                                                   uint64_t db, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "{%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"
      : MEMHIER_ACC8(0), MEMHIER_ACC8(8), MEMHIER_ACC8(16), MEMHIER_ACC8(24)
      : MEMHIER_A4, "l"(db), "r"(accumulate));
}
#undef MEMHIER_A4
#undef MEMHIER_ACC8

/// Issues one k-block (64 deep) of a consumer warpgroup as one wgmma group: four m64nBNk16
/// steps over its 64 rows of A at `a_rows` and the 64 x BN B tile at `b_tile`, accumulating
/// into `acc` (from zero when `first`). It does not wait: the caller keeps one group in flight
/// (wgmma_wait<1>) and frees a stage once the group that read it is done.
template <int BN>
__device__ __forceinline__ void mma_k_block_issue(float (&acc)[BN / 2], uint32_t a_rows,
                                                  uint32_t b_tile, bool first) {
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < kBlockK / 16; ++kk) {
    const int accumulate = (first && kk == 0) ? 0 : 1;
    if constexpr (BN == 256)
      wgmma_m64n256k16(acc, desc_a(a_rows, kk), desc_b(b_tile, kk), accumulate);
    else if constexpr (BN == 128)
      wgmma_m64n128k16(acc, desc_a(a_rows, kk), desc_b(b_tile, kk), accumulate);
    else
      wgmma_m64n64k16(acc, desc_a(a_rows, kk), desc_b(b_tile, kk), accumulate);
  }
  wgmma_commit();
}

// ---- named barriers ------------------------------------------------------------------------

/// Threads (a multiple of 32) of this block meet at named barrier `id` (0 is __syncthreads):
/// each waits until all have arrived.
template <int Threads>
__device__ __forceinline__ void named_barrier_sync(int id) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "n"(Threads) : "memory");
}

/// Counts this warp's arrival at named barrier `id` of `Threads` without waiting.
template <int Threads>
__device__ __forceinline__ void named_barrier_arrive(int id) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "n"(Threads) : "memory");
}

// ---- mbarriers ----------------------------------------------------------------------------

/// Arrives once on this block's barrier `bar`.
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

/// Arrives once on the barrier at the same offset as `bar` in cluster block `cta` (mapa). The
/// arrive only says that this warpgroup's wgmma reads of a stage are done (wgmma_wait): no
/// generic-proxy write needs ordering, so it keeps the default CTA-scope release; a cluster-
/// scope release would make the thread wait for its earlier epilogue stores first.
__device__ __forceinline__ void mbar_arrive_cluster(uint32_t bar, uint32_t cta) {
  asm volatile(
      "{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(bar),
      "r"(cta)
      : "memory");
}

/// One test of `bar` for the completion of the phase with parity `parity` (the instruction
/// itself waits a while in hardware); acquire at CTA scope, or at cluster scope (Cluster) for
/// barriers that peer blocks arrive on.
template <bool Cluster>
__device__ __forceinline__ bool mbar_try_wait(uint32_t bar, uint32_t parity) {
  uint32_t done;
  if constexpr (Cluster)
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], "
        "%2;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  else
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  return done != 0;
}

/// Waits for the phase of `bar` with parity `parity`. A wait past ~2^35 cycles (some 20 s)
/// means a pipeline bug: the kernel traps, so the launch fails instead of hanging the device.
template <bool Cluster = false>
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  if (mbar_try_wait<Cluster>(bar, parity)) return;
  const long long start = clock64();
  while (!mbar_try_wait<Cluster>(bar, parity))
    if (clock64() - start > (1ll << 35)) __trap();
}

// ---- TMA ----------------------------------------------------------------------------------

// ---- clusters and registers ---------------------------------------------------------------

/// This block's rank in its cluster.
__device__ __forceinline__ uint32_t cluster_ctarank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
/// This block's cluster index (x) and the number of clusters in the grid (x).
__device__ __forceinline__ uint32_t cluster_id_x() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%clusterid.x;\n" : "=r"(r));
  return r;
}
__device__ __forceinline__ uint32_t cluster_count_x() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%nclusterid.x;\n" : "=r"(r));
  return r;
}

/// Every thread of the cluster meets here (release, then acquire); threads of one warp may
/// arrive apart (not .aligned).
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive;\n" ::: "memory");
  asm volatile("barrier.cluster.wait;\n" ::: "memory");
}

/// The warpgroup's register budget rises to (Inc) or falls to (Dec) N a thread.
template <int N>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}
template <int N>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}

// ---- tile order and epilogue ---------------------------------------------------------------

/// Tile `t` of a tiles_m x tiles_n grid in grouped order: kGroupM tile rows sweep the columns
/// together, so the A rows and B columns in flight at once stay few and hit in L2.
__host__ __device__ inline void tile_coords(int t, int tiles_m, int tiles_n, int* tm, int* tn) {
  const int per_group = kGroupM * tiles_n;
  const int group = t / per_group;
  const int first = group * kGroupM;
  const int rows = (tiles_m - first) < kGroupM ? (tiles_m - first) : kGroupM;
  const int r = t - group * per_group;
  *tm = first + r % rows;
  *tn = r / rows;
}

using memhier::gemm_bf16::detail::c_bias;
using memhier::gemm_bf16::detail::c_finish;
using memhier::gemm_bf16::detail::c_load;
using memhier::gemm_bf16::detail::c_load2_cs;
using memhier::gemm_bf16::detail::c_store;
using memhier::gemm_bf16::detail::c_store2_cs;
using memhier::gemm_bf16::detail::COut;
using memhier::gemm_bf16::detail::pairs_fit;

/// Where and how the accumulators land: C = alpha * acc + beta * C + bias (output.cuh), rows
/// below m and columns below n only. `pairs`: ldc even and C aligned to two elements, so
/// column pairs go in one access.
struct Epilogue {
  COut out;
  long long ldc;
  int m, n;
  float alpha, beta;
  bool pairs;
};

/// Writes a warpgroup's 64 x BN accumulator whose top-left element is C(row0, col0). C is
/// read only when beta != 0; alpha == 0 writes beta * C exactly (no 0 * inf). Eight column
/// groups at a time: their old C values are all loaded before any store (the compiler may not
/// move a load above a store that could alias it), so the loads overlap. Streaming hints
/// (evict-first) keep C from pushing A and B out of L2.
template <int BN = kBlockN>
__device__ __forceinline__ void store_tile(const Epilogue& ep, const float (&d)[BN / 2], int row0,
                                           int col0) {
  constexpr int kChunk = 8;
  const int lane = threadIdx.x % 32, warp = (threadIdx.x % 128) / 32;
  const int row_base = row0 + 16 * warp + lane / 4;
  const int col_base = col0 + 2 * (lane % 4);
  const bool read_c = ep.beta != 0.f;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int row = row_base + 8 * h;
    if (row >= ep.m) continue;
    const std::size_t row_at = static_cast<std::size_t>(row) * ep.ldc;
#pragma unroll
    for (int j0 = 0; j0 < BN / 8; j0 += kChunk) {
      float2 old[kChunk];
#pragma unroll
      for (int j = 0; j < kChunk; ++j) {
        const int col = col_base + 8 * (j0 + j);
        old[j] = make_float2(0.f, 0.f);
        if (!read_c || col >= ep.n) continue;
        if (ep.pairs && col + 1 < ep.n) {
          old[j] = c_load2_cs(ep.out, row_at + col);
        } else {
          old[j].x = c_load<true>(ep.out, row_at + col);
          if (col + 1 < ep.n) old[j].y = c_load<true>(ep.out, row_at + col + 1);
        }
      }
#pragma unroll
      for (int j = 0; j < kChunk; ++j) {
        const int col = col_base + 8 * (j0 + j);
        if (col >= ep.n) continue;
        const int v = 4 * (j0 + j) + 2 * h;  // d[v], d[v + 1]: columns col, col + 1 of row
        const bool second = col + 1 < ep.n;
        const float v0 = c_finish(d[v], ep.alpha, ep.beta, old[j].x, c_bias(ep.out, col));
        const float v1 =
            c_finish(d[v + 1], ep.alpha, ep.beta, old[j].y, second ? c_bias(ep.out, col + 1) : 0.f);
        if (ep.pairs && second) {
          c_store2_cs(ep.out, row_at + col, v0, v1);
        } else {
          c_store<true>(ep.out, row_at + col, v0);
          if (second) c_store<true>(ep.out, row_at + col + 1, v1);
        }
      }
    }
  }
}

// ---- host: tensor maps ----------------------------------------------------------------------

/// The TMA map over the row-major bf16 matrix `rows` x `cols` (leading dimension `ld`, a multiple
/// of 8 elements: TMA strides are multiples of 16 bytes) read in boxes of box_rows x box_cols
/// elements, 128-byte swizzled. box_cols * 2 = 128 bytes, the swizzle span, which desc_a/desc_b
/// assume. Elements outside the matrix read as zero, so edge tiles and K tails need no code.
inline CUtensorMap make_tensor_map(const __nv_bfloat16* base, int rows, int cols, int ld,
                                   int box_rows, int box_cols) {
  core::Tensor2d t;
  t.base = base;
  t.cols = static_cast<std::uint64_t>(cols);
  t.rows = static_cast<std::uint64_t>(rows);
  t.pitch_bytes = static_cast<std::uint64_t>(ld) * sizeof(__nv_bfloat16);
  t.elem_bytes = 2;
  t.box_cols = static_cast<std::uint32_t>(box_cols);
  t.box_rows = static_cast<std::uint32_t>(box_rows);
  t.swizzle = core::TmaSwizzle::b128;
  return core::encode_tensor_map_2d(t);
}

}  // namespace memhier::kernels::gemm_bf16::sm90
