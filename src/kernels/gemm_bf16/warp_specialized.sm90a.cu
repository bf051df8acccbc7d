// Rung 7 of the bf16 GEMM ladder and best's warp-specialized candidates: a producer warpgroup
// gives its registers away (setmaxnreg) and only issues TMA loads; two consumer warpgroups take
// them and only run wgmma and the epilogue. Blocks are persistent and walk the tiles in grouped
// order; in a cluster of two (four), the blocks sit on neighbouring row tiles and share each B
// k-block, each loading half (a quarter) of it and multicasting it to all, which divides B's L2
// traffic by the cluster size.
// One template, instantiated as rung 7 (128 x 256, 4 stages, clusters of 2) and the candidates.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "kernels/gemm_bf16/hopper.cuh"
#include "kernels/gemm_bf16/hopper_launch.hpp"
#include "memhier/core/check.hpp"

namespace memhier::kernels::gemm_bf16 {
namespace {

using namespace sm90;

constexpr int kThreads = 384;  // warpgroup 0 produces, 1 and 2 consume
constexpr int kProducerRegs = 40;
constexpr int kConsumerRegs = 232;  // 128 * 40 + 256 * 232 = 64512 <= 65536 = 384 * 168

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
template <int BN, int Stages, int Cluster>
__global__ void __launch_bounds__(kThreads, 1)
    ws_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
              Epilogue ep, int tiles_m, int tiles_n, int k_blocks) {
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
  const int cluster_tiles = groups_m * tiles_n;            // block reads zeros, stores nothing

  if (tid == 0) {
    for (int s = 0; s < Stages; ++s) {
      mbar_init(sm.full(s), 1);
      mbar_init(sm.empty(s), 2 * Cluster);
    }
    fence_barrier_init();
  }
  if constexpr (Cluster > 1)
    cluster_sync();  // the peer's barriers exist before any multicast or remote arrive
  else
    __syncthreads();

  if (wg == 0) {
    setmaxnreg_dec<kProducerRegs>();
    if (t == 0) {
      prefetch_tensor_map(&map_a);
      prefetch_tensor_map(&map_b);
      int it = 0;  // k-blocks issued so far, over all tiles: stage it % Stages
      for (int ct = cluster; ct < cluster_tiles; ct += clusters) {
        int gm = 0, tn = 0;
        tile_coords(ct, groups_m, tiles_n, &gm, &tn);
        const int m0 = (Cluster * gm + rank) * kBlockM, n0 = tn * BN;
        for (int kb = 0; kb < k_blocks; ++kb, ++it) {
          const int s = it % Stages;
          // A fresh barrier counts its phase before the first as complete: parity 1 passes.
          mbar_wait<(Cluster > 1)>(sm.empty(s), ((it / Stages) & 1) ^ 1);
          mbar_arrive_expect_tx(sm.full(s), G::kStageBytes);
          tma_load_2d(sm.a(s), &map_a, sm.full(s), kb * kBlockK, m0);
          // This block's B boxes (columns n0 + 64 j) land at box j in every cluster block.
#pragma unroll
          for (int h = 0; h < kMyBoxes; ++h) {
            const int j = kMyBoxes * rank + h;
            const uint32_t dst = sm.b(s) + uint32_t(j) * kBytesBox;
            if constexpr (Cluster > 1)
              tma_load_2d_multicast(dst, &map_b, sm.full(s), n0 + j * kBoxN, kb * kBlockK,
                                    static_cast<uint16_t>((1u << Cluster) - 1));
            else
              tma_load_2d(dst, &map_b, sm.full(s), n0 + j * kBoxN, kb * kBlockK);
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
    for (int ct = cluster; ct < cluster_tiles; ct += clusters) {
      int gm = 0, tn = 0;
      tile_coords(ct, groups_m, tiles_n, &gm, &tn);
      const int m0 = (Cluster * gm + rank) * kBlockM, n0 = tn * BN;
      for (int kb = 0; kb < k_blocks; ++kb, ++it) {
        const int s = it % Stages;
        mbar_wait(sm.full(s), (it / Stages) & 1);
        mma_k_block_issue<BN>(acc, sm.a(s) + uint32_t(c) * 64 * 128, sm.b(s), kb == 0);
        wgmma_wait<1>();  // the previous k-block's group is done: its stage is free
        if (kb > 0) release_stage<Cluster>(sm.empty((it - 1) % Stages), t);
      }
      wgmma_wait<0>();
      fence_accumulators(acc);
      release_stage<Cluster>(sm.empty((it - 1) % Stages), t);
      store_tile<BN>(ep, acc, m0 + 64 * c, n0);
    }
  }
  // No block leaves while its peer may still arrive on its barriers.
  if constexpr (Cluster > 1) cluster_sync();
}

/// The launch of ws_kernel<BN, Stages, Cluster> for `clusters` clusters.
template <int BN, int Stages, int Cluster>
cudaLaunchConfig_t launch_config(int clusters, cudaStream_t stream, cudaLaunchAttribute* attr) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(clusters * Cluster));
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = static_cast<size_t>(Geometry<BN, Stages>::kSmemBytes);
  config.stream = stream;
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = Cluster;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  config.attrs = attr;
  config.numAttrs = Cluster > 1 ? 1 : 0;  // without clusters, a plain launch
  return config;
}

/// Clusters of the kernel that fit on the current device at once, its shared memory opted in
/// first (both once per device: the launch path stays a few host microseconds).
template <int BN, int Stages, int Cluster>
int prepare_device() {
  static std::mutex mu;
  static std::map<int, int> by_device;
  int dev = 0;
  MEMHIER_CUDA(cudaGetDevice(&dev));
  std::lock_guard<std::mutex> lock(mu);
  const auto found = by_device.find(dev);
  if (found != by_device.end()) return found->second;
  const auto kernel = ws_kernel<BN, Stages, Cluster>;
  MEMHIER_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    Geometry<BN, Stages>::kSmemBytes));
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
        &per_sm, kernel, kThreads, static_cast<size_t>(Geometry<BN, Stages>::kSmemBytes)));
    clusters = per_sm * sms;
  }
  if (clusters < 1)
    throw std::runtime_error("warp_specialized: no cluster of " + std::to_string(Cluster) +
                             " blocks fits on this device");
  by_device.emplace(dev, clusters);
  return clusters;
}

/// C = alpha * A * B + beta * C through ws_kernel<BN, Stages, Cluster>; `name` prefixes errors.
template <int BN, int Stages, int Cluster>
void ws_gemm(const char* name, int m, int n, int k, float alpha, const __nv_bfloat16* a, int lda,
             const __nv_bfloat16* b, int ldb, float beta, float* c, int ldc, cudaStream_t stream) {
  const std::string why = hopper_gemm_unsupported(m, n, k, lda, ldb, ldc, a, b, c);
  if (!why.empty()) throw std::invalid_argument(std::string(name) + ": " + why);
  const CUtensorMap map_a = make_tensor_map(a, m, k, lda, kBlockM, kBlockK);
  const CUtensorMap map_b = make_tensor_map(b, k, n, ldb, kBlockK, kBoxN);
  const bool pairs = ldc % 2 == 0 && reinterpret_cast<std::uintptr_t>(c) % 8 == 0;
  const Epilogue ep{c, ldc, m, n, alpha, beta, pairs};
  const int tiles_m = (m + kBlockM - 1) / kBlockM, tiles_n = (n + BN - 1) / BN;
  const int cluster_tiles = (tiles_m + Cluster - 1) / Cluster * tiles_n;
  const int k_blocks = (k + kBlockK - 1) / kBlockK;
  const int clusters = std::min(cluster_tiles, prepare_device<BN, Stages, Cluster>());
  cudaLaunchAttribute attr[1];
  const cudaLaunchConfig_t config = launch_config<BN, Stages, Cluster>(clusters, stream, attr);
  MEMHIER_CUDA(cudaLaunchKernelEx(&config, ws_kernel<BN, Stages, Cluster>, map_a, map_b, ep,
                                  tiles_m, tiles_n, k_blocks));
  MEMHIER_CHECK_LAUNCH();
}

/// The table's record of ws_kernel<BN, Stages, Cluster>.
template <int BN, int Stages, int Cluster>
HopperKernelInfo ws_info() {
  HopperKernelInfo info;
  info.symbol = reinterpret_cast<const void*>(&ws_kernel<BN, Stages, Cluster>);
  info.block_threads = kThreads;
  info.dynamic_smem = Geometry<BN, Stages>::kSmemBytes;
  info.cluster_size = Cluster;
  return info;
}

}  // namespace

// Each entry point below is one instantiation: BN x Stages x Cluster as its name says.
#define MEMHIER_WS_ENTRY(fn, BN, Stages, Cluster)                                           \
  void fn(int m, int n, int k, float alpha, const __nv_bfloat16* a, int lda,                \
          const __nv_bfloat16* b, int ldb, float beta, float* c, int ldc, cudaStream_t s) { \
    ws_gemm<BN, Stages, Cluster>(#fn, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, s);     \
  }                                                                                         \
  HopperKernelInfo fn##_info() {                                                            \
    return ws_info<BN, Stages, Cluster>();                                                  \
  }

MEMHIER_WS_ENTRY(warp_specialized, 256, 4, 2)
MEMHIER_WS_ENTRY(ws_c1_s4_128x256, 256, 4, 1)
MEMHIER_WS_ENTRY(ws_c4_s4_128x256, 256, 4, 4)
MEMHIER_WS_ENTRY(ws_c2_s6_128x128, 128, 6, 2)
MEMHIER_WS_ENTRY(ws_c1_s6_128x128, 128, 6, 1)
MEMHIER_WS_ENTRY(ws_c1_s8_128x64, 64, 8, 1)
#undef MEMHIER_WS_ENTRY

}  // namespace memhier::kernels::gemm_bf16
