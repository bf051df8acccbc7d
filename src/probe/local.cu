// Probe "local-memory": local memory's bandwidth, from a stream the compiler cannot keep in
// registers. Every resident thread writes a 4 KiB array and reads it back at indices that
// depend on a run-time rotation (dynamic indexing: the array must live in local memory,
// checked with cudaFuncGetAttributes); all threads together span far more than L1 and L2,
// so the stream reaches DRAM. Its twin runs the same loop on a global buffer laid out as
// local memory is (word k of thread t at k * threads + t), and the two are timed paired.
#include <algorithm>
#include <cstdint>
#include <string>

#include "common.cuh"
#include "families.hpp"
#include "memhier/probe/local.hpp"

namespace memhier::probe {
namespace {

constexpr int kBlock = 256;
constexpr std::uint32_t kWords = 1024;  // 4 KiB per thread: 8 MiB per full SM
constexpr int kUnroll = 8;              // loads (and stores) in flight per thread

// A per-thread array: indexed at run time, it is placed in local memory.
struct LocalArray {
  std::uint32_t w[kWords];
  __device__ std::uint32_t& operator[](std::uint32_t k) { return w[k]; }
};

// The same array in a global buffer, with local memory's interleaving: consecutive threads'
// words k are adjacent, so a warp's access to one k is 128 contiguous bytes in both.
struct GlobalArray {
  std::uint32_t* base;   // this thread's word 0
  std::uint64_t stride;  // threads in the launch
  __device__ std::uint32_t& operator[](std::uint32_t k) { return base[k * stride]; }
};

// Writes every word, then reads them back in the same warp-uniform rotated order: each word
// is read 1024 steps after its write, when every thread of the SM has written 4 KiB since.
template <class Array>
__device__ __forceinline__ std::uint32_t stream(Array& a, std::uint32_t rot, std::uint32_t acc) {
#pragma unroll kUnroll
  for (std::uint32_t k = 0; k < kWords; ++k) a[(k + rot) & (kWords - 1)] = acc + k;
#pragma unroll kUnroll
  for (std::uint32_t k = 0; k < kWords; ++k) acc ^= a[(k + rot) & (kWords - 1)];
  return acc;
}

__global__ void __launch_bounds__(kBlock)
    local_stream_kernel(std::uint32_t rot, std::uint32_t* __restrict__ out) {
  const std::uint64_t tid = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
  LocalArray a;
  out[tid] = stream(a, rot, static_cast<std::uint32_t>(tid));
}

__global__ void __launch_bounds__(kBlock)
    global_stream_kernel(std::uint32_t rot, std::uint32_t* __restrict__ buf,
                         std::uint32_t* __restrict__ out) {
  const std::uint64_t tid = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
  const std::uint64_t threads = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  GlobalArray a{buf + tid, threads};
  out[tid] = stream(a, rot, static_cast<std::uint32_t>(tid));
}

Result run_local(Context& ctx) {
  return present_local(measure_local(ctx));
}

}  // namespace

LocalResult measure_local(Context& ctx) {
  LocalResult m;
  m.array_bytes = static_cast<int>(kWords * sizeof(std::uint32_t));
  m.sm_count = ctx.device.sm_count;
  m.l2_bytes = static_cast<std::uint64_t>(std::max(ctx.device.l2_bytes, 1));
  cudaFuncAttributes attr{};
  MEMHIER_CUDA(cudaFuncGetAttributes(&attr, local_stream_kernel));
  m.local_bytes = static_cast<int>(attr.localSizeBytes);
  const int grid = std::min(full_grid(local_stream_kernel, kBlock, ctx),
                            full_grid(global_stream_kernel, kBlock, ctx));
  m.threads = static_cast<std::uint64_t>(grid) * kBlock;
  if (m.local_bytes < m.array_bytes) {
    m.unmeasured = "the compiler kept the array out of local memory (local size " +
                   std::to_string(m.local_bytes) + " B per thread)";
    return m;
  }
  // The driver backs local memory for every thread the device can hold, and the twin needs
  // the same footprint again: both must fit with room to spare.
  const double reserve = static_cast<double>(m.local_bytes) * ctx.device.sm_count *
                         std::max(ctx.device.max_threads_per_sm, 1);
  if (reserve + m.footprint_bytes() > 0.5 * static_cast<double>(free_device_bytes())) {
    m.unmeasured = "the local-memory reservation (" + fmt_mib(reserve) + ") and its twin (" +
                   fmt_mib(m.footprint_bytes()) + ") need more than half the free memory";
    return m;
  }
  core::DeviceBuffer<std::uint32_t> buf(m.threads * kWords), out(m.threads);
  m.bytes_per_launch = 2.0 * m.footprint_bytes();
  std::uint32_t rot = 0;  // a new rotation every launch: nothing carries over but the bytes
  auto local = [&](cudaStream_t s) {
    local_stream_kernel<<<grid, kBlock, 0, s>>>(rot++ & (kWords - 1), out.data());
    MEMHIER_CHECK_LAUNCH();
  };
  auto global = [&](cudaStream_t s) {
    global_stream_kernel<<<grid, kBlock, 0, s>>>(rot++ & (kWords - 1), buf.data(), out.data());
    MEMHIER_CHECK_LAUNCH();
  };
  ctx.progress("local-memory: local and global streams, paired");
  const core::PairedTiming t = core::time_paired({local, global}, probe_timing(ctx, "local"));
  m.local_ms = t.each[0].median_ms;
  m.global_ms = t.each[1].median_ms;
  m.local_gbps = gbps(m.bytes_per_launch, m.local_ms);
  m.global_gbps = gbps(m.bytes_per_launch, m.global_ms);
  const core::RatioStats r = t.ratio(1, 0);
  m.local_over_global = r.median;
  m.p10 = r.p10;
  m.p90 = r.p90;
  return m;
}

std::vector<registry::Entry> local_probes() {
  registry::Entry e;
  e.kind = "probe";
  e.family = "local";
  e.name = "local-memory";
  e.technique =
      "every resident thread writes and reads back a 4 KiB dynamically indexed array (local "
      "memory, far beyond L1 and L2 in all), paired with the same stream through global memory";
  e.claim = {"000 §The Five Memory Spaces: Real Numbers", "local memory 3.35 TB/s: it is HBM"};
  e.run_probe = run_local;
  return {e};
}

}  // namespace memhier::probe
