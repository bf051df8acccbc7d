// Rung 7 of the bf16 GEMM ladder: warp specialization on Hopper. A producer warpgroup gives
// its registers away (setmaxnreg) and only issues TMA loads; two consumer warpgroups take them
// and only run wgmma and the epilogue. Blocks are persistent and walk the tiles in grouped
// order; a cluster of two blocks on neighbouring row tiles shares each B k-block, each block
// loading one half and multicasting it to both, which halves B's L2 traffic.
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

constexpr int kThreads = 384;    // warpgroup 0 produces, 1 and 2 consume
constexpr int kClusterSize = 2;  // two row tiles share B
constexpr int kProducerRegs = 40;
constexpr int kConsumerRegs = 232;  // 128 * 40 + 256 * 232 = 64512 <= 65536 = 384 * 168
static_assert(kBlockN / kBoxN == 2 * kClusterSize, "each block multicasts two B boxes");

/// Persistent: cluster c takes cluster tiles c, c + clusters, ...; a cluster tile is 256 rows
/// (block rank r takes rows 128 r..) by 256 columns. Stage barriers: `full` (1 arrival: the
/// local producer's expect_tx, plus 48 KiB of transactions, the peer's two multicast B boxes
/// among them) and `empty` (4 arrivals: each consumer warpgroup of both blocks, since the producer
/// of either block writes B into both).
__global__ void __launch_bounds__(kThreads, 1)
    warp_specialized_kernel(const __grid_constant__ CUtensorMap map_a,
                            const __grid_constant__ CUtensorMap map_b, Epilogue ep, int tiles_m,
                            int tiles_n, int k_blocks) {
  extern __shared__ unsigned char smem_raw[];
  const SmemLayout sm = smem_layout(smem_raw);
  const int tid = threadIdx.x, wg = tid / 128, t = tid % 128;
  const uint32_t rank = cluster_ctarank();
  const int cluster = static_cast<int>(cluster_id_x());
  const int clusters = static_cast<int>(cluster_count_x());
  const int pairs_m = (tiles_m + 1) / 2;        // cluster tiles down M; a lone last row tile's
  const int cluster_tiles = pairs_m * tiles_n;  // partner block reads zeros and stores nothing

  if (tid == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(sm.full(s), 1);
      mbar_init(sm.empty(s), 2 * kClusterSize);
    }
    fence_barrier_init();
  }
  cluster_sync();  // the peer's barriers exist before any multicast or remote arrive

  if (wg == 0) {
    setmaxnreg_dec<kProducerRegs>();
    if (t == 0) {
      prefetch_tensor_map(&map_a);
      prefetch_tensor_map(&map_b);
      int it = 0;  // k-blocks issued so far, over all tiles: stage it % kStages
      for (int ct = cluster; ct < cluster_tiles; ct += clusters) {
        int pm = 0, tn = 0;
        tile_coords(ct, pairs_m, tiles_n, &pm, &tn);
        const int m0 = (2 * pm + static_cast<int>(rank)) * kBlockM, n0 = tn * kBlockN;
        for (int kb = 0; kb < k_blocks; ++kb, ++it) {
          const int s = it % kStages;
          // A fresh barrier counts its phase before the first as complete: parity 1 passes.
          mbar_wait<true>(sm.empty(s), ((it / kStages) & 1) ^ 1);
          mbar_arrive_expect_tx(sm.full(s), kStageBytes);
          tma_load_2d(sm.a(s), &map_a, sm.full(s), kb * kBlockK, m0);
          // B boxes 2 rank and 2 rank + 1 (columns n0 + 64 j) land at box j in both blocks.
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int j = 2 * static_cast<int>(rank) + h;
            tma_load_2d_multicast(sm.b(s) + j * kBytesBox, &map_b, sm.full(s), n0 + j * kBoxN,
                                  kb * kBlockK, static_cast<uint16_t>((1u << kClusterSize) - 1));
          }
        }
      }
    }
  } else {
    setmaxnreg_inc<kConsumerRegs>();
    const int c = wg - 1;  // rows 64 c .. 64 c + 63 of the block's tile
    float acc[128];
#pragma unroll
    for (int i = 0; i < 128; ++i) acc[i] = 0.f;
    int it = 0;
    for (int ct = cluster; ct < cluster_tiles; ct += clusters) {
      int pm = 0, tn = 0;
      tile_coords(ct, pairs_m, tiles_n, &pm, &tn);
      const int m0 = (2 * pm + static_cast<int>(rank)) * kBlockM, n0 = tn * kBlockN;
      for (int kb = 0; kb < k_blocks; ++kb, ++it) {
        const int s = it % kStages;
        mbar_wait(sm.full(s), (it / kStages) & 1);
        mma_k_block(acc, sm.a(s) + uint32_t(c) * 64 * 128, sm.b(s), kb == 0);
        // Thread i < 2 frees the stage in block i: both producers write into it.
        if (t < kClusterSize) mbar_arrive_cluster(sm.empty(s), static_cast<uint32_t>(t));
      }
      // The producer already fills the next tile's stages while this one is stored.
      store_tile(ep, acc, m0 + 64 * c, n0);
    }
  }
  // No block leaves while its peer may still arrive on its barriers.
  cluster_sync();
}

/// Clusters of this kernel that fit on the current device at once, its shared memory opted in
/// first (both once per device: the launch path stays a few host microseconds).
int prepare_device(int smem) {
  static std::mutex mu;
  static std::map<int, int> by_device;
  int dev = 0;
  MEMHIER_CUDA(cudaGetDevice(&dev));
  std::lock_guard<std::mutex> lock(mu);
  const auto found = by_device.find(dev);
  if (found != by_device.end()) return found->second;
  MEMHIER_CUDA(cudaFuncSetAttribute(warp_specialized_kernel,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int sms = 0;
  MEMHIER_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(sms / kClusterSize * kClusterSize));
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = static_cast<size_t>(smem);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = kClusterSize;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  config.attrs = attr;
  config.numAttrs = 1;
  int clusters = 0;
  MEMHIER_CUDA(cudaOccupancyMaxActiveClusters(&clusters, warp_specialized_kernel, &config));
  if (clusters < 1)
    throw std::runtime_error("warp_specialized: no cluster of 2 blocks fits on this device");
  by_device.emplace(dev, clusters);
  return clusters;
}

}  // namespace

void warp_specialized(int m, int n, int k, float alpha, const __nv_bfloat16* a, int lda,
                      const __nv_bfloat16* b, int ldb, float beta, float* c, int ldc,
                      cudaStream_t stream) {
  const std::string why = hopper_gemm_unsupported(m, n, k, lda, ldb, ldc, a, b, c);
  if (!why.empty()) throw std::invalid_argument("warp_specialized: " + why);
  const CUtensorMap map_a = make_tensor_map(a, m, k, lda, kBlockM, kBlockK);
  const CUtensorMap map_b = make_tensor_map(b, k, n, ldb, kBlockK, kBoxN);
  const bool pairs = ldc % 2 == 0 && reinterpret_cast<std::uintptr_t>(c) % 8 == 0;
  const Epilogue ep{c, ldc, m, n, alpha, beta, pairs};
  const int tiles_m = (m + kBlockM - 1) / kBlockM, tiles_n = (n + kBlockN - 1) / kBlockN;
  const int cluster_tiles = (tiles_m + 1) / 2 * tiles_n;
  const int k_blocks = (k + kBlockK - 1) / kBlockK;
  const int clusters = std::min(cluster_tiles, prepare_device(kSmemBytes));

  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(clusters * kClusterSize));
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = static_cast<size_t>(kSmemBytes);
  config.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = kClusterSize;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  config.attrs = attr;
  config.numAttrs = 1;
  MEMHIER_CUDA(cudaLaunchKernelEx(&config, warp_specialized_kernel, map_a, map_b, ep, tiles_m,
                                  tiles_n, k_blocks));
  MEMHIER_CHECK_LAUNCH();
}

HopperKernelInfo warp_specialized_info() {
  HopperKernelInfo info;
  info.symbol = reinterpret_cast<const void*>(&warp_specialized_kernel);
  info.block_threads = kThreads;
  info.dynamic_smem = kSmemBytes;
  info.cluster_size = kClusterSize;
  return info;
}

}  // namespace memhier::kernels::gemm_bf16
