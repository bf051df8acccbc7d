// Probe "collectives": all-reduce, all-gather, reduce-scatter and broadcast through NCCL (the
// toolkit's library, no transport of our own), one communicator per visible GPU in one
// process, by size, with nccl-tests' bus bandwidth, every output checked exactly.
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "common.cuh"
#include "families.hpp"
#include "memhier/probe/collectives.hpp"
#include "memhier/probe/unavailable.hpp"
#include "outer_kernels.cuh"

#ifdef MEMHIER_HAVE_NCCL
#include "nccl_call.cuh"
#endif

namespace memhier::probe {

bool nccl_built() {
#ifdef MEMHIER_HAVE_NCCL
  return true;
#else
  return false;
#endif
}

namespace {

#ifdef MEMHIER_HAVE_NCCL

// Inputs are small integers, so every sum is exact in float: element k of a vector that
// starts at element `offset` of its pattern is a + b * ((offset + k) % 13).
constexpr std::uint64_t kPeriod = 13;

__global__ void fill_kernel(float* p, std::uint64_t n, float a, std::uint64_t offset) {
  for (std::uint64_t k = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; k < n;
       k += std::uint64_t{gridDim.x} * blockDim.x)
    p[k] = a + static_cast<float>((offset + k) % kPeriod);
}

__global__ void mismatch_kernel(const float* p, std::uint64_t n, float a, float b,
                                std::uint64_t offset, unsigned long long* wrong) {
  unsigned long long mine = 0;
  for (std::uint64_t k = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; k < n;
       k += std::uint64_t{gridDim.x} * blockDim.x)
    mine += p[k] != a + b * static_cast<float>((offset + k) % kPeriod);  // NaN poison differs
  if (mine) atomicAdd(wrong, mine);
}

/// One rank: its GPU, stream, communicator and buffers.
struct Rank {
  int device = 0;
  cudaStream_t stream = nullptr;
  ncclComm_t comm = nullptr;
  core::DeviceBuffer<float> send, recv;
  core::DeviceBuffer<unsigned long long> wrong;
  ~Rank() {
    cudaSetDevice(device);
    if (comm) ncclCommDestroy(comm);
    if (stream) cudaStreamDestroy(stream);
  }
};

/// Enqueues `op` of `count` elements (the send count) on every rank, as one NCCL group.
void launch(Collective op, std::vector<std::unique_ptr<Rank>>& ranks, std::uint64_t count) {
  MEMHIER_NCCL(ncclGroupStart());
  for (auto& r : ranks) {
    switch (op) {
      case Collective::all_reduce:
        MEMHIER_NCCL(ncclAllReduce(r->send.data(), r->recv.data(), count, ncclFloat, ncclSum,
                                   r->comm, r->stream));
        break;
      case Collective::all_gather:
        MEMHIER_NCCL(
            ncclAllGather(r->send.data(), r->recv.data(), count, ncclFloat, r->comm, r->stream));
        break;
      case Collective::reduce_scatter:
        MEMHIER_NCCL(ncclReduceScatter(r->send.data(), r->recv.data(), count / ranks.size(),
                                       ncclFloat, ncclSum, r->comm, r->stream));
        break;
      case Collective::broadcast:
        MEMHIER_NCCL(
            ncclBroadcast(r->send.data(), r->recv.data(), count, ncclFloat, 0, r->comm, r->stream));
        break;
    }
  }
  MEMHIER_NCCL(ncclGroupEnd());
}

void sync_all(std::vector<std::unique_ptr<Rank>>& ranks) {
  for (auto& r : ranks) {
    MEMHIER_CUDA(cudaSetDevice(r->device));
    MEMHIER_CUDA(cudaStreamSynchronize(r->stream));
  }
}

/// Fills every rank's input and poisons its output (NaN) for `op` at `count`.
void prepare(Collective op, std::vector<std::unique_ptr<Rank>>& ranks, std::uint64_t count) {
  const std::uint64_t n = ranks.size();
  for (std::uint64_t q = 0; q < n; ++q) {
    Rank& r = *ranks[q];
    MEMHIER_CUDA(cudaSetDevice(r.device));
    fill_kernel<<<outer::stride_blocks(count), outer::kStrideThreads, 0, r.stream>>>(
        r.send.data(), count, static_cast<float>(q + 1), 0);
    MEMHIER_CHECK_LAUNCH();
    const std::uint64_t out = op == Collective::all_gather       ? count * n
                              : op == Collective::reduce_scatter ? count / n
                                                                 : count;
    MEMHIER_CUDA(cudaMemsetAsync(r.recv.data(), 0xFF, out * sizeof(float), r.stream));
  }
  sync_all(ranks);
}

/// Output elements, over every rank, that differ from the exact result.
std::uint64_t count_wrong(Collective op, std::vector<std::unique_ptr<Rank>>& ranks,
                          std::uint64_t count) {
  const std::uint64_t n = ranks.size();
  const float tri = static_cast<float>(n * (n + 1) / 2), nf = static_cast<float>(n);
  std::uint64_t total = 0;
  for (std::uint64_t q = 0; q < n; ++q) {
    Rank& r = *ranks[q];
    MEMHIER_CUDA(cudaSetDevice(r.device));
    MEMHIER_CUDA(cudaMemsetAsync(r.wrong.data(), 0, sizeof(unsigned long long), r.stream));
    auto check = [&](const float* p, std::uint64_t len, float a, float b, std::uint64_t off) {
      mismatch_kernel<<<outer::stride_blocks(len), outer::kStrideThreads, 0, r.stream>>>(
          p, len, a, b, off, r.wrong.data());
      MEMHIER_CHECK_LAUNCH();
    };
    switch (op) {
      case Collective::all_reduce:
        check(r.recv.data(), count, tri, nf, 0);
        break;
      case Collective::broadcast:
        check(r.recv.data(), count, 1, 1, 0);
        break;
      case Collective::all_gather:
        for (std::uint64_t from = 0; from < n; ++from)
          check(r.recv.data() + from * count, count, static_cast<float>(from + 1), 1, 0);
        break;
      case Collective::reduce_scatter:
        check(r.recv.data(), count / n, tri, nf, q * (count / n));
        break;
    }
    unsigned long long w = 0;
    MEMHIER_CUDA(cudaMemcpyAsync(&w, r.wrong.data(), sizeof(w), cudaMemcpyDeviceToHost, r.stream));
    MEMHIER_CUDA(cudaStreamSynchronize(r.stream));
    total += w;
  }
  return total;
}

CollectivesResult run_nccl(Context& ctx, int n) {
  outer::RestoreDevice restore;

  CollectivesResult m;
  m.ranks = n;
  MEMHIER_NCCL(ncclGetVersion(&m.nccl_version));
  std::uint64_t max_bytes = ctx.smallest ? MiB : ctx.quick ? 64 * MiB : GiB;
  for (int d = 0; d < n; ++d) {
    cudaDeviceProp p{};
    MEMHIER_CUDA(cudaGetDeviceProperties(&p, d));
    m.names.push_back(p.name);
    MEMHIER_CUDA(cudaSetDevice(d));
    // send and receive buffers of max_bytes each, a quarter of free memory at most
    max_bytes = std::min<std::uint64_t>(max_bytes, free_device_bytes() / 8 / MiB * MiB);
  }
  if (max_bytes < MiB) throw std::runtime_error("less than 8 MiB of memory is free on some GPU");

  const std::vector<ncclComm_t> comms = nccl_comms(n, &m.nvls_was);
  std::vector<std::unique_ptr<Rank>> ranks;
  for (int d = 0; d < n; ++d) {
    auto r = std::make_unique<Rank>();
    r->device = d;
    r->comm = comms[d];
    ranks.push_back(std::move(r));
  }
  for (auto& r : ranks) {
    MEMHIER_CUDA(cudaSetDevice(r->device));
    MEMHIER_CUDA(cudaStreamCreateWithFlags(&r->stream, cudaStreamNonBlocking));
    r->send = core::DeviceBuffer<float>(max_bytes / sizeof(float));
    r->recv = core::DeviceBuffer<float>(max_bytes / sizeof(float));
    r->wrong = core::DeviceBuffer<unsigned long long>(1);
  }

  const int reps = ctx.smallest ? 1 : ctx.quick ? 3 : 5;
  for (Collective op : kAllCollectives)
    for (std::uint64_t bytes : collective_sizes(max_bytes, ctx.quick || ctx.smallest)) {
      const std::uint64_t count = send_count(op, bytes, n, sizeof(float));
      if (count == 0) continue;  // fewer elements than ranks
      ctx.progress(std::string("collectives: ") + to_string(op) + " " +
                   fmt_bytes(static_cast<double>(bytes)));
      CollectiveRun run;
      run.op = op;
      // nccl-tests' size: the whole vector (all-gather's output is every rank's input)
      run.bytes = (op == Collective::all_gather ? count * n : count) * sizeof(float);
      run.iterations = ctx.smallest
                           ? 1
                           : static_cast<int>(std::clamp<std::uint64_t>(
                                 (ctx.quick ? 16 : 64) * MiB / run.bytes, 1, ctx.quick ? 20 : 50));
      prepare(op, ranks, count);
      launch(op, ranks, count);  // warm-up (and the run whose output is checked)
      sync_all(ranks);
      run.wrong = count_wrong(op, ranks, count);
      std::vector<double> us;
      for (int rep = 0; rep < reps; ++rep) {
        us.push_back(
            1e6 * outer::host_seconds_per_call(
                      run.iterations, [&] { launch(op, ranks, count); }, [&] { sync_all(ranks); }));
      }
      // The timed runs rewrote the same outputs from the same inputs: check them again.
      run.wrong += count_wrong(op, ranks, count);
      run.us = median(us);
      run.algbw_gbps = static_cast<double>(run.bytes) / (run.us * 1e3);
      run.busbw_gbps = run.algbw_gbps * bus_factor(op, n);
      m.runs.push_back(run);
    }
  return m;
}

#endif  // MEMHIER_HAVE_NCCL

CollectivesResult measure_on(Context& ctx, int ranks) {
#ifdef MEMHIER_HAVE_NCCL
  return run_nccl(ctx, ranks);
#else
  (void)ctx;
  (void)ranks;
  throw Unavailable(collectives_unavailable(2, false));
#endif
}

Result run_collectives(Context& ctx) {
  return present_collectives(measure_collectives(ctx));
}

}  // namespace

CollectivesResult measure_collectives(Context& ctx) {
  int n = 0;
  MEMHIER_CUDA(cudaGetDeviceCount(&n));
  if (const std::string why = collectives_unavailable(n, nccl_built()); !why.empty())
    throw Unavailable(why);
  return measure_on(ctx, n);
}

CollectivesResult measure_collectives_on(Context& ctx, int ranks) {
  if (!nccl_built()) throw Unavailable(collectives_unavailable(ranks, false));
  outer::require_ranks("collectives", ranks);
  return measure_on(ctx, ranks);
}

std::vector<registry::Entry> collectives_probes() {
  registry::Entry e;
  e.kind = "probe";
  e.family = "collectives";
  e.name = "collectives";
  e.technique =
      "NCCL all-reduce, all-gather, reduce-scatter and broadcast over every GPU, 8 B to 1 GiB, "
      "algorithm and bus bandwidth (nccl-tests' definitions), outputs checked exactly";
  e.claim = {"memhier goal: collectives",
             "bus bandwidth rises from latency-bound small messages to the links' bandwidth"};
  e.min_gpus = 2;
  e.run_probe = run_collectives;
  return {std::move(e)};
}

}  // namespace memhier::probe
