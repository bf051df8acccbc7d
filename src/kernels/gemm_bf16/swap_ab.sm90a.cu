// best's skinny candidates (swapab_*): for a C of few rows (LLM decode and small prefill, M up
// to a few dozen) a 128-row tile wastes most of its tensor work on rows past M (7/8 of it at
// M = 16, where the H200's tensor pipe was 46% busy for ws_sk_128x256 under Nsight Compute).
// Computing C^T = B^T A^T instead puts N on wgmma's 64-row side and M on its narrow N side
// (m64n16 or m64n64): B's 64-column boxes are the MN-major A operand (imm-trans-a), A's rows
// the K-major B operand. A block takes MS rows of C by 128 columns (two consumer warpgroups
// of 64 columns) and K is split over the blocks the tiles leave idle, summed in one launch
// (split_k.cuh); with few registers and small stages two blocks share an SM. The 64-column
// configurations (one consumer warpgroup, one block an SM with a deep ring) are for a C whose
// 64-column tiles fill the card: they run unsplit there, each block streaming its band of B
// with no partials to add (cuBLAS's one kernel at 64x8192x8192 on the H200 is named
// nvjet_sm90_tss_64x64_64x13_2x1..., which reads as 64x64 tiles), and split K only where the
// tiles leave over half of it idle.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/gemm_bf16/hopper.cuh"
#include "kernels/gemm_bf16/hopper_launch.hpp"
#include "kernels/split_k/split_k.cuh"
#include "kernels/split_k/workspace.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/launch.hpp"
#include "memhier/core/tma.cuh"
#include "memhier/kernels/gemm_preselect.hpp"

namespace memhier::kernels::gemm_bf16 {
namespace {

using namespace sm90;

/// A block of Cols columns of C (64 or 128): a consumer warpgroup of 64 columns each (B's box
/// each), then one producer warp.
template <int Cols>
struct SwapBlock {
  static_assert(Cols == 64 || Cols == 128, "one or two consumer warpgroups");
  static constexpr int kGroups = Cols / 64;
  static constexpr int kConsumers = 128 * kGroups;
  static constexpr int kThreads = kConsumers + 32;
  static constexpr uint32_t kBytesBmat = kGroups * kBytesBox;  // 64 k-rows x Cols of B
};

/// Stages of MS rows: the B boxes (the wgmma A operand) then A's MS x 64 box (B operand),
/// each 1024-byte aligned; full/empty barriers after the stages.
template <int MS, int Cols, int Stages>
struct SwapLayout {
  static constexpr uint32_t kBytesBmat = SwapBlock<Cols>::kBytesBmat;
  static constexpr uint32_t kBytesAmat = uint32_t(MS) * 128u;
  static constexpr uint32_t kStageBytes = kBytesBmat + kBytesAmat;
  static_assert(kStageBytes % 1024 == 0, "stages keep the swizzle period");
  static constexpr int kSmemBytes = Stages * int(kStageBytes) + 1024 + 1024;
  uint32_t base;
  __device__ uint32_t bmat(int s) const { return base + uint32_t(s) * kStageBytes; }
  __device__ uint32_t amat(int s) const { return bmat(s) + kBytesBmat; }
  __device__ uint32_t full(int s) const { return base + Stages * kStageBytes + 8u * s; }
  __device__ uint32_t empty(int s) const { return full(Stages) + 8u * s; }
  __device__ uint32_t flag() const { return full(0) + 512u; }
};

template <int MS>
__device__ __forceinline__ void wgmma_swap(float (&d)[MS / 2], uint64_t da, uint64_t db,
                                           int accumulate) {
  if constexpr (MS == 16)
    wgmma_m64n16k16_ta(d, da, db, accumulate);
  else if constexpr (MS == 32)
    wgmma_m64n32k16_ta(d, da, db, accumulate);
  else
    wgmma_m64n64k16_ta(d, da, db, accumulate);
}

/// The consumers' threads meet here (named barrier 1; 0 is __syncthreads).
template <int Cols>
__device__ __forceinline__ void consumers_sync() {
  named_barrier_sync<SwapBlock<Cols>::kConsumers>(1);
}

/// Persistent blocks walk units (tile, split): tile t covers C rows MS tm.. and columns
/// Cols tn.., split sp its share of the 64-deep k-blocks. Each split stores alpha * acc to its
/// slice of the partials; the tile's last split writes C. Unsplit (sk.splits == 1) a block
/// writes its tile of C itself. Barriers as in ws_kernel: `full` (the producer's expect_tx and
/// the stage's bytes), `empty` (one arrival a consumer warpgroup).
template <int MS, int Cols, int Stages>
__global__ void __launch_bounds__(SwapBlock<Cols>::kThreads, Cols == 128 ? 2 : 1)
    swap_kernel(const __grid_constant__ CUtensorMap map_a,
                const __grid_constant__ CUtensorMap map_b, Epilogue ep, int tiles_m, int tiles_n,
                int k_blocks, split_k::Args sk) {
  using L = SwapLayout<MS, Cols, Stages>;
  constexpr int kConsumers = SwapBlock<Cols>::kConsumers, kGroups = SwapBlock<Cols>::kGroups;
  extern __shared__ unsigned char smem_raw[];
  const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  const L sm{(raw + 1023u) & ~1023u};
  const int tid = threadIdx.x;
  const int units = tiles_m * tiles_n * sk.splits;
  const auto unit = [&](int u, int* tile, int* kb0, int* kb1) {
    *tile = u / sk.splits;
    const int sp = u - *tile * sk.splits;
    *kb0 = static_cast<int>(static_cast<long long>(sp) * k_blocks / sk.splits);
    *kb1 = static_cast<int>(static_cast<long long>(sp + 1) * k_blocks / sk.splits);
  };

  if (tid == 0) {
    for (int s = 0; s < Stages; ++s) {
      tma::mbarrier_init(sm.full(s), 1);
      tma::mbarrier_init(sm.empty(s), kGroups);
    }
    tma::fence_mbarrier_init();
    tma::fence_proxy_async_shared();
  }
  __syncthreads();

  if (tid >= kConsumers) {
    if (tid == kConsumers) {
      tma::prefetch_tensor_map(&map_a);
      tma::prefetch_tensor_map(&map_b);
      int it = 0;
      for (int u = blockIdx.x; u < units; u += gridDim.x) {
        int tile = 0, kb0 = 0, kb1 = 0;
        unit(u, &tile, &kb0, &kb1);
        // Tiles of one column band run together: A's few rows and the band's B stay in L2.
        const int tm = tile % tiles_m, tn = tile / tiles_m;
        for (int kb = kb0; kb < kb1; ++kb, ++it) {
          const int s = it % Stages;
          mbar_wait(sm.empty(s), ((it / Stages) & 1) ^ 1);
          tma::mbarrier_arrive_expect_tx(sm.full(s), L::kStageBytes);
#pragma unroll
          for (int j = 0; j < kGroups; ++j)
            tma::tensor_load_2d(sm.bmat(s) + uint32_t(j) * kBytesBox, &map_b,
                                tn * Cols + j * kBoxN, kb * kBlockK, sm.full(s));
          tma::tensor_load_2d(sm.amat(s), &map_a, kb * kBlockK, tm * MS, sm.full(s));
        }
      }
    }
    return;
  }

  const int c = tid / 128, t = tid % 128, lane = t % 32, warp = t / 32;
  int* flag = reinterpret_cast<int*>(smem_raw + (sm.flag() - raw));
  float acc[MS / 2];
#pragma unroll
  for (int i = 0; i < MS / 2; ++i) acc[i] = 0.f;
  int it = 0;
  for (int u = blockIdx.x; u < units; u += gridDim.x) {
    int tile = 0, kb0 = 0, kb1 = 0;
    unit(u, &tile, &kb0, &kb1);
    const int tm = tile % tiles_m, tn = tile / tiles_m, sp = u - tile * sk.splits;
    for (int kb = kb0; kb < kb1; ++kb, ++it) {
      const int s = it % Stages;
      mbar_wait(sm.full(s), (it / Stages) & 1);
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kBlockK / 16; ++kk)
        wgmma_swap<MS>(acc, desc_b(sm.bmat(s) + uint32_t(c) * kBytesBox, kk),
                       desc_a(sm.amat(s), kk), (kb == kb0 && kk == 0) ? 0 : 1);
      wgmma_commit();
      wgmma_wait<1>();  // the previous k-block's group is done: its stage is free
      if (kb > kb0 && t == 0) mbar_arrive(sm.empty((it - 1) % Stages));
    }
    wgmma_wait<0>();
    fence_accumulators(acc);
    if (t == 0) mbar_arrive(sm.empty((it - 1) % Stages));
    // d[v] is C^T's row 16 warp + lane / 4 + 8 ((v >> 1) & 1) (a column of C) and column
    // 8 (v >> 2) + 2 (lane % 4) + (v & 1) (a row of C): eight threads write 32 contiguous bytes.
    const int col = tn * Cols + 64 * c + 16 * warp + lane / 4;
    if (sk.splits == 1) {
#pragma unroll
      for (int v = 0; v < MS / 2; ++v) {
        const int row = tm * MS + 8 * (v >> 2) + 2 * (lane % 4) + (v & 1);
        const int cv = col + 8 * ((v >> 1) & 1);
        if (row < ep.m && cv < ep.n) {
          const long long at = static_cast<long long>(row) * ep.ldc + cv;
          const float old = ep.beta != 0.f ? c_load(ep.out, at) : 0.f;
          c_store(ep.out, at, c_finish(acc[v], ep.alpha, ep.beta, old, c_bias(ep.out, cv)));
        }
      }
      continue;
    }
    float* part = sk.partials + sp * sk.slice;
#pragma unroll
    for (int v = 0; v < MS / 2; ++v) {
      const int row = tm * MS + 8 * (v >> 2) + 2 * (lane % 4) + (v & 1);
      const int cv = col + 8 * ((v >> 1) & 1);
      if (row < ep.m && cv < ep.n)
        part[static_cast<long long>(row) * sk.ld + cv] = ep.alpha == 0.f ? 0.f : ep.alpha * acc[v];
    }
    if (split_k::arrive_last(sk.counters + tile, sk.splits, tid == 0, flag, consumers_sync<Cols>))
      split_k::finish_tile(sk.partials, static_cast<std::size_t>(sk.slice), sk.ld, sk.splits,
                           {ep.out, ep.ldc, ep.m, ep.n, ep.beta}, tm * MS, MS, tn * Cols, Cols, tid,
                           kConsumers);
  }
}

template <int MS, int Cols, int Stages>
void swap_gemm(const char* name, int m, int n, int k, float alpha, const __nv_bfloat16* a, int lda,
               const __nv_bfloat16* b, int ldb, float beta, const COut& c, int ldc,
               cudaStream_t stream) {
  const std::string why = hopper_gemm_unsupported(m, n, k, lda, ldb, ldc, a, b, c);
  if (!why.empty()) throw std::invalid_argument(std::string(name) + ": " + why);
  using L = SwapLayout<MS, Cols, Stages>;
  constexpr int kThreads = SwapBlock<Cols>::kThreads;
  const int tiles_m = (m + MS - 1) / MS, tiles_n = (n + Cols - 1) / Cols;
  const int tiles = tiles_m * tiles_n, k_blocks = (k + kBlockK - 1) / kBlockK;
  const void* kernel = reinterpret_cast<const void*>(&swap_kernel<MS, Cols, Stages>);
  core::prepare_dynamic_smem(kernel, L::kSmemBytes, name);
  const int resident = core::resident_grid(kernel, kThreads, L::kSmemBytes);
  const int splits = gemm::tuning::split_count(tiles, resident, k_blocks, 1);
  // Unsplit, a 128-column block is what the ws_* kernels already run; a 64-column one is the
  // skinny shape's own tile.
  if (splits < 2 && Cols == 128)
    throw std::invalid_argument(split_k::no_split(name, tiles, MS, Cols, resident));
  const CUtensorMap map_a = make_tensor_map(a, m, k, lda, MS, kBlockK);
  const CUtensorMap map_b = make_tensor_map(b, k, n, ldb, kBlockK, kBoxN);
  const Epilogue ep{c, ldc, m, n, alpha, beta, false};
  split_k::Args sk;  // one split: no partials, no counters
  if (splits > 1) sk = split_k::args_for(m, n, splits, static_cast<std::size_t>(tiles), stream);
  const int grid = std::min(tiles * splits, resident);
  swap_kernel<MS, Cols, Stages>
      <<<grid, kThreads, L::kSmemBytes, stream>>>(map_a, map_b, ep, tiles_m, tiles_n, k_blocks, sk);
  MEMHIER_CHECK_LAUNCH();
}

template <int MS, int Cols, int Stages>
HopperKernelInfo swap_info() {
  HopperKernelInfo info;
  info.symbol = reinterpret_cast<const void*>(&swap_kernel<MS, Cols, Stages>);
  info.block_threads = SwapBlock<Cols>::kThreads;
  info.dynamic_smem = SwapLayout<MS, Cols, Stages>::kSmemBytes;
  info.split_k = Cols == 128 ? gemm::tuning::SplitK::always : gemm::tuning::SplitK::where_idle;
  return info;
}

}  // namespace

// One entry point per configuration of swap_configs.inc.
#define MEMHIER_SWAP_AB(fn, MS, Cols, Stages)                                                    \
  void fn(int m, int n, int k, float alpha, const __nv_bfloat16* a, int lda,                     \
          const __nv_bfloat16* b, int ldb, float beta, const COut& c, int ldc, cudaStream_t s) { \
    swap_gemm<MS, Cols, Stages>(#fn, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, s);           \
  }                                                                                              \
  HopperKernelInfo fn##_info() {                                                                 \
    return swap_info<MS, Cols, Stages>();                                                        \
  }
#include "swap_configs.inc"

}  // namespace memhier::kernels::gemm_bf16
