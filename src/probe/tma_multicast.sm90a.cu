// Probe "tma", multicast: the blocks of a cluster all need the same tiles (as a GEMM's
// blocks along a row need the same A tiles). Separate loads: every block fetches each 16 KiB
// tile itself, so L2 serves it once per block. Multicast: each of the C blocks fetches 1/C
// of the tile's rows with .multicast::cluster into the same offset of every block's shared
// memory, so L2 serves it once per cluster. The tiles form an L2-resident set, so what
// differs is L2's traffic to the SMs. Both kernels keep four stages in flight and pass a
// cluster barrier per tile (a stage is reused only when every block is done with it).
// Hopper-only source: multicast is tuned for sm_90a.
#include <cooperative_groups.h>
#include <cuda.h>

#include <algorithm>
#include <vector>

#include "common.cuh"
#include "memhier/core/gate.hpp"
#include "memhier/core/launch.hpp"
#include "memhier/core/tma.cuh"
#include "memhier/core/tma.hpp"
#include "tma_detail.cuh"

namespace memhier::probe::tma_detail {
namespace {

namespace cg = cooperative_groups;

constexpr int kStages = 4;
constexpr int kTileRows = 64;                              // 64 x 64 floats: 16 KiB
constexpr unsigned kTileBytes = kTileRows * kBoxCols * 4;  // 16 KiB
constexpr unsigned kTileWords = kTileBytes / 4;
constexpr std::size_t kWorkingSet = std::size_t{16} << 20;  // well inside H100's 50 MB L2

struct McArgs {
  unsigned tiles = 0;  ///< tiles in the working set
  unsigned iters = 0;  ///< tiles per block
  unsigned* sums = nullptr;
};

/// Tile `c` of the cluster `cluster_id`: every block of a cluster streams the same tiles.
__host__ __device__ inline std::size_t mc_tile(unsigned cluster_id, unsigned c, const McArgs& a) {
  return (static_cast<std::size_t>(cluster_id) * a.iters + c) % a.tiles;
}

template <bool Multicast>
__global__ void __launch_bounds__(kThreads)
    tma_probe_multicast(const __grid_constant__ CUtensorMap whole,
                        const __grid_constant__ CUtensorMap part, McArgs a) {
#if MEMHIER_TMA_DEVICE
  extern __shared__ __align__(128) unsigned char stage_mem[];
  __shared__ alignas(8) unsigned long long bars[kStages];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank(), size = cluster.num_blocks();
  const unsigned cluster_id = blockIdx.x / size, tid = threadIdx.x;
  const unsigned part_rows = kTileRows / size;
  if (tid == 0) {
    tma::prefetch_tensor_map(Multicast ? &part : &whole);
    for (int s = 0; s < kStages; ++s) tma::mbarrier_init(tma::smem_addr(&bars[s]), 1);
    tma::fence_mbarrier_init();
  }
  cluster.sync();  // every block's barriers exist before any peer multicasts into them
  const auto issue = [&](unsigned c) {
    if (tid != 0) return;
    const std::size_t t = mc_tile(cluster_id, c, a);
    const int x = static_cast<int>(t % kTilesX) * kBoxCols;
    const int y = static_cast<int>(t / kTilesX) * kTileRows;
    const unsigned bar = tma::smem_addr(&bars[c % kStages]);
    const unsigned dst = tma::smem_addr(stage_mem + (c % kStages) * kTileBytes);
    tma::mbarrier_arrive_expect_tx(bar, kTileBytes);  // the whole tile, from all C parts
    if (Multicast)
      tma::tensor_load_2d_multicast(dst + rank * part_rows * kBoxCols * 4, &part, x,
                                    y + static_cast<int>(rank * part_rows), bar,
                                    static_cast<std::uint16_t>((1u << size) - 1));
    else
      tma::tensor_load_2d(dst, &whole, x, y, bar);
  };
  for (unsigned c = 0; c < kStages && c < a.iters; ++c) issue(c);
  unsigned sum = 0;
  for (unsigned c = 0; c < a.iters; ++c) {
    tma::mbarrier_wait_parity(tma::smem_addr(&bars[c % kStages]), (c / kStages) & 1u);
    sum += reinterpret_cast<const unsigned*>(
        stage_mem + (c % kStages) * kTileBytes)[sampled_word(kTileWords, c, tid)];
    cluster.sync();  // no block refills this stage (in any block) before all have read it
    if (c + kStages < a.iters) issue(c + kStages);
  }
  atomicAdd(&a.sums[blockIdx.x], sum);
#else
  (void)whole, (void)part, (void)a;
  tma::unsupported();
#endif
}

__global__ void tma_multicast_reference(const float* src, McArgs a, unsigned cluster) {
  unsigned sum = 0;
  for (unsigned c = 0; c < a.iters; ++c)
    sum += reinterpret_cast<const unsigned*>(
        src)[tile_word(true, kTileWords, mc_tile(blockIdx.x / cluster, c, a),
                       sampled_word(kTileWords, c, threadIdx.x))];
  atomicAdd(&a.sums[blockIdx.x], sum);
}

CUtensorMap set_map(const float* src, std::uint32_t box_rows) {
  core::Tensor2d t;
  t.base = src;
  t.cols = kWidth;
  t.rows = kWorkingSet / (kWidth * sizeof(float));
  t.pitch_bytes = kWidth * sizeof(float);
  t.box_cols = kBoxCols;
  t.box_rows = box_rows;
  return core::encode_tensor_map_2d(t);
}

}  // namespace

TmaMulticast measure_multicast(Context& ctx, int cluster, const float* src, std::size_t rows) {
  TmaMulticast r;
  r.cluster = cluster;
  r.working_set_bytes = static_cast<double>(kWorkingSet);
  if (rows * kWidth * sizeof(float) < kWorkingSet) return r;  // no room: nothing measured
  const CUtensorMap whole = set_map(src, kTileRows);
  const CUtensorMap part = set_map(src, static_cast<std::uint32_t>(kTileRows / cluster));
  const int smem = kStages * static_cast<int>(kTileBytes);
  const void* kernels[2] = {reinterpret_cast<const void*>(tma_probe_multicast<false>),
                            reinterpret_cast<const void*>(tma_probe_multicast<true>)};
  // sm_90a code: no image on other cards, and a stage set larger than some cards allow.
  if (!core::kernel_unsupported("TMA multicast", kernels[1], {90, true, smem, cluster}).empty())
    return r;
  int clusters = 0;
  for (const void* k : kernels) {
    MEMHIER_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    const int n = core::max_active_clusters(k, cluster, kThreads, static_cast<std::size_t>(smem));
    clusters = clusters == 0 ? n : std::min(clusters, n);
  }
  if (clusters <= 0) return r;
  r.blocks = clusters * cluster;
  McArgs a;
  a.tiles = static_cast<unsigned>(kWorkingSet / kTileBytes);
  a.iters = ctx.quick ? 32 : 64;
  core::DeviceBuffer<unsigned> sums(static_cast<std::size_t>(r.blocks)),
      ref(static_cast<std::size_t>(r.blocks));
  MEMHIER_CUDA(cudaMemset(ref.data(), 0, ref.bytes()));
  McArgs ra = a;
  ra.sums = ref.data();
  tma_multicast_reference<<<r.blocks, kThreads>>>(src, ra, static_cast<unsigned>(cluster));
  MEMHIER_CHECK_LAUNCH();
  const std::vector<unsigned> want = ref.download();
  a.sums = sums.data();
  r.verified = true;
  const double bytes = static_cast<double>(r.blocks) * a.iters * kTileBytes;
  for (int multicast = 0; multicast < 2; ++multicast) {
    const auto launch = [&](cudaStream_t s) {
      CUtensorMap w = whole, p = part;
      McArgs args = a;
      void* params[] = {&w, &p, &args};
      core::launch_clustered(kernels[multicast], params, r.blocks, cluster, kThreads,
                             static_cast<std::size_t>(smem), s);
    };
    MEMHIER_CUDA(cudaMemset(sums.data(), 0, sums.bytes()));
    launch(nullptr);
    r.verified = r.verified && sums.download() == want;
    core::TimingOptions o = probe_timing(ctx, "tma multicast");
    o.min_total_ms = ctx.quick ? 0.5 : 2.0;
    o.max_reps = ctx.quick ? 10 : 30;
    const double ms = core::time_it(launch, fewest_if_smallest(ctx, o)).median_ms;
    (multicast ? r.multicast_gbps : r.separate_gbps) = gbps(bytes, ms);
  }
  return r;
}

}  // namespace memhier::probe::tma_detail
