// Distributed shared memory (Hopper): thread-block clusters whose blocks read each other's
// shared memory through the cluster window (mapa + ld.shared::cluster). Latency: rank 0's
// thread 0 chases a ring in the shared memory of each rank of one cluster, like the latency
// probe's shared tier. Bandwidth: every block of as many clusters as fit reads 16-byte vectors
// of its neighbour's buffer (one-to-one) or of every other rank's in turn (all-to-all),
// against the same reads of its own buffer with ld.shared. Probe "dsmem".
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "chase_ring.cuh"
#include "common.cuh"
#include "families.hpp"
#include "memhier/core/gate.hpp"
#include "memhier/core/hash.cuh"
#include "memhier/core/launch.hpp"
#include "memhier/core/ptx.cuh"
#include "memhier/probe/dsmem.hpp"

namespace memhier::probe {
namespace {

constexpr int kChaseThreads = 128;
constexpr int kReadThreads = 1024;
constexpr int kUnroll = 4;                            // reads in flight per thread
constexpr std::uint64_t kSlots = 128;                 // a 16 KiB ring, 128 B apart, as in the
constexpr std::uint64_t kStride = 128;                // latency probe's shared tier
constexpr std::size_t kRingBytes = kSlots * kStride;  // ring A (CTA window), then ring B (cluster)
constexpr std::size_t kBufferBytes = 64 * KiB;        // each block's buffer for bandwidth
constexpr unsigned kVectors = kBufferBytes / 16;      // a power of two: the index wraps by a mask
constexpr int kSizes[] = {2, 4, 8, 16};
enum ReadMode { kLocal = 0, kNeighbour = 1, kAllOthers = 2 };

// ---------------------------------------------------------------------------------
// Kernels (sm_90: the host launches them only on cards with clusters)
// ---------------------------------------------------------------------------------

__device__ __forceinline__ unsigned cta_rank() {
  unsigned r = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
#endif
  return r;
}

__device__ __forceinline__ unsigned cluster_blocks() {
  unsigned n = 1;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
#endif
  return n;
}

// The cluster-window address of `cta_addr` (this block's shared window) in block `rank`.
__device__ __forceinline__ unsigned map_to_rank(unsigned cta_addr, unsigned rank) {
  unsigned a = cta_addr;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(a) : "r"(cta_addr), "r"(rank));
#else
  (void)rank;
#endif
  return a;
}

// Every thread of the cluster: shared-memory writes before it are visible to every block
// after it (arrive releases, wait acquires).
__device__ __forceinline__ void cluster_sync_all() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;" ::: "memory");
#else
  __syncthreads();
#endif
}

// Each rank's ring has its own order: a read served by the wrong block ends elsewhere.
__host__ __device__ inline RingLayout keyed(RingLayout lay, unsigned rank) {
  lay.outer_key ^= core::hash32(rank + 1);
  return lay;
}

struct ChaseArgs {
  RingLayout lay;
  int target = 0;  ///< the rank rank 0 chases; -1: plain ld.shared in its own ring A
  int warm = 0, steps = 0;
  long long* cycles = nullptr;
  unsigned* ok = nullptr;  ///< 1 when the chase ended where the target's ring does
};

// Each block writes ring A (CTA-window addresses) and ring B (its own cluster-window
// addresses, from mapa) in its shared memory; rank 0's thread 0 chases one of them.
__global__ void __launch_bounds__(kChaseThreads) dsmem_chase_kernel(ChaseArgs a) {
  extern __shared__ __align__(128) unsigned char smem[];
  const unsigned rank = cta_rank();
  const unsigned base = ptx::smem_addr(smem);
  const RingLayout mine = keyed(a.lay, rank);
  for (std::uint64_t k = threadIdx.x; k < kSlots; k += blockDim.x) {
    const std::uint64_t from = ring_offset(mine, ring_slot(mine, k));
    const std::uint64_t to = ring_offset(mine, ring_slot(mine, k + 1 == kSlots ? 0 : k + 1));
    *reinterpret_cast<unsigned*>(smem + from) = base + static_cast<unsigned>(to);
    *reinterpret_cast<unsigned*>(smem + kRingBytes + from) =
        map_to_rank(base + static_cast<unsigned>(kRingBytes + to), rank);
  }
  cluster_sync_all();
  if (rank == 0 && threadIdx.x == 0) {
    const unsigned target = a.target < 0 ? 0u : static_cast<unsigned>(a.target);
    const RingLayout theirs = keyed(a.lay, target);
    const std::uint64_t end = static_cast<std::uint64_t>(a.warm + a.steps) % kSlots;
    unsigned p, expected;
    long long t0, t1;
    if (a.target < 0) {
      p = base + static_cast<unsigned>(ring_offset(theirs, ring_slot(theirs, 0)));
      expected = base + static_cast<unsigned>(ring_offset(theirs, ring_slot(theirs, end)));
      for (int i = 0; i < a.warm; ++i)
        asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p) : : "memory");
      t0 = clock64();
#pragma unroll 16
      for (int i = 0; i < a.steps; ++i)
        asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p) : : "memory");
      t1 = clock64();
    } else {
      const unsigned ring_b = base + static_cast<unsigned>(kRingBytes);
      p = map_to_rank(ring_b + static_cast<unsigned>(ring_offset(theirs, ring_slot(theirs, 0))),
                      target);
      expected = map_to_rank(
          ring_b + static_cast<unsigned>(ring_offset(theirs, ring_slot(theirs, end))), target);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
      for (int i = 0; i < a.warm; ++i)
        asm volatile("ld.shared::cluster.u32 %0, [%0];" : "+r"(p) : : "memory");
      t0 = clock64();
#pragma unroll 16
      for (int i = 0; i < a.steps; ++i)
        asm volatile("ld.shared::cluster.u32 %0, [%0];" : "+r"(p) : : "memory");
      t1 = clock64();
#else
      t0 = t1 = 0;
#endif
    }
    a.cycles[0] = t1 - t0;
    a.ok[0] = p == expected ? 1u : 0u;
  }
  cluster_sync_all();  // no block leaves while rank 0 may still read its shared memory
}

// A 16-byte shared load folded to one word: plain (own block) or through the cluster window.
template <bool kCluster>
__device__ __forceinline__ unsigned load_fold(unsigned addr) {
  unsigned x, y, z, w;
  if constexpr (kCluster) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                 : "r"(addr)
                 : "memory");
#else
    x = y = z = w = addr;
#endif
  } else {
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                 : "r"(addr)
                 : "memory");
  }
  return x ^ y ^ z ^ w;
}

// Every thread reads `iters` conflict-free 16-byte vectors (a warp 512 contiguous bytes per
// load, kUnroll in flight) of its own buffer, its neighbour's, or every other rank's in turn.
template <int kMode>
__global__ void __launch_bounds__(kReadThreads, 1) dsmem_read_kernel(int iters, unsigned* out) {
  extern __shared__ __align__(128) unsigned char smem[];
  const unsigned base = ptx::smem_addr(smem);
  const unsigned rank = cta_rank(), n = cluster_blocks();
  unsigned* words = reinterpret_cast<unsigned*>(smem);
  for (unsigned i = threadIdx.x; i < kBufferBytes / 4; i += blockDim.x)
    words[i] = core::hash32(i ^ (rank << 20));
  if constexpr (kMode == kLocal)
    __syncthreads();
  else
    cluster_sync_all();
  const unsigned neighbour = kMode == kNeighbour ? map_to_rank(base, (rank + 1) % n) : base;
  unsigned idx = threadIdx.x, acc = 0;
  for (int k = 0; k < iters; k += kUnroll) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const unsigned off = ((idx + u * blockDim.x) & (kVectors - 1)) * 16;
      if constexpr (kMode == kLocal) {
        acc ^= load_fold<false>(base + off);
      } else if constexpr (kMode == kNeighbour) {
        acc ^= load_fold<true>(neighbour + off);
      } else {
        const unsigned other = (rank + 1 + static_cast<unsigned>(k + u) % (n - 1)) % n;
        acc ^= load_fold<true>(map_to_rank(base, other) + off);
      }
    }
    idx = (idx + kUnroll * blockDim.x) & (kVectors - 1);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
  if constexpr (kMode != kLocal) cluster_sync_all();  // keep every buffer until all have read
}

// ---------------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------------

// Dynamic shared memory that leaves room for one block per SM: a "remote" rank is then
// another SM, never a block beside the reader.
std::size_t one_block_smem(const Context& ctx) {
  const std::size_t half = static_cast<std::size_t>(ctx.device.smem_per_sm) / 2 + KiB;
  return std::min(std::max(half, std::max(kBufferBytes, 2 * kRingBytes)),
                  static_cast<std::size_t>(ctx.device.smem_per_block_optin));
}

void allow(const void* kernel, std::size_t smem) {
  MEMHIER_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(smem)));
  MEMHIER_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
}

struct Chase {
  double cycles = NAN;
  bool ok = false;
};

// One warm-up launch, then `reps` timed ones; the median cycles per hop and whether the last
// chase ended where the ring does.
Chase run_chase(ChaseArgs a, int blocks, int cluster, std::size_t smem, int reps) {
  core::DeviceBuffer<long long> cycles(static_cast<std::size_t>(reps) + 1);
  core::DeviceBuffer<unsigned> ok(1);
  cycles.poison();
  ok.poison();
  for (int i = 0; i <= reps; ++i) {
    a.cycles = cycles.data() + i;
    a.ok = ok.data();
    void* args[] = {&a};
    core::launch_clustered(reinterpret_cast<const void*>(&dsmem_chase_kernel), args, blocks,
                           cluster, kChaseThreads, smem, nullptr);
  }
  MEMHIER_CUDA(cudaDeviceSynchronize());
  const std::vector<long long> host = cycles.download();
  std::vector<double> per_hop;
  for (int i = 1; i <= reps; ++i)
    if (host[static_cast<std::size_t>(i)] > 0)
      per_hop.push_back(static_cast<double>(host[static_cast<std::size_t>(i)]) / a.steps);
  return {median(per_hop), ok.download()[0] == 1u};
}

const void* read_kernel(int mode) {
  if (mode == kLocal) return reinterpret_cast<const void*>(&dsmem_read_kernel<kLocal>);
  if (mode == kNeighbour) return reinterpret_cast<const void*>(&dsmem_read_kernel<kNeighbour>);
  return reinterpret_cast<const void*>(&dsmem_read_kernel<kAllOthers>);
}

// GB/s of `blocks` blocks in clusters of `cluster` reading in `mode`, each launch about 2 ms.
double time_reads(int mode, int blocks, int cluster, std::size_t smem, Context& ctx,
                  const std::string& name) {
  const void* kernel = read_kernel(mode);
  core::DeviceBuffer<unsigned> out(static_cast<std::size_t>(blocks) * kReadThreads);
  unsigned* out_ptr = out.data();
  auto launch = [&](cudaStream_t s, int iters) {
    iters = (std::max(iters, 1) + kUnroll - 1) / kUnroll * kUnroll;
    void* args[] = {&iters, &out_ptr};
    core::launch_clustered(kernel, args, blocks, cluster, kReadThreads, smem, s);
  };
  const int iters = ctx.smallest
                        ? kUnroll
                        : (calibrate_passes(name, launch, ctx.quick ? 0.5 : 2.0) + kUnroll - 1) /
                              kUnroll * kUnroll;
  const core::Timing t =
      core::time_it([&](cudaStream_t s) { launch(s, iters); }, probe_timing(ctx, name));
  const double bytes = static_cast<double>(blocks) * kReadThreads * iters * 16.0;
  return gbps(bytes, t.median_ms);
}

void measure_size(DsmemClusterSize& z, DsmemResult& m, std::size_t smem, Context& ctx) {
  const int n = z.size;
  const void* chase = reinterpret_cast<const void*>(&dsmem_chase_kernel);
  z.active_clusters = core::max_active_clusters(chase, n, kChaseThreads, smem);
  const int read_clusters =
      core::max_active_clusters(read_kernel(kNeighbour), n, kReadThreads, smem);
  if (z.active_clusters < 1 || read_clusters < 1) {
    z.skipped = "cudaOccupancyMaxActiveClusters finds no place for a cluster of " +
                std::to_string(n) + " blocks with " + fmt_bytes(static_cast<double>(smem)) +
                " of shared memory each (one block per SM) on this card";
    return;
  }
  ChaseArgs a;
  a.lay = make_layout(kSlots, kStride, 1, 41);
  a.warm = static_cast<int>(kSlots) + 37;  // the chase ends off the ring's start
  a.steps = m.steps;
  for (int r = 0; r < n; ++r) {
    ctx.progress("dsmem: latency, cluster of " + std::to_string(n) + ", rank " + std::to_string(r));
    a.target = r;
    const Chase c = run_chase(a, n, n, smem, m.reps);
    z.cycles.push_back(c.cycles);
    z.reads_correct.push_back(c.ok);
  }
  ctx.progress("dsmem: bandwidth, cluster of " + std::to_string(n));
  z.blocks = read_clusters * n;
  const std::string tag = "dsmem-" + std::to_string(n);
  z.one_to_one_gbps = time_reads(kNeighbour, z.blocks, n, smem, ctx, tag + "-one-to-one");
  z.all_to_all_gbps = time_reads(kAllOthers, z.blocks, n, smem, ctx, tag + "-all-to-all");
}

}  // namespace

DsmemResult measure_dsmem(Context& ctx) {
  DsmemResult m;
  m.cc_major = ctx.device.cc_major;
  m.cc_minor = ctx.device.cc_minor;
  m.sm_count = ctx.device.sm_count;
  m.sm_clock_mhz = ctx.sm_clock_mhz;
  m.declined = core::kernel_unsupported("Distributed shared memory",
                                        reinterpret_cast<const void*>(&dsmem_chase_kernel),
                                        {90, false, 0, 2});
  if (!m.declined.empty()) return m;
  m.steps = ctx.quick ? 1024 : 4096;
  m.reps = ctx.smallest ? 1 : ctx.quick ? 3 : 5;
  m.ring_bytes = kRingBytes;
  m.buffer_bytes = kBufferBytes;
  m.threads = kReadThreads;
  m.smem_per_block = one_block_smem(ctx);
  allow(reinterpret_cast<const void*>(&dsmem_chase_kernel), m.smem_per_block);
  for (int mode : {kLocal, kNeighbour, kAllOthers}) allow(read_kernel(mode), m.smem_per_block);

  ctx.progress("dsmem: latency, own block");
  ChaseArgs local;
  local.lay = make_layout(kSlots, kStride, 1, 41);
  local.target = -1;
  local.warm = static_cast<int>(kSlots) + 37;
  local.steps = m.steps;
  m.local_cycles = run_chase(local, 1, 1, m.smem_per_block, m.reps).cycles;
  ctx.progress("dsmem: bandwidth, own block");
  m.local_blocks = ctx.device.sm_count;
  m.local_gbps = time_reads(kLocal, m.local_blocks, 1, m.smem_per_block, ctx, "dsmem-local");
  for (int n : kSizes) {
    DsmemClusterSize z;
    z.size = n;
    measure_size(z, m, m.smem_per_block, ctx);
    m.sizes.push_back(std::move(z));
  }
  return m;
}

std::vector<registry::Entry> dsmem_probes() {
  registry::Entry e;
  e.kind = "probe";
  e.family = "dsmem";
  e.name = "dsmem";
  e.technique =
      "thread-block clusters of 2-16 blocks, one per SM: rank 0 chases a ring in each rank's "
      "shared memory with ld.shared::cluster (mapa addresses), and every block reads its "
      "neighbour's or every rank's buffer, against ld.shared in its own";
  e.claim = {"003 §Cluster-Shared Memory",
             "blocks of a cluster read each other's shared memory (compute capability 9.0)"};
  e.run_probe = [](Context& ctx) { return present_dsmem(measure_dsmem(ctx)); };
  return {e};
}

}  // namespace memhier::probe
