// Probe "peer": the other GPUs of this machine, every ordered pair in one process. The copy
// engine against the SMs (loads from and stores to the peer's memory after
// cudaDeviceEnablePeerAccess), one way and both ways at once; a dependent load from the
// peer's memory; and the same bytes staged through pinned host memory, the path without P2P.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common.cuh"
#include "families.hpp"
#include "memhier/probe/peer.hpp"
#include "memhier/probe/unavailable.hpp"
#include "outer_kernels.cuh"

namespace memhier::probe {
namespace {

/// One GPU's buffers and stream, allocated on it.
struct Gpu {
  int id = 0;
  core::DeviceBuffer<char> src, dst;
  cudaStream_t stream = nullptr;
  Gpu(int d, std::uint64_t bytes) : id(d) {
    MEMHIER_CUDA(cudaSetDevice(d));
    src = core::DeviceBuffer<char>(bytes);
    dst = core::DeviceBuffer<char>(bytes);
    MEMHIER_CUDA(cudaMemset(src.data(), 0x11 + d, bytes));
    MEMHIER_CUDA(cudaMemset(dst.data(), 0, bytes));
    MEMHIER_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  }
  ~Gpu() {
    if (stream) {
      cudaSetDevice(id);
      cudaStreamDestroy(stream);
    }
  }
  Gpu(const Gpu&) = delete;
  Gpu& operator=(const Gpu&) = delete;
};

/// Median ms of `op_a` on GPU a's stream and `op_b` on GPU b's, b starting with a (or, with
/// `b_after_a`, when a's part is done), timed by a's events around both; with `gate`, a's
/// stream is held until both parts are enqueued.
double time_pair(Gpu& a, Gpu& b, int reps, outer::StreamGate* gate,
                 const std::function<void(cudaStream_t)>& op_a,
                 const std::function<void(cudaStream_t)>& op_b, bool b_after_a) {
  MEMHIER_CUDA(cudaSetDevice(a.id));
  outer::Event start, stop, a_done(cudaEventDisableTiming);
  MEMHIER_CUDA(cudaSetDevice(b.id));
  outer::Event b_done(cudaEventDisableTiming);
  std::vector<double> ms;
  for (int rep = -1; rep < reps; ++rep) {  // rep -1: warm-up
    MEMHIER_CUDA(cudaSetDevice(a.id));
    if (gate) gate->hold(a.stream);
    MEMHIER_CUDA(cudaEventRecord(start.e, a.stream));
    op_a(a.stream);
    MEMHIER_CUDA(cudaEventRecord(a_done.e, a.stream));
    MEMHIER_CUDA(cudaSetDevice(b.id));
    MEMHIER_CUDA(cudaStreamWaitEvent(b.stream, b_after_a ? a_done.e : start.e, 0));
    op_b(b.stream);
    MEMHIER_CUDA(cudaEventRecord(b_done.e, b.stream));
    MEMHIER_CUDA(cudaSetDevice(a.id));
    MEMHIER_CUDA(cudaStreamWaitEvent(a.stream, b_done.e, 0));
    MEMHIER_CUDA(cudaEventRecord(stop.e, a.stream));
    if (gate) gate->release();
    const double t = outer::elapsed_ms(start, stop);
    if (rep >= 0) ms.push_back(t);
  }
  return median(ms);
}

PeerCopy make_copy(int src, int dst, PeerMethod method, std::uint64_t bytes, double ms) {
  PeerCopy c;
  c.src = src;
  c.dst = dst;
  c.method = method;
  c.bytes = bytes;
  c.ms = ms;
  c.gbps = gbps(static_cast<double>(bytes), ms);
  return c;
}

PeerCopy declined(int src, int dst, PeerMethod method, std::uint64_t bytes, std::string why) {
  PeerCopy c;
  c.src = src;
  c.dst = dst;
  c.method = method;
  c.bytes = bytes;
  c.not_measured = std::move(why);
  return c;
}

std::string no_access(int from, int to) {
  return "GPU " + std::to_string(from) + " cannot access GPU " + std::to_string(to) +
         "'s memory (no P2P between them)";
}

PeerResult measure_peer_impl(Context& ctx) {
  int n = 0;
  MEMHIER_CUDA(cudaGetDeviceCount(&n));
  if (const std::string why = peer_unavailable(n); !why.empty()) throw Unavailable(why);
  outer::RestoreDevice restore;
  PeerResult m;
  m.gpus = n;
  m.sm_clock_mhz = ctx.sm_clock_mhz;
  m.device_memory_bytes = ctx.device.global_mem_bytes;
  std::uint64_t bytes = ctx.smallest ? 4 * MiB : ctx.quick ? 64 * MiB : 256 * MiB;
  for (int d = 0; d < n; ++d) {
    cudaDeviceProp p{};
    MEMHIER_CUDA(cudaGetDeviceProperties(&p, d));
    m.names.push_back(p.name);
    MEMHIER_CUDA(cudaSetDevice(d));
    bytes = std::min<std::uint64_t>(bytes, free_device_bytes() / 4 / MiB * MiB);
  }
  // 4 MiB at least: the latency ring (2 MiB at most) is laid in one of these buffers
  if (bytes < 4 * MiB) throw std::runtime_error("less than 16 MiB of memory is free on some GPU");
  m.buffer_bytes = bytes;

  outer::PeerAccess access;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      PeerPair pp;
      pp.src = i;
      pp.dst = j;
      int v = 0;
      MEMHIER_CUDA(cudaDeviceCanAccessPeer(&v, i, j));
      pp.can_access = v != 0;
      if (pp.can_access) {
        MEMHIER_CUDA(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrPerformanceRank, i, j));
        pp.performance_rank = v;
        MEMHIER_CUDA(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrNativeAtomicSupported, i, j));
        pp.native_atomics = v != 0;
        access.enable(i, j);
      }
      m.pairs.push_back(pp);
    }
  auto can = [&](int from, int to) {
    for (const PeerPair& pp : m.pairs)
      if (pp.src == from && pp.dst == to) return pp.can_access;
    return false;
  };

  std::vector<std::unique_ptr<Gpu>> gpu;
  for (int d = 0; d < n; ++d) gpu.push_back(std::make_unique<Gpu>(d, bytes));
  outer::StreamGate gate_storage;
  // Under compute-sanitizer (smallest) a launch may block the host: no spin to release.
  outer::StreamGate* gate = ctx.smallest ? nullptr : &gate_storage;
  void* staging = nullptr;
  MEMHIER_CUDA_ALLOC(cudaHostAlloc(&staging, bytes, cudaHostAllocPortable), bytes);
  std::unique_ptr<void, decltype(&cudaFreeHost)> staging_owner(staging, &cudaFreeHost);
  const int reps = ctx.smallest ? 1 : ctx.quick ? 3 : 7;
  auto nothing = [](cudaStream_t) {};

  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      Gpu& a = *gpu[i];
      Gpu& b = *gpu[j];
      ctx.progress("peer: GPU " + std::to_string(i) + " -> GPU " + std::to_string(j));
      auto ce = [&](cudaStream_t s) {
        MEMHIER_CUDA(cudaMemcpyPeerAsync(b.dst.data(), j, a.src.data(), i, bytes, s));
      };
      m.copies.push_back(make_copy(i, j, PeerMethod::copy_engine, bytes,
                                   time_pair(a, b, reps, gate, ce, nothing, false)));
      // The destination's SMs pull: b runs the kernel, a's stream only frames it.
      if (can(j, i))
        m.copies.push_back(make_copy(
            i, j, PeerMethod::sm_load, bytes,
            time_pair(
                a, b, reps, gate, nothing,
                [&](cudaStream_t s) { outer::sm_copy(b.dst.data(), a.src.data(), bytes, s); },
                false)));
      else
        m.copies.push_back(declined(i, j, PeerMethod::sm_load, bytes, no_access(j, i)));
      if (can(i, j))
        m.copies.push_back(make_copy(
            i, j, PeerMethod::sm_store, bytes,
            time_pair(
                a, b, reps, gate,
                [&](cudaStream_t s) { outer::sm_copy(b.dst.data(), a.src.data(), bytes, s); },
                nothing, false)));
      else
        m.copies.push_back(declined(i, j, PeerMethod::sm_store, bytes, no_access(i, j)));
      m.copies.push_back(make_copy(i, j, PeerMethod::staged_host, bytes,
                                   time_pair(
                                       a, b, reps, gate,
                                       [&](cudaStream_t s) {
                                         MEMHIER_CUDA(cudaMemcpyAsync(staging, a.src.data(), bytes,
                                                                      cudaMemcpyDeviceToHost, s));
                                       },
                                       [&](cudaStream_t s) {
                                         MEMHIER_CUDA(cudaMemcpyAsync(b.dst.data(), staging, bytes,
                                                                      cudaMemcpyHostToDevice, s));
                                       },
                                       true)));
      if (i < j) {  // both ways: once per unordered pair
        ctx.progress("peer: GPU " + std::to_string(i) + " <-> GPU " + std::to_string(j));
        m.copies.push_back(make_copy(i, j, PeerMethod::copy_engine_both, 2 * bytes,
                                     time_pair(
                                         a, b, reps, gate, ce,
                                         [&](cudaStream_t s) {
                                           MEMHIER_CUDA(cudaMemcpyPeerAsync(
                                               a.dst.data(), i, b.src.data(), j, bytes, s));
                                         },
                                         false)));
        if (can(i, j) && can(j, i))
          m.copies.push_back(make_copy(
              i, j, PeerMethod::sm_load_both, 2 * bytes,
              time_pair(
                  a, b, reps, gate,
                  [&](cudaStream_t s) { outer::sm_copy(a.dst.data(), b.src.data(), bytes, s); },
                  [&](cudaStream_t s) { outer::sm_copy(b.dst.data(), a.src.data(), bytes, s); },
                  false)));
        else
          m.copies.push_back(declined(i, j, PeerMethod::sm_load_both, 2 * bytes,
                                      can(i, j) ? no_access(j, i) : no_access(i, j)));
      }
    }

  // Remote-load latency: the reader chases a ring laid in the owner's memory.
  m.chase_steps = ctx.smallest ? 64 : ctx.quick ? 512 : 2048;
  constexpr std::uint64_t kStride = 512;
  const std::uint64_t slots = 2 * static_cast<std::uint64_t>(m.chase_steps);
  const std::vector<std::uint32_t> ring = make_ring(slots, kStride, 20261129u);
  for (int owner = 0; owner < n; ++owner) {
    MEMHIER_CUDA(cudaSetDevice(owner));
    MEMHIER_CUDA(cudaMemcpy(gpu[owner]->dst.data(), ring.data(),
                            ring.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
    for (int reader = 0; reader < n; ++reader) {
      if (reader == owner) continue;
      PeerLatency l;
      l.reader = reader;
      l.owner = owner;
      if (!can(reader, owner)) {
        l.not_measured = no_access(reader, owner);
      } else {
        ctx.progress("peer: GPU " + std::to_string(reader) + " loads from GPU " +
                     std::to_string(owner));
        MEMHIER_CUDA(cudaSetDevice(reader));
        l.cycles = outer::chase_cycles(gpu[owner]->dst.data(), m.chase_steps);
        l.ns = cycles_to_ns(l.cycles, ctx.sm_clock_mhz);
      }
      m.latencies.push_back(l);
    }
  }
  return m;
}

Result run_peer(Context& ctx) {
  return present_peer(measure_peer(ctx));
}

}  // namespace

PeerResult measure_peer(Context& ctx) {
  return measure_peer_impl(ctx);
}

std::vector<registry::Entry> peer_probes() {
  registry::Entry e;
  e.kind = "probe";
  e.family = "peer";
  e.name = "peer";
  e.technique =
      "every pair of GPUs: copy engine against SM loads and stores over P2P, one way and both, "
      "remote-load latency, and the path staged through host memory";
  e.claim = {"memhier goal: the peer tier",
             "SM loads over P2P reach the copy engine's bandwidth; both ways at once doubles it; "
             "staging through the host costs most of it"};
  e.min_gpus = 2;
  e.run_probe = run_peer;
  return {std::move(e)};
}

}  // namespace memhier::probe
