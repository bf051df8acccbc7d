// Rung 7 of the bf16 GEMM ladder and best's warp-specialized candidates: a producer warpgroup
// gives its registers away (setmaxnreg) and only issues TMA loads; two consumer warpgroups take
// them and only run wgmma and the epilogue. Blocks are persistent and walk the tiles in grouped
// order; in a cluster of two (four), the blocks sit on neighbouring row tiles and share each B
// k-block, each loading half (a quarter) of it and multicasting it to all, which divides B's L2
// traffic by the cluster size. The consumers store C through shared memory (store_tile_smem):
// by TMA where it can, so the copy engine drains C while the next tile multiplies.
// One template, instantiated as rung 7 (128 x 256, 4 stages, clusters of 2) and the candidates;
// the split-K candidates cut each tile's K into splits that run on otherwise idle SMs; the
// tail-split ones run the tiles of whole waves unsplit and split only the tiles after them, so
// that the splits fill the last wave (tuning::tail_split_plan). Splits store their partial sums
// to per-tile slots, and a short kernel over the whole card adds them into C in split order.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "kernels/gemm_bf16/hopper.cuh"
#include "kernels/gemm_bf16/hopper_launch.hpp"
#include "kernels/split_k/workspace.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/tma.cuh"
#include "memhier/core/tma.hpp"
#include "memhier/kernels/gemm_preselect.hpp"

namespace memhier::kernels::gemm_bf16 {
namespace {

using namespace sm90;
using gemm::tuning::SplitK;

constexpr int kThreads = 384;  // warpgroup 0 produces, 1 and 2 consume
constexpr int kProducerRegs = 40;
constexpr int kConsumerRegs = 232;  // 128 * 40 + 256 * 232 = 64512 <= 65536 = 384 * 168

// The epilogue through shared memory: each consumer warpgroup writes its 64 rows 32 columns
// at a time into one of two 8 KiB boxes (128-byte swizzled rows of 32 fp32, or of a bf16 C
// 64-byte rows of 32 bf16). Where C suits TMA and beta == 0, one thread stores the box with
// TMA, so the next tile's wgmma starts while the copy engine drains C; otherwise each warp
// writes 16 of the box's rows as row segments (reading C there when beta != 0). Either way
// the bias is added and a bf16 C rounded on the way. Register stores straight from the
// accumulators cost a request per 32-byte sector (4x cuBLAS's L2 write requests on the H100 at
// 4096^3), and with an odd ldc 3.4x the sectors of C in partial writes. The boxes sit after the
// stages and barriers, 1024-byte aligned.
constexpr int kEpiCols = 32;
constexpr uint32_t kEpiBoxBytes = 64 * kEpiCols * 4;  // 8 KiB
constexpr uint32_t kEpiBytes = 2 * 2 * kEpiBoxBytes;  // two boxes per consumer warpgroup

/// Dynamic shared memory of ws_kernel<BN, Stages>: the stages, 1 KiB of alignment slack, the
/// barriers rounded up to 1 KiB, and the epilogue boxes.
template <int BN, int Stages>
constexpr int ws_smem_bytes() {
  return Stages * int(Geometry<BN, Stages>::kStageBytes) + 2048 + int(kEpiBytes);
}

/// Shared address of consumer warpgroup c's epilogue box b (0 or 1).
template <int BN, int Stages>
__device__ __forceinline__ uint32_t epi_box(const SmemLayoutT<BN, Stages>& sm, int c, int b) {
  return sm.base + Stages * Geometry<BN, Stages>::kStageBytes + 1024 +
         uint32_t(2 * c + b) * kEpiBoxBytes;
}

/// The 128 threads of consumer warpgroup c meet here (named barrier 1 + c).
__device__ __forceinline__ void warpgroup_sync(int c) {
  named_barrier_sync<128>(1 + c);
}

/// Writes a warpgroup's 64 x BN accumulator (top-left C(row0, col0)) through its two boxes:
/// each 32-column slice of alpha * acc goes to shared memory (the 128-byte swizzle keeps the
/// eight rows of a warp's float2 stores on distinct banks), then leaves by TMA (Tma: thread 0
/// stores it, rows past m and columns past n dropped, and keeps one store reading while the
/// next slice is written) or by row segments (any ldc and alignment, beta and the bias
/// applied there). By TMA the bias is added here, and a bf16 C is written as 64-byte rows
/// under the 64-byte swizzle (row r's 16-byte chunks XOR (r / 2) % 4: a warp's eight rows of
/// 16 bytes again fill the 32 banks once).
template <bool Tma, int BN, int Stages>
__device__ __forceinline__ void store_tile_smem(const SmemLayoutT<BN, Stages>& sm,
                                                const CUtensorMap* map_c, const Epilogue& ep,
                                                const float (&d)[BN / 2], int c, int row0,
                                                int col0) {
  const int t = threadIdx.x % 128, lane = t % 32, warp = t / 32;
  // Row 16 warp + lane / 4 (+ 8 h) and, per 8-column group g of a slice, the swizzled byte of
  // its column pair: row & 7 = lane / 4 for every h, so four addresses serve all 64 stores
  // (box and h are offsets the compiler folds; more live addresses spill the accumulators).
  const uint32_t row_addr = epi_box(sm, c, 0) + uint32_t(16 * warp + lane / 4) * kEpiCols * 4;
  uint32_t addr[4];
#pragma unroll
  for (int g = 0; g < 4; ++g)
    addr[g] = row_addr + ((32u * g + 8u * (lane % 4)) ^ (uint32_t(lane / 4) << 4));
  const float alpha = ep.alpha;
  const bool zero = alpha == 0.f;
  const bool bf16_box = Tma && ep.out.bf16 != nullptr;
#pragma unroll
  for (int q = 0; q < BN / kEpiCols; ++q) {
    // The slice's bias, loaded before the barrier below so that its latency passes there
    // (loaded beside each store, every load waited behind the store before it: the asm's
    // memory clobber orders them).
    float bias[8];
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      const int col = col0 + kEpiCols * q + 8 * (e / 2) + 2 * (lane % 4) + e % 2;
      bias[e] = Tma && col < ep.n ? c_bias(ep.out, col) : 0.f;
    }
    // The box was last read two slices ago: by the copy engine (waited for here) or by this
    // warpgroup's threads (all past the barrier below since).
    if (Tma && t == 0) tma::bulk_wait_read<1>();
    warpgroup_sync(c);
#pragma unroll
    for (int g = 0; g < 4; ++g) {
      const int v = 4 * (4 * q + g);  // d[v..v+1]: row h = 0, d[v+2..v+3]: row h = 1
      float a0 = zero ? 0.f : alpha * d[v], a1 = zero ? 0.f : alpha * d[v + 1];
      float b0 = zero ? 0.f : alpha * d[v + 2], b1 = zero ? 0.f : alpha * d[v + 3];
      if (Tma && ep.out.bias) {
        a0 += bias[2 * g], b0 += bias[2 * g];
        a1 += bias[2 * g + 1], b1 += bias[2 * g + 1];
      }
      if (bf16_box) {
        const uint32_t at =
            epi_box(sm, c, q & 1) + uint32_t(16 * warp + lane / 4) * 64u +
            ((16u * g + 4u * (lane % 4)) ^ ((uint32_t(lane / 8) & 3u) << 4));  // h = 1: +512
        const __nv_bfloat162 top = __floats2bfloat162_rn(a0, a1);
        const __nv_bfloat162 bottom = __floats2bfloat162_rn(b0, b1);
        asm volatile(
            "st.shared.b32 [%0], %1;\n"
            "st.shared.b32 [%0+512], %2;\n" ::"r"(at),
            "r"(*reinterpret_cast<const uint32_t*>(&top)),
            "r"(*reinterpret_cast<const uint32_t*>(&bottom))
            : "memory");
        continue;
      }
      const uint32_t at = addr[g] + uint32_t(q & 1) * kEpiBoxBytes;  // h = 1: 8 rows on
      asm volatile(
          "st.shared.v2.f32 [%0], {%1, %2};\n"
          "st.shared.v2.f32 [%0+1024], {%3, %4};\n" ::"r"(at),
          "f"(a0), "f"(a1), "f"(b0), "f"(b1)
          : "memory");
    }
    const uint32_t box = epi_box(sm, c, q & 1);
    if constexpr (Tma) {
      tma::fence_proxy_async_shared();  // the writes above, visible to the copy engine
      warpgroup_sync(c);
      if (t == 0) {
        tma::tensor_store_2d(map_c, col0 + kEpiCols * q, row0, box);
        tma::bulk_commit();
      }
    } else {
      warpgroup_sync(c);
      const int col = col0 + kEpiCols * q + lane;
      if (col >= ep.n) continue;
      const float bias = c_bias(ep.out, col);
#pragma unroll 4
      for (int r = 16 * warp; r < 16 * warp + 16; ++r) {
        if (row0 + r >= ep.m) break;
        float v;
        asm volatile("ld.shared.f32 %0, [%1];\n"
                     : "=f"(v)
                     : "r"(box + uint32_t(r) * kEpiCols * 4 +
                           ((uint32_t(lane) * 4) ^ (uint32_t(r & 7) << 4)))
                     : "memory");
        const std::size_t at = static_cast<std::size_t>(row0 + r) * ep.ldc + col;
        if (ep.beta != 0.f) v = fmaf(ep.beta, c_load<true>(ep.out, at), v);
        c_store<true>(ep.out, at, v + bias);
      }
    }
  }
}

/// A split's sums go to its slot in the consumers' own order: float4 j of consumer thread i
/// (d[4j..4j+3]: rows r and r + 8, columns 8j + 2 (lane % 4) and the next, as store_tile_smem
/// reads them) at float4 j x 256 + i, so each warp writes 512 contiguous bytes. Chunks wholly
/// past m or n are neither stored nor read back (sum_slots_kernel). `rows_left` and
/// `cols_left`: C's rows from this thread's first and columns from its first column.
template <int BN>
__device__ __forceinline__ void store_slot(float* slot, int i, const float (&d)[BN / 2],
                                           int rows_left, int cols_left) {
  if (rows_left <= 0) return;
#pragma unroll
  for (int j = 0; j < BN / 8; ++j)
    if (8 * j < cols_left)
      __stcg(reinterpret_cast<float4*>(slot) + j * 256 + i,
             make_float4(d[4 * j], d[4 * j + 1], d[4 * j + 2], d[4 * j + 3]));
}

/// C's elements (row, col) and (row, col + 1) from their sums v0, v1: alpha, beta and the bias
/// applied as every rung's epilogue does; columns past n are not written.
__device__ __forceinline__ void finish_pair(const Epilogue& ep, int row, int col, float v0,
                                            float v1) {
  const std::size_t at = static_cast<std::size_t>(row) * ep.ldc + col;
  const float vs[2] = {v0, v1};
#pragma unroll
  for (int e = 0; e < 2; ++e)
    if (col + e < ep.n) {
      const float old = ep.beta != 0.f ? c_load(ep.out, at + e) : 0.f;
      c_store(ep.out, at + e, c_finish(vs[e], ep.alpha, ep.beta, old, c_bias(ep.out, col + e)));
    }
}

/// The splits' sums into C, after the splits' launch: block (r, p) of a grid of tiles x P takes
/// float4s p x 256 + threadIdx.x, + P x 256, ... of tile first_tile + r's slots (store_slot's
/// order), adds them in split order (the same bits whichever split ended last) and finishes C.
/// Spread over the card, where a tile's last split adding them alone read its splits' 128 KiB
/// each at one SM's bandwidth.
template <int BN>
__global__ void __launch_bounds__(256)
    sum_slots_kernel(const float* partials, int splits, int first_tile, Epilogue ep, int tiles_m,
                     int tiles_n) {
  constexpr int kF = kBlockM * BN / 4;  // float4s a slot
  const int r = static_cast<int>(blockIdx.x);
  int tm = 0, tn = 0;
  tile_coords(first_tile + r, tiles_m, tiles_n, &tm, &tn);
  const float4* slots = reinterpret_cast<const float4*>(partials) +
                        static_cast<std::size_t>(r) * splits * kF;
  for (int f = static_cast<int>(blockIdx.y * 256 + threadIdx.x); f < kF;
       f += static_cast<int>(gridDim.y) * 256) {
    const int i = f % 256, lane = i % 32;
    const int row = tm * kBlockM + 64 * (i / 128) + 16 * (i % 128 / 32) + lane / 4;
    const int col = tn * BN + 8 * (f / 256) + 2 * (lane % 4);
    if (row >= ep.m || col >= ep.n) continue;
    float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 4
    for (int s = 0; s < splits; ++s) {
      const float4 p = __ldcg(slots + static_cast<std::size_t>(s) * kF + f);
      v.x += p.x;
      v.y += p.y;
      v.z += p.z;
      v.w += p.w;
    }
    finish_pair(ep, row, col, v.x, v.y);
    if (row + 8 < ep.m) finish_pair(ep, row + 8, col, v.z, v.w);
  }
}

/// Frees stage `s` for its producers: a CTA's own barrier alone, or (clusters) thread i of
/// the warpgroup arrives in block i, since every block's producer writes into the stage.
template <int Cluster>
__device__ __forceinline__ void release_stage(uint32_t empty, int t) {
  if constexpr (Cluster == 1) {
    if (t == 0) mbar_arrive(empty);
  } else {
    if (t < Cluster) mbar_arrive_cluster(empty, static_cast<uint32_t>(t));
  }
}

/// Persistent: cluster c takes cluster tiles c, c + clusters, ...; a cluster tile is
/// 128 * Cluster rows (block rank r takes rows 128 r..) by BN columns. Stage barriers: `full`
/// (1 arrival: the local producer's expect_tx, plus the stage's bytes, the peer's multicast B
/// boxes among them) and `empty` (2 * Cluster arrivals: each consumer warpgroup of every block
/// that writes into the stage). Consumers keep one wgmma group in flight and free a stage as
/// soon as the group that read it completed, so the producer runs up to Stages k-blocks ahead,
/// into the next tile while the epilogue stores this one.
/// TmaEpi: the epilogue's boxes leave by TMA, else by row segments (store_tile_smem); a
/// template choice, since both paths in one kernel spill accumulators.
/// The blocks walk the cluster tiles [sk.first_tile, tile_end).
/// Splits (no clusters): they walk units of (tile, split); a split multiplies its share of the
/// k-blocks and stores its sums to its slot of the tile (store_slot); sum_slots_kernel, launched
/// next, adds them into C.
template <int BN, int Stages, int Cluster, bool TmaEpi, bool Splits = false>
__global__ void __launch_bounds__(kThreads, 1)
    ws_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
              const __grid_constant__ CUtensorMap map_c, Epilogue ep, int tiles_m, int tiles_n,
              int k_blocks, int tile_end, split_k::Slots sk) {
  static_assert(!Splits || (Cluster == 1 && !TmaEpi), "split-K runs without clusters");
  using G = Geometry<BN, Stages>;
  static_assert(G::kBoxes % Cluster == 0, "each block multicasts a whole number of B boxes");
  constexpr int kMyBoxes = G::kBoxes / Cluster;
  extern __shared__ unsigned char smem_raw[];
  const SmemLayoutT<BN, Stages> sm = smem_layout<BN, Stages>(smem_raw);
  const int tid = threadIdx.x, wg = tid / 128, t = tid % 128;
  const int rank = Cluster > 1 ? static_cast<int>(cluster_ctarank()) : 0;
  const int cluster = Cluster > 1 ? static_cast<int>(cluster_id_x()) : int(blockIdx.x);
  const int clusters = Cluster > 1 ? static_cast<int>(cluster_count_x()) : int(gridDim.x);
  const int groups_m = (tiles_m + Cluster - 1) / Cluster;  // a lone last row tile's partner
                                                           // block reads zeros, stores nothing
  const int splits = Splits ? sk.splits : 1;
  const int units = (tile_end - sk.first_tile) * splits;
  // Unit u: cluster tile first_tile + u / splits, its k-blocks [kb0, kb1).
  const auto unit = [&](int u, int* ct, int* kb0, int* kb1) {
    const int r = u / splits, sp = u - r * splits;
    *ct = sk.first_tile + r;
    *kb0 = static_cast<int>(static_cast<long long>(sp) * k_blocks / splits);
    *kb1 = static_cast<int>(static_cast<long long>(sp + 1) * k_blocks / splits);
  };

  if (tid == 0) {
    for (int s = 0; s < Stages; ++s) {
      tma::mbarrier_init(sm.full(s), 1);
      tma::mbarrier_init(sm.empty(s), 2 * Cluster);
    }
    tma::fence_mbarrier_init();
    tma::fence_proxy_async_shared();
  }
  if constexpr (Cluster > 1)
    cluster_sync();  // the peer's barriers exist before any multicast or remote arrive
  else
    __syncthreads();

  if (wg == 0) {
    setmaxnreg_dec<kProducerRegs>();
    if (t == 0) {
      tma::prefetch_tensor_map(&map_a);
      tma::prefetch_tensor_map(&map_b);
      int it = 0;  // k-blocks issued so far, over all tiles: stage it % Stages
      for (int u = cluster; u < units; u += clusters) {
        int ct = 0, kb0 = 0, kb1 = 0, gm = 0, tn = 0;
        unit(u, &ct, &kb0, &kb1);
        tile_coords(ct, groups_m, tiles_n, &gm, &tn);
        const int m0 = (Cluster * gm + rank) * kBlockM, n0 = tn * BN;
        for (int kb = kb0; kb < kb1; ++kb, ++it) {
          const int s = it % Stages;
          // A fresh barrier counts its phase before the first as complete: parity 1 passes.
          mbar_wait<(Cluster > 1)>(sm.empty(s), ((it / Stages) & 1) ^ 1);
          tma::mbarrier_arrive_expect_tx(sm.full(s), G::kStageBytes);
          tma::tensor_load_2d(sm.a(s), &map_a, kb * kBlockK, m0, sm.full(s));
          // This block's B boxes (columns n0 + 64 j) land at box j in every cluster block.
#pragma unroll
          for (int h = 0; h < kMyBoxes; ++h) {
            const int j = kMyBoxes * rank + h;
            const uint32_t dst = sm.b(s) + uint32_t(j) * kBytesBox;
            if constexpr (Cluster > 1)
              tma::tensor_load_2d_multicast(dst, &map_b, n0 + j * kBoxN, kb * kBlockK, sm.full(s),
                                            static_cast<uint16_t>((1u << Cluster) - 1));
            else
              tma::tensor_load_2d(dst, &map_b, n0 + j * kBoxN, kb * kBlockK, sm.full(s));
          }
        }
      }
    }
  } else {
    setmaxnreg_inc<kConsumerRegs>();
    const int c = wg - 1;  // rows 64 c .. 64 c + 63 of the block's tile
    float acc[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) acc[i] = 0.f;
    int it = 0;
    for (int u = cluster; u < units; u += clusters) {
      int ct = 0, kb0 = 0, kb1 = 0, gm = 0, tn = 0;
      unit(u, &ct, &kb0, &kb1);
      tile_coords(ct, groups_m, tiles_n, &gm, &tn);
      const int m0 = (Cluster * gm + rank) * kBlockM, n0 = tn * BN;
      for (int kb = kb0; kb < kb1; ++kb, ++it) {
        const int s = it % Stages;
        mbar_wait(sm.full(s), (it / Stages) & 1);
        mma_k_block_issue<BN>(acc, sm.a(s) + uint32_t(c) * 64 * 128, sm.b(s), kb == kb0);
        wgmma_wait<1>();  // the previous k-block's group is done: its stage is free
        if (kb > kb0) release_stage<Cluster>(sm.empty((it - 1) % Stages), t);
      }
      wgmma_wait<0>();
      fence_accumulators(acc);
      release_stage<Cluster>(sm.empty((it - 1) % Stages), t);
      if constexpr (Splits) {
        const int r = u / splits, lane = t % 32;
        store_slot<BN>(sk.partials + (static_cast<std::size_t>(r) * splits + (u - r * splits)) *
                                         (kBlockM * BN),
                       tid - 128, acc, ep.m - (m0 + 64 * c + 16 * (t / 32) + lane / 4),
                       ep.n - (n0 + 2 * (lane % 4)));
      } else {
        store_tile_smem<TmaEpi>(sm, &map_c, ep, acc, c, m0 + 64 * c, n0);
      }
    }
    if (TmaEpi && t == 0) tma::bulk_wait<0>();  // C written before the block leaves
  }
  // No block leaves while its peer may still arrive on its barriers.
  if constexpr (Cluster > 1) cluster_sync();
}

/// The launch of ws_kernel<BN, Stages, Cluster, *> for `clusters` clusters.
template <int BN, int Stages, int Cluster>
cudaLaunchConfig_t launch_config(int clusters, cudaStream_t stream, cudaLaunchAttribute* attr) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(clusters * Cluster));
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = static_cast<size_t>(ws_smem_bytes<BN, Stages>());
  config.stream = stream;
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = Cluster;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  config.attrs = attr;
  config.numAttrs = Cluster > 1 ? 1 : 0;  // without clusters, a plain launch
  return config;
}

/// Clusters of the kernel that fit on the current device at once, the shared memory of every
/// build the launch may run opted in first (both once per device: the launch path stays a few
/// host microseconds).
template <int BN, int Stages, int Cluster, SplitK Mode>
int prepare_device() {
  static std::mutex mu;
  static std::map<int, int> by_device;
  int dev = 0;
  MEMHIER_CUDA(cudaGetDevice(&dev));
  std::lock_guard<std::mutex> lock(mu);
  const auto found = by_device.find(dev);
  if (found != by_device.end()) return found->second;
  const auto kernel = ws_kernel<BN, Stages, Cluster, true>;
  const auto opt_in = [](auto k) {
    MEMHIER_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      ws_smem_bytes<BN, Stages>()));
  };
  opt_in(kernel);
  opt_in(ws_kernel<BN, Stages, Cluster, false>);
  if constexpr (Mode != SplitK::never) opt_in(ws_kernel<BN, Stages, Cluster, false, true>);
  int sms = 0;
  MEMHIER_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  int clusters = 0;
  if constexpr (Cluster > 1) {
    cudaLaunchAttribute attr[1];
    const cudaLaunchConfig_t config =
        launch_config<BN, Stages, Cluster>(sms / Cluster, nullptr, attr);
    MEMHIER_CUDA(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
  } else {
    int per_sm = 0;
    MEMHIER_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, kernel, kThreads, static_cast<size_t>(ws_smem_bytes<BN, Stages>())));
    clusters = per_sm * sms;
  }
  if (clusters < 1)
    throw std::runtime_error("warp_specialized: no cluster of " + std::to_string(Cluster) +
                             " blocks fits on this device");
  by_device.emplace(dev, clusters);
  return clusters;
}

// A split runs at least this many 64-deep k-blocks: one would still beat an idle SM, but the
// tests' small K must split too.
constexpr int kMinSplitKBlocks = 1;

/// A tail split's splits take one round at most: each split stores and adds back 128 KiB,
/// which over several rounds cost more than the part of a round they save (on the H200 at
/// 6144x6144x2048, three rounds of 96 tiles split 4 ways ran 0.80x the unsplit kernel).
constexpr int kTailSplitRounds = 1;

/// A tail split's share of K loads at least as many bytes of A and B as the sums it stores
/// (a 128 x 256 tile: 3 k-blocks of 48 KiB against 128 KiB).
template <int BN>
constexpr int min_tail_split_blocks() {
  constexpr int kSums = kBlockM * BN * 4, kLoads = int(Geometry<BN, 4>::kStageBytes);
  return (kSums + kLoads - 1) / kLoads;
}

/// C = alpha * A * B + beta * C through ws_kernel<BN, Stages, Cluster, *, *>; `name` prefixes
/// errors. Mode always declines (invalid_argument) shapes split_count would not split; tail
/// those whose last wave tail_split_plan would not split, and runs the others in three
/// launches: the whole waves' tiles unsplit, the rest's splits, their sums.
template <int BN, int Stages, int Cluster, SplitK Mode>
void ws_gemm(const char* name, int m, int n, int k, float alpha, const __nv_bfloat16* a, int lda,
             const __nv_bfloat16* b, int ldb, float beta, const COut& c, int ldc,
             cudaStream_t stream) {
  static_assert(Mode == SplitK::never || Cluster == 1, "splits run without clusters");
  const std::string why = hopper_gemm_unsupported(m, n, k, lda, ldb, ldc, a, b, c);
  if (!why.empty()) throw std::invalid_argument(std::string(name) + ": " + why);
  const int tiles_m = (m + kBlockM - 1) / kBlockM, tiles_n = (n + BN - 1) / BN;
  const int cluster_tiles = (tiles_m + Cluster - 1) / Cluster * tiles_n;
  const int k_blocks = (k + kBlockK - 1) / kBlockK;
  const int resident = prepare_device<BN, Stages, Cluster, Mode>();
  // The unsplit launch's last tile and the splits' Slots (none: no split launch).
  int whole_end = cluster_tiles;
  split_k::Slots sk;
  const std::size_t tile_floats = static_cast<std::size_t>(kBlockM) * BN;
  if constexpr (Mode == SplitK::always) {
    const int splits = gemm::tuning::split_count(cluster_tiles, resident, k_blocks, kMinSplitKBlocks);
    if (splits < 2)
      throw std::invalid_argument(split_k::no_split(name, cluster_tiles, kBlockM, BN, resident));
    sk = split_k::slots_for(cluster_tiles, splits, tile_floats, 0, stream);
    whole_end = 0;
  } else if constexpr (Mode == SplitK::tail) {
    const gemm::tuning::TailSplitPlan plan = gemm::tuning::tail_split_plan(
        cluster_tiles, resident, k_blocks, min_tail_split_blocks<BN>(), kTailSplitRounds);
    if (plan.splits < 2)
      throw std::invalid_argument(
          split_k::no_tail_split(name, cluster_tiles, kBlockM, BN, resident));
    sk = split_k::slots_for(plan.rest_tiles, plan.splits, tile_floats, plan.whole_tiles, stream);
    whole_end = static_cast<int>(plan.whole_tiles);
  }
  const CUtensorMap map_a = make_tensor_map(a, m, k, lda, kBlockM, kBlockK);
  const CUtensorMap map_b = make_tensor_map(b, k, n, ldb, kBlockK, kBoxN);
  const Epilogue ep{c, ldc, m, n, alpha, beta, pairs_fit(c, ldc)};
  // The TMA epilogue writes C without reading it (beta == 0), and only where a store's last
  // 16-byte chunk ends at n: the H100 writes a partial chunk's rest past the tensor's width.
  const int per_chunk = 16 / c.elem_bytes();
  const bool tma_epilogue = beta == 0.f && n % per_chunk == 0 && ldc % per_chunk == 0 &&
                            reinterpret_cast<std::uintptr_t>(c.data()) % 16 == 0;
  CUtensorMap map_c = {};
  if (tma_epilogue && whole_end > 0) {
    core::Tensor2d tc;
    tc.base = c.data();
    tc.cols = static_cast<std::uint64_t>(n);
    tc.rows = static_cast<std::uint64_t>(m);
    tc.pitch_bytes = static_cast<std::uint64_t>(ldc) * static_cast<std::uint64_t>(c.elem_bytes());
    tc.elem_bytes = c.elem_bytes();
    tc.box_cols = kEpiCols;
    tc.box_rows = 64;
    tc.swizzle = c.bf16 ? core::TmaSwizzle::b64 : core::TmaSwizzle::b128;
    map_c = core::encode_tensor_map_2d(tc);
  }
  cudaLaunchAttribute attr[1];
  if (whole_end > 0) {
    const cudaLaunchConfig_t config =
        launch_config<BN, Stages, Cluster>(std::min(whole_end, resident), stream, attr);
    const split_k::Slots unsplit;
    MEMHIER_CUDA(cudaLaunchKernelEx(&config,
                                    tma_epilogue ? ws_kernel<BN, Stages, Cluster, true>
                                                 : ws_kernel<BN, Stages, Cluster, false>,
                                    map_a, map_b, map_c, ep, tiles_m, tiles_n, k_blocks, whole_end,
                                    unsplit));
    MEMHIER_CHECK_LAUNCH();
  }
  if constexpr (Mode != SplitK::never) {
    const int units = (cluster_tiles - whole_end) * sk.splits;
    const cudaLaunchConfig_t config =
        launch_config<BN, Stages, Cluster>(std::min(units, resident), stream, attr);
    MEMHIER_CUDA(cudaLaunchKernelEx(&config, ws_kernel<BN, Stages, Cluster, false, true>, map_a,
                                    map_b, map_c, ep, tiles_m, tiles_n, k_blocks, cluster_tiles,
                                    sk));
    MEMHIER_CHECK_LAUNCH();
    // About four blocks an SM over the card, each thread with at least one float4 of a slot.
    const int tiles = cluster_tiles - whole_end;
    const int parts = std::clamp((4 * resident + tiles - 1) / tiles, 1, kBlockM * BN / 4 / 256);
    sum_slots_kernel<BN><<<dim3(static_cast<unsigned>(tiles), static_cast<unsigned>(parts)), 256,
                           0, stream>>>(sk.partials, sk.splits, whole_end, ep, tiles_m, tiles_n);
    MEMHIER_CHECK_LAUNCH();
  }
}

/// The table's record of ws_kernel<BN, Stages, Cluster, *, *> in Mode: without splits the
/// TMA-epilogue build the bench's beta == 0 problems run, with them the splits' build.
template <int BN, int Stages, int Cluster, SplitK Mode>
HopperKernelInfo ws_info() {
  constexpr bool kSplits = Mode != SplitK::never;
  HopperKernelInfo info;
  info.symbol = reinterpret_cast<const void*>(&ws_kernel<BN, Stages, Cluster, !kSplits, kSplits>);
  info.block_threads = kThreads;
  info.dynamic_smem = ws_smem_bytes<BN, Stages>();
  info.cluster_size = Cluster;
  info.split_k = Mode;
  info.min_split_blocks = Mode == SplitK::tail ? min_tail_split_blocks<BN>() : kMinSplitKBlocks;
  info.split_rounds = Mode == SplitK::tail ? kTailSplitRounds : 0;
  return info;
}

}  // namespace

// One entry point per configuration of ws_configs.inc: BN x Stages x Cluster (x split-K) as
// its name says.
#define MEMHIER_WS(fn, BN, Stages, Cluster, Mode)                                                 \
  void fn(int m, int n, int k, float alpha, const __nv_bfloat16* a, int lda,                     \
          const __nv_bfloat16* b, int ldb, float beta, const COut& c, int ldc, cudaStream_t s) { \
    ws_gemm<BN, Stages, Cluster, SplitK::Mode>(#fn, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, \
                                               s);                                               \
  }                                                                                              \
  HopperKernelInfo fn##_info() {                                                                 \
    return ws_info<BN, Stages, Cluster, SplitK::Mode>();                                         \
  }
#include "ws_configs.inc"

}  // namespace memhier::kernels::gemm_bf16
