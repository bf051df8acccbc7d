// The lane-privatized kernel behind rungs 4 and 5 (and `best`): every block keeps 32
// copies of the 256 bins in shared memory, one per lane index, interleaved so that lane
// l's copy of bin b sits at word b*32 + l (bank l). A warp's 32 shared atomics then never
// share a bank or a word, whatever the values: uniform and degenerate input are both
// conflict-free. Input arrives as 16-byte vectors (kLaneUnroll per thread per tile, the
// next tile loaded before the current one is counted); the unaligned head and the tail
// are counted one element at a time. Runs = true adds a single atomic of 16 (uint8) or 4
// (int32) when a whole vector holds one value.
//
// Cluster = 2 (rung 6) merges through distributed shared memory first: each block of a
// pair of blocks sums its 32 copies into 256 totals in its shared memory, the pair syncs,
// and each block adds half of the bins (its own totals plus its partner's) into the global
// bins: half the global atomics, and the pair fits two blocks on an SM. At 2^24 elements
// the merge, not the counting, is what costs: on an H100 (2026-11-22, `memhier bench
// histogram --size u8-uniform:16777216 --variant best`), one block per SM and no pairs
// took 25.1 us (0.66 x CUB), two plain blocks per SM (twice the global atomics) 36.2 us,
// pairs 16.8 us (1.00 x CUB); clusters of 4 and 8 18.8 us.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>

#include "kernels/histogram/common.cuh"
#include "kernels/histogram/variants.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/launch.hpp"

namespace memhier::histogram::detail {

constexpr unsigned kLaneWords = kBins * kLanes;  // 8192 words = 32 KB per block

/// Counts one element into this lane's copy (`mine` = copy base + lane).
template <typename T>
__device__ __forceinline__ void lane_count_one(std::uint32_t* mine, T v) {
  const unsigned b = bin_of(v);
  if (b < kBins) atomicAdd(mine + lane_copy_word(0, b), 1u);
}

namespace {
/// Bytes between a bin's words in a lane's copy. A constant the compiler cannot fold, so the
/// address is one IMAD (FMA pipe) rather than shifts and masks on the busy ALU pipe.
__constant__ unsigned c_bin_stride_bytes = 4 * kLanes;
}  // namespace

/// Counts the 4 bytes of a word: a PRMT extracts byte k, an IMAD makes the shared address of
/// its word in this lane's copy, a shared atomic adds one.
__device__ __forceinline__ void lane_count_word_u8(std::uint32_t* mine, std::uint32_t w) {
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(mine));
#pragma unroll
  for (unsigned k = 0; k < 4; ++k) {
    const unsigned bin = __byte_perm(w, 0, 0x4440u + k);
    asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(bin * c_bin_stride_bytes + base) : "memory");
  }
}

template <bool Runs>
__device__ __forceinline__ void lane_count_vec(std::uint32_t* mine, uint4 x, std::uint8_t) {
  if (Runs && x.x == x.y && x.x == x.z && x.x == x.w && x.x == __byte_perm(x.x, 0, 0)) {
    atomicAdd(mine + ((x.x & 0xFFu) << 5), 16u);  // 16 equal bytes: one add
    return;
  }
  lane_count_word_u8(mine, x.x);
  lane_count_word_u8(mine, x.y);
  lane_count_word_u8(mine, x.z);
  lane_count_word_u8(mine, x.w);
}

template <bool Runs>
__device__ __forceinline__ void lane_count_vec(std::uint32_t* mine, uint4 x, std::int32_t) {
  if (Runs && x.x == x.y && x.x == x.z && x.x == x.w) {
    if (x.x < kBins) atomicAdd(mine + (x.x << 5), 4u);  // 4 equal values: one add
    return;
  }
  // Unsigned compare: negative values wrap above 255 and are skipped.
  if (x.x < kBins) atomicAdd(mine + (x.x << 5), 1u);
  if (x.y < kBins) atomicAdd(mine + (x.y << 5), 1u);
  if (x.z < kBins) atomicAdd(mine + (x.z << 5), 1u);
  if (x.w < kBins) atomicAdd(mine + (x.w << 5), 1u);
}

/// head: the elements before the first 16-byte boundary; vec: the aligned body (nvec
/// vectors); tail: the ntail elements after it.
template <typename T, bool Runs, int Cluster = 1>
__global__ void __launch_bounds__(kLaneThreads)
    lane_privatized_kernel(const T* __restrict__ head, std::size_t nhead,
                           const uint4* __restrict__ vec, std::size_t nvec,
                           const T* __restrict__ tail, std::size_t ntail,
                           std::uint32_t* __restrict__ bins) {
  static_assert(Cluster == 1 || kBins % Cluster == 0, "whole bins per block of a cluster");
  __shared__ __align__(16) std::uint32_t h[kLaneWords];
  __shared__ std::uint32_t totals[Cluster > 1 ? kBins : 1];  // this block's sums (Cluster > 1)
  {
    uint4* h4 = reinterpret_cast<uint4*>(h);
    for (unsigned i = threadIdx.x; i < kLaneWords / 4; i += blockDim.x)
      h4[i] = make_uint4(0, 0, 0, 0);
  }
  __syncthreads();

  const unsigned lane = threadIdx.x & 31u;
  std::uint32_t* mine = h + lane_copy_word(lane, 0);
  const T tag{};  // selects the element type's counting routine
  const std::size_t gtid = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;

  // Unaligned head and tail (fewer than 16 elements each): the first threads of the grid.
  if (gtid < nhead) lane_count_one(mine, head[gtid]);
  if (gtid < ntail) lane_count_one(mine, tail[gtid]);

  // The body: block b owns one contiguous range of vectors (equal shares, split on
  // 128-byte boundaries), walked in tiles of kLaneThreads * kLaneUnroll vectors, the next
  // tile's loads in flight while the current one is counted.
  constexpr std::size_t kTile = std::size_t(kLaneThreads) * kLaneUnroll;
  const std::size_t share = ((nvec + gridDim.x - 1) / gridDim.x + 7) & ~std::size_t(7);
  const std::size_t first = std::size_t(blockIdx.x) * share;
  const std::size_t begin = first < nvec ? first : nvec;
  const std::size_t end = nvec - begin < share ? nvec : begin + share;
  const std::size_t full_tiles = (end - begin) / kTile;
  const uint4* p = vec + begin + threadIdx.x;
  uint4 cur[kLaneUnroll];
#pragma unroll
  for (int k = 0; k < kLaneUnroll; ++k)
    cur[k] = full_tiles > 0 ? __ldg(p + k * kLaneThreads) : make_uint4(0, 0, 0, 0);
  for (std::size_t t = 0; t < full_tiles; ++t) {
    const bool more = t + 1 < full_tiles;
    uint4 nxt[kLaneUnroll];
#pragma unroll
    for (int k = 0; k < kLaneUnroll; ++k)
      nxt[k] = more ? __ldg(p + (t + 1) * kTile + k * kLaneThreads) : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int k = 0; k < kLaneUnroll; ++k) lane_count_vec<Runs>(mine, cur[k], tag);
#pragma unroll
    for (int k = 0; k < kLaneUnroll; ++k) cur[k] = nxt[k];
  }
  // The rest of the range (less than one tile).
  for (std::size_t i = begin + full_tiles * kTile + threadIdx.x; i < end; i += blockDim.x)
    lane_count_vec<Runs>(mine, __ldg(vec + i), tag);
  __syncthreads();

  // Merge: warp w sums bins w, w + warps, ...: lane l reads copy l (32 consecutive words),
  // a shuffle tree adds them, lane 0 adds the nonzero total to the global bin.
  const unsigned warp = threadIdx.x / 32u, warps = blockDim.x / 32u;
  for (unsigned b = warp; b < kBins; b += warps) {
    std::uint32_t s = h[lane_merge_word(lane, b)];
#pragma unroll
    for (int off = 16; off > 0; off /= 2) s += __shfl_xor_sync(0xFFFFFFFFu, s, off);
    if constexpr (Cluster == 1) {
      if (lane == 0 && s) atomicAdd(&bins[b], s);
    } else if (lane == 0) {
      totals[b] = s;
    }
  }
  if constexpr (Cluster > 1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    __trap();  // never launched: core::launch_clustered refuses code built below sm_90
#else
    // Block r of the cluster adds bins [r * per, (r + 1) * per) of every block's totals.
    namespace cg = cooperative_groups;
    const cg::cluster_group cluster = cg::this_cluster();
    cluster.sync();  // every block's totals are written
    constexpr unsigned kPer = kBins / Cluster;
    if (threadIdx.x < kPer) {
      const unsigned b = cluster.block_rank() * kPer + threadIdx.x;
      std::uint32_t s = 0;
#pragma unroll
      for (int q = 0; q < Cluster; ++q) s += cluster.map_shared_rank(totals, q)[b];
      if (s) atomicAdd(&bins[b], s);
    }
    cluster.sync();  // nobody leaves while a partner still reads its totals
#endif
  }
}

/// The kernel's input arguments for `in` (n >= 1 elements, 4-byte aligned for int32): the
/// unaligned head, the 16-byte vectors, the tail.
template <typename T>
struct LaneInput {
  const T* head;
  std::size_t nhead;
  const uint4* vec;
  std::size_t nvec;
  const T* tail;
  std::size_t ntail;

  LaneInput(const T* in, std::size_t n) {
    const Split sp = split_for_vectors(in, n, sizeof(T));
    head = in;
    nhead = sp.head;
    vec = reinterpret_cast<const uint4*>(in + sp.head);
    nvec = sp.nvec;
    tail = in + sp.head + sp.nvec * (16 / sizeof(T));
    ntail = sp.ntail;
  }
};

/// Launches the kernel on `in` (n >= 1 elements, 4-byte aligned for int32).
template <typename T, bool Runs>
void launch_lane(const T* in, std::size_t n, std::uint32_t* bins, cudaStream_t s) {
  const LaneInput<T> a(in, n);
  const void* k = reinterpret_cast<const void*>(&lane_privatized_kernel<T, Runs>);
  // Blocks: one of 1024 threads per SM, fewer when the input is small (at least one tile
  // of vectors per block). Every block ends by adding its 256 sums into the same 1 KB of
  // global bins, and those atomics serialize at L2 at the kernel's end: fewer, larger
  // blocks merge less. On an H100 (2026-11-21, 2^28 uint8): 4 blocks of 512 per SM
  // measured 0.97-1.03 x CUB, 2 of 1024 1.12, 1 of 1024 1.18 (i32: 1.43, 1.50).
  const int grid = grid_for(k, kLaneThreads, true, a.nvec, std::size_t(kLaneThreads) * kLaneUnroll,
                            kLaneBlocksPerSm);
  lane_privatized_kernel<T, Runs>
      <<<grid, kLaneThreads, 0, s>>>(a.head, a.nhead, a.vec, a.nvec, a.tail, a.ntail, bins);
  MEMHIER_CHECK_LAUNCH();
}

/// Rung 6: the same kernel with Runs in pairs of blocks (a cluster of 2, sm_90) as many
/// pairs as fit at once; without clusters, launch_lane<T, true>.
template <typename T>
void launch_lane_pairs(const T* in, std::size_t n, std::uint32_t* bins, cudaStream_t s) {
  constexpr int kPair = 2;
  const void* k = reinterpret_cast<const void*>(&lane_privatized_kernel<T, true, kPair>);
  // The max-shared carveout first (set once, cached): two 33 KB blocks per SM.
  const int resident = core::resident_grid(k, kLaneThreads, 0, 0, true);
  const int pairs = core::max_active_clusters(k, kPair, kLaneThreads);
  if (pairs < 1) return launch_lane<T, true>(in, n, bins, s);
  LaneInput<T> a(in, n);
  const std::size_t tile = std::size_t(kLaneThreads) * kLaneUnroll;
  const std::size_t needed = (a.nvec + tile - 1) / tile;  // blocks with a tile to count
  const std::size_t most = static_cast<std::size_t>(std::min(pairs, resident / kPair));
  const int blocks =
      kPair * static_cast<int>(std::max<std::size_t>(1, std::min(most, (needed + 1) / kPair)));
  void* args[] = {&a.head, &a.nhead, &a.vec, &a.nvec, &a.tail, &a.ntail, &bins};
  core::launch_clustered(k, args, blocks, kPair, kLaneThreads, 0, s);
}

}  // namespace memhier::histogram::detail
