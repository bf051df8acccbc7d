// Probe "host": the tier beyond the card's own memory on the host's side. Copies between
// host memory and this GPU by the copy engine and by the SMs, from pinned, pageable and
// registered memory over a size sweep; a copy overlapped with compute on two streams;
// managed memory reaching the GPU by faults, by prefetch and under access hints; and the
// latency of one SM load from mapped host memory.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common.cuh"
#include "families.hpp"
#include "memhier/probe/host.hpp"
#include "outer_kernels.cuh"

namespace memhier::probe {
namespace {

// 1 GiB at most: on the lent machines host memory is granted as it is used.
constexpr std::uint64_t kSweepMax = GiB;

/// Host memory of one kind, freed on scope exit; null with the reason when allocation failed.
struct HostBuffer {
  HostMemory kind = HostMemory::pinned;
  void* ptr = nullptr;
  std::uint64_t bytes = 0;
  std::string why_not;

  HostBuffer(HostMemory k, std::uint64_t n) : kind(k), bytes(n) {
    if (kind == HostMemory::pinned) {
      const cudaError_t e = cudaHostAlloc(&ptr, n, cudaHostAllocMapped | cudaHostAllocPortable);
      if (e != cudaSuccess) {
        cudaGetLastError();
        ptr = nullptr;
        why_not = "cudaHostAlloc of " + fmt_bytes(static_cast<double>(n)) + " failed (" +
                  cudaGetErrorString(e) + ")";
      }
      return;
    }
    ptr = std::aligned_alloc(4096, (n + 4095) / 4096 * 4096);
    if (!ptr) {
      why_not = "the host has no " + fmt_bytes(static_cast<double>(n)) + " to allocate";
      return;
    }
    std::memset(ptr, 0x5a, n);  // every page present before any copy
    if (kind == HostMemory::registered) {
      const cudaError_t e =
          cudaHostRegister(ptr, n, cudaHostRegisterMapped | cudaHostRegisterPortable);
      if (e != cudaSuccess) {
        cudaGetLastError();
        std::free(ptr);
        ptr = nullptr;
        why_not = "cudaHostRegister of " + fmt_bytes(static_cast<double>(n)) + " failed (" +
                  cudaGetErrorString(e) + ")";
      }
    }
  }
  ~HostBuffer() {
    if (!ptr) return;
    if (kind == HostMemory::pinned) {
      cudaFreeHost(ptr);
      return;
    }
    if (kind == HostMemory::registered) cudaHostUnregister(ptr);
    std::free(ptr);
  }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  /// The device's pointer to the buffer (pinned and registered are mapped).
  void* device_ptr() const {
    void* d = nullptr;
    MEMHIER_CUDA(cudaHostGetDevicePointer(&d, ptr, 0));
    return d;
  }
};

int reps_for(const Context& ctx) {
  return ctx.smallest ? 1 : ctx.quick ? 3 : 7;
}

/// Copies per sample: enough to dwarf the events at small sizes, one at large ones.
int batch_for(std::uint64_t bytes, const Context& ctx) {
  if (ctx.smallest) return 1;
  const std::uint64_t target = ctx.quick ? 16 * MiB : 64 * MiB;
  return static_cast<int>(std::clamp<std::uint64_t>(target / bytes, 1, 64));
}

void sweep(HostResult& m, Context& ctx, const std::vector<std::uint64_t>& sizes, HostMemory kind,
           void* device_buf, outer::StreamGate& gate, cudaStream_t s) {
  HostBuffer host(kind, m.max_bytes);
  if (!host.ptr) {
    m.skipped.push_back({kind, host.why_not});
    return;
  }
  std::vector<Mover> movers = {Mover::copy_engine};
  if (kind == HostMemory::pinned) movers.push_back(Mover::sm);
  for (Mover mover : movers)
    for (HostDirection dir : {HostDirection::host_to_device, HostDirection::device_to_host}) {
      ctx.progress(std::string("host: ") + to_string(kind) + " " + to_string(dir) + " by " +
                   to_string(mover));
      void* h = mover == Mover::sm ? host.device_ptr() : host.ptr;
      for (std::uint64_t bytes : sizes) {
        void* dst = dir == HostDirection::host_to_device ? device_buf : h;
        const void* src = dir == HostDirection::host_to_device ? h : device_buf;
        const cudaMemcpyKind k =
            dir == HostDirection::host_to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
        HostCopy c;
        c.memory = kind;
        c.direction = dir;
        c.mover = mover;
        c.bytes = bytes;
        c.batch = batch_for(bytes, ctx);
        const double ms = outer::time_batch(
            s, c.batch, reps_for(ctx),
            [&](cudaStream_t st) {
              if (mover == Mover::sm)
                outer::sm_copy(dst, src, bytes, st);
              else
                MEMHIER_CUDA(cudaMemcpyAsync(dst, src, bytes, k, st));
            },
            // Pageable copies block the host until staged: a held stream would never drain.
            // Under compute-sanitizer (smallest) launches may block the host too.
            kind == HostMemory::pageable || ctx.smallest ? nullptr : &gate);
        c.us = ms * 1e3;
        c.gbps = gbps(static_cast<double>(bytes), ms);
        m.copies.push_back(c);
      }
    }
}

void measure_overlap(HostResult& m, Context& ctx, void* device_buf, std::uint32_t* sink) {
  ctx.progress("host: copy/compute overlap");
  m.overlap.bytes = std::min<std::uint64_t>(m.max_bytes, ctx.quick ? 64 * MiB : 256 * MiB);
  HostBuffer host(HostMemory::pinned, m.overlap.bytes);
  if (!host.ptr) return;  // the sweep's skip row says why
  outer::Stream a, b;
  const int reps = reps_for(ctx);
  const std::uint64_t n = m.overlap.bytes;
  auto copy = [&](cudaStream_t s) {
    MEMHIER_CUDA(cudaMemcpyAsync(device_buf, host.ptr, n, cudaMemcpyHostToDevice, s));
  };
  m.overlap.copy_ms = outer::time_batch(a.s, 1, reps, copy, nullptr);
  // An arithmetic kernel about as long as the copy: the best case for overlap.
  int iters = 4096;
  const double probe_ms = outer::time_batch(
      a.s, 1, 1, [&](cudaStream_t s) { outer::arithmetic(iters, sink, s); }, nullptr);
  iters =
      static_cast<int>(std::clamp(iters * m.overlap.copy_ms / std::max(probe_ms, 1e-3), 64.0, 5e8));
  auto compute = [&](cudaStream_t s) { outer::arithmetic(iters, sink, s); };
  m.overlap.compute_ms = outer::time_batch(a.s, 1, reps, compute, nullptr);
  m.overlap.serial_ms = outer::time_batch(
      a.s, 1, reps,
      [&](cudaStream_t s) {
        copy(s);
        compute(s);
      },
      nullptr);
  // Overlapped: b waits for a's start, a waits for b's end, so a's events span both.
  outer::Event started(cudaEventDisableTiming), b_done(cudaEventDisableTiming);
  m.overlap.overlapped_ms = outer::time_batch(
      a.s, 1, reps,
      [&](cudaStream_t s) {
        MEMHIER_CUDA(cudaEventRecord(started.e, s));
        MEMHIER_CUDA(cudaStreamWaitEvent(b.s, started.e, 0));
        compute(b.s);
        MEMHIER_CUDA(cudaEventRecord(b_done.e, b.s));
        copy(s);
        MEMHIER_CUDA(cudaStreamWaitEvent(s, b_done.e, 0));
      },
      nullptr);
}

void prefetch_to(const void* p, std::size_t n, int device, cudaStream_t s) {
#if CUDART_VERSION >= 13000
  cudaMemLocation loc{};
  loc.type = cudaMemLocationTypeDevice;
  loc.id = device;
  MEMHIER_CUDA(cudaMemPrefetchAsync(p, n, loc, 0, s));
#else
  MEMHIER_CUDA(cudaMemPrefetchAsync(p, n, device, s));
#endif
}

void advise(const void* p, std::size_t n, cudaMemoryAdvise a, bool on_host, int device) {
#if CUDART_VERSION >= 13000
  cudaMemLocation loc{};
  loc.type = on_host ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
  loc.id = on_host ? 0 : device;
  MEMHIER_CUDA(cudaMemAdvise(p, n, a, loc));
#else
  MEMHIER_CUDA(cudaMemAdvise(p, n, a, on_host ? cudaCpuDeviceId : device));
#endif
}

void measure_managed(HostResult& m, Context& ctx, std::uint32_t* sink) {
  int device = 0, concurrent = 0;
  MEMHIER_CUDA(cudaGetDevice(&device));
  MEMHIER_CUDA(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, device));
  if (!concurrent) {
    m.managed_not_measured =
        "this GPU and driver migrate managed memory only at launch (no concurrent managed "
        "access), so there are no page faults to time";
    return;
  }
  const std::uint64_t bytes =
      std::min<std::uint64_t>(m.max_bytes, ctx.quick ? 64 * MiB : 256 * MiB);
  void* p = nullptr;
  MEMHIER_CUDA_ALLOC(cudaMallocManaged(&p, bytes), bytes);
  std::unique_ptr<void, decltype(&cudaFree)> owner(p, &cudaFree);
  outer::Stream s;
  const int reps = ctx.smallest ? 1 : 3;
  for (ManagedMethod method : {ManagedMethod::fault, ManagedMethod::prefetch,
                               ManagedMethod::read_mostly, ManagedMethod::accessed_by}) {
    ctx.progress(std::string("host: managed memory, ") + to_string(method));
    ManagedMigration r;
    r.method = method;
    r.bytes = bytes;
    r.pages = bytes / m.host_page_bytes;
    // Each method starts from a clean slate: no hints, every page written by the host last.
    advise(p, bytes, cudaMemAdviseUnsetReadMostly, false, device);
    advise(p, bytes, cudaMemAdviseUnsetPreferredLocation, false, device);
    advise(p, bytes, cudaMemAdviseUnsetAccessedBy, false, device);
    if (method == ManagedMethod::read_mostly)
      advise(p, bytes, cudaMemAdviseSetReadMostly, false, device);
    if (method == ManagedMethod::accessed_by) {
      advise(p, bytes, cudaMemAdviseSetPreferredLocation, true, device);
      advise(p, bytes, cudaMemAdviseSetAccessedBy, false, device);
    }
    std::vector<double> pre, ker;
    outer::Event e0, e1, e2;
    for (int rep = 0; rep < reps; ++rep) {
      std::memset(p, rep + 1, bytes);  // the host writes last: the pages are the host's
      MEMHIER_CUDA(cudaEventRecord(e0.e, s.s));
      if (method == ManagedMethod::prefetch) prefetch_to(p, bytes, device, s.s);
      MEMHIER_CUDA(cudaEventRecord(e1.e, s.s));
      outer::sm_read(p, bytes, sink, s.s);
      MEMHIER_CUDA(cudaEventRecord(e2.e, s.s));
      ker.push_back(outer::elapsed_ms(e1, e2));
      pre.push_back(outer::elapsed_ms(e0, e1));
    }
    if (method == ManagedMethod::prefetch) r.prefetch_ms = median(pre);
    r.kernel_ms = median(ker);
    m.managed.push_back(r);
  }
  advise(p, bytes, cudaMemAdviseUnsetReadMostly, false, device);
  advise(p, bytes, cudaMemAdviseUnsetPreferredLocation, false, device);
  advise(p, bytes, cudaMemAdviseUnsetAccessedBy, false, device);
}

void measure_mapped_latency(HostResult& m, Context& ctx) {
  ctx.progress("host: mapped-memory latency");
  m.chase_steps = ctx.smallest ? 64 : ctx.quick ? 512 : 2048;
  constexpr std::uint64_t kStride = 512;  // several lines apart: no two hops share a line
  const std::uint64_t slots = 2 * static_cast<std::uint64_t>(m.chase_steps);
  m.chase_ring_bytes = slots * kStride;
  HostBuffer ring(HostMemory::pinned, m.chase_ring_bytes);
  if (!ring.ptr) return;
  const std::vector<std::uint32_t> words = make_ring(slots, kStride, 20261129u);
  std::memcpy(ring.ptr, words.data(), words.size() * sizeof(std::uint32_t));
  m.mapped_latency_cycles = outer::chase_cycles(ring.device_ptr(), m.chase_steps);
}

HostResult measure_host_impl(Context& ctx) {
  HostResult m;
  m.sm_clock_mhz = ctx.sm_clock_mhz;
  m.host_page_bytes = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  m.host_memory_bytes = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * m.host_page_bytes;
  const std::uint64_t cap = ctx.smallest ? 4 * MiB : ctx.quick ? 64 * MiB : kSweepMax;
  // A quarter of free device memory and of the host's physical memory at most: the host's
  // free memory says little where it is granted as it is used, so a failed host allocation
  // is what stops a series (its rows then say why).
  const std::uint64_t max =
      std::min<std::uint64_t>({cap, free_device_bytes() / 4, m.host_memory_bytes / 4}) /
      (4 * KiB) * (4 * KiB);  // whole pages: every size of the sweep stays 16-byte aligned
  if (max < 4 * KiB) throw std::runtime_error("less than 16 KiB of device or host memory is free");
  const std::vector<std::uint64_t> sizes = geometric_sizes(4 * KiB, max, ctx.quick ? 16 : 4);
  m.max_bytes = sizes.back();
  core::DeviceBuffer<char> device_buf(m.max_bytes);
  MEMHIER_CUDA(cudaMemset(device_buf.data(), 0x3c, m.max_bytes));
  core::DeviceBuffer<std::uint32_t> sink(1);
  outer::StreamGate gate;
  outer::Stream s;
  for (HostMemory kind : {HostMemory::pinned, HostMemory::pageable, HostMemory::registered})
    sweep(m, ctx, sizes, kind, device_buf.data(), gate, s.s);
  measure_overlap(m, ctx, device_buf.data(), sink.data());
  measure_mapped_latency(m, ctx);
  measure_managed(m, ctx, sink.data());
  return m;
}

Result run_host(Context& ctx) {
  return present_host(measure_host(ctx));
}

}  // namespace

HostResult measure_host(Context& ctx) {
  return measure_host_impl(ctx);
}

std::vector<registry::Entry> host_probes() {
  registry::Entry e;
  e.kind = "probe";
  e.family = "host";
  e.name = "host";
  e.technique =
      "host<->device by copy engine and by SM from pinned, pageable and registered memory, "
      "4 KiB to 1 GiB; copy/compute overlap; managed memory by fault, prefetch and hints";
  e.claim = {"memhier goal: the host tier",
             "pinned copies reach the link's bandwidth; pageable ones are staged and slower; "
             "prefetching managed memory beats migrating it page fault by page fault"};
  e.run_probe = run_host;
  return {std::move(e)};
}

}  // namespace memhier::probe
