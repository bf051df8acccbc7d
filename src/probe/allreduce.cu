// Probe "allreduce": the all-reduce ladder over every visible GPU in one process. NCCL is the
// vendor line; one-shot and two-shot are our kernels, which read and write the peers' buffers
// over NVLink P2P themselves and meet the peers' blocks at flags in each GPU's memory (no
// transport of our own beyond CUDA peer access; no NVLink multicast). fp32 and bf16, by size,
// paired against NCCL round by round, every output checked exactly.
#include <cuda_bf16.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "common.cuh"
#include "families.hpp"
#include "memhier/core/hash.cuh"
#include "memhier/probe/allreduce.hpp"
#include "memhier/probe/collectives.hpp"
#include "memhier/probe/host.hpp"  // geometric_sizes
#include "memhier/probe/unavailable.hpp"
#include "outer_kernels.cuh"

#ifdef MEMHIER_HAVE_NCCL
#include "nccl_call.cuh"
#endif

namespace memhier::probe {

namespace {

#ifdef MEMHIER_HAVE_NCCL

constexpr int kMaxRanks = 8;      // the P2P kernels' peer tables: an NVLink domain of 8
constexpr int kMaxBlocks = 1024;  // flag slots per GPU: one per block and peer
constexpr int kThreads = 512;
constexpr unsigned long long kBarrierTimeoutNs = 5'000'000'000ull;

/// What one rank's kernel needs: every rank's input, output and flags (peer pointers).
struct PeerTable {
  const void* in[kMaxRanks];
  void* out[kMaxRanks];
  unsigned* flags[kMaxRanks];
  unsigned* timed_out;  ///< this rank's: set when a barrier waited past the timeout
  int ranks;
  int rank;
};

__device__ __forceinline__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ void store_release(unsigned* p, unsigned v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ unsigned load_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Block b of every rank meets here: thread t tells rank t that this block reached `value`
// (after the block's earlier loads and stores, released at system scope), then waits until
// rank t's block b has too. Flags only grow, so a rank one barrier ahead never confuses one
// behind. Gives up after the timeout (flagged to the host) rather than hang the GPU.
__device__ void barrier(const PeerTable& p, unsigned value) {
  __threadfence_system();
  __syncthreads();
  if (threadIdx.x < p.ranks) {
    store_release(p.flags[threadIdx.x] + blockIdx.x * kMaxRanks + p.rank, value);
    const unsigned* mine = p.flags[p.rank] + blockIdx.x * kMaxRanks + threadIdx.x;
    const unsigned long long t0 = now_ns();
    while (load_acquire(mine) < value)
      if (now_ns() - t0 > kBarrierTimeoutNs) {
        atomicExch(p.timed_out, 1u);
        break;
      }
  }
  __syncthreads();
}

// Element traits: 16-byte vectors summed in fp32.
template <typename T>
struct Elem;
template <>
struct Elem<float> {
  static constexpr int kPerVector = 4;
  __device__ static void add(float (&acc)[8], const int4& v) {
    const float* f = reinterpret_cast<const float*>(&v);
    for (int i = 0; i < 4; ++i) acc[i] += f[i];
  }
  __device__ static int4 pack(const float (&acc)[8]) {
    int4 v;
    float* f = reinterpret_cast<float*>(&v);
    for (int i = 0; i < 4; ++i) f[i] = acc[i];
    return v;
  }
  __device__ static float to_float(float x) { return x; }
  __device__ static float from_float(float x) { return x; }
};
template <>
struct Elem<__nv_bfloat16> {
  static constexpr int kPerVector = 8;
  __device__ static void add(float (&acc)[8], const int4& v) {
    const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&v);
    for (int i = 0; i < 4; ++i) {
      const float2 f = __bfloat1622float2(h[i]);
      acc[2 * i] += f.x;
      acc[2 * i + 1] += f.y;
    }
  }
  __device__ static int4 pack(const float (&acc)[8]) {
    int4 v;
    __nv_bfloat162* h = reinterpret_cast<__nv_bfloat162*>(&v);
    for (int i = 0; i < 4; ++i) h[i] = __floats2bfloat162_rn(acc[2 * i], acc[2 * i + 1]);
    return v;
  }
  __device__ static float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
  __device__ static __nv_bfloat16 from_float(float x) { return __float2bfloat16_rn(x); }
};

// The sum over every rank of vector v (ranks in order), L1 bypassed: the peers wrote their
// inputs after this kernel may have started.
template <typename T>
__device__ __forceinline__ int4 sum_vector(const PeerTable& p, std::uint64_t v) {
  float acc[8] = {};
  int4 in[kMaxRanks];
#pragma unroll
  for (int r = 0; r < kMaxRanks; ++r)
    if (r < p.ranks) in[r] = __ldcg(static_cast<const int4*>(p.in[r]) + v);
#pragma unroll
  for (int r = 0; r < kMaxRanks; ++r)
    if (r < p.ranks) Elem<T>::add(acc, in[r]);
  return Elem<T>::pack(acc);
}

template <typename T>
__device__ __forceinline__ T sum_scalar(const PeerTable& p, std::uint64_t k) {
  float acc = 0;
  for (int r = 0; r < p.ranks; ++r) acc += Elem<T>::to_float(static_cast<const T*>(p.in[r])[k]);
  return Elem<T>::from_float(acc);
}

// One-shot: every rank sums every element from every rank's input into its own output.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    one_shot_kernel(PeerTable p, std::uint64_t count, unsigned epoch) {
  barrier(p, 2 * epoch - 1);
  constexpr int kV = Elem<T>::kPerVector;
  const std::uint64_t vectors = count / kV;
  const std::uint64_t stride = std::uint64_t{gridDim.x} * kThreads;
  int4* out = static_cast<int4*>(p.out[p.rank]);
  for (std::uint64_t v = blockIdx.x * std::uint64_t{kThreads} + threadIdx.x; v < vectors;
       v += stride)
    out[v] = sum_vector<T>(p, v);
  if (blockIdx.x == 0)
    for (std::uint64_t k = vectors * kV + threadIdx.x; k < count; k += kThreads)
      static_cast<T*>(p.out[p.rank])[k] = sum_scalar<T>(p, k);
  barrier(p, 2 * epoch);  // no rank leaves (and lets its input change) while others read it
}

// Two-shot: each rank sums its slice from every rank's input and writes the sum into every
// rank's output (reduce-scatter, then all-gather by stores over P2P).
template <typename T>
__global__ void __launch_bounds__(kThreads)
    two_shot_kernel(PeerTable p, std::uint64_t count, unsigned epoch) {
  barrier(p, 2 * epoch - 1);
  constexpr int kV = Elem<T>::kPerVector;
  const std::uint64_t vectors = count / kV;
  const std::uint64_t each = vectors / p.ranks;
  const std::uint64_t begin = each * p.rank;
  const std::uint64_t end = p.rank + 1 == p.ranks ? vectors : begin + each;
  const std::uint64_t stride = std::uint64_t{gridDim.x} * kThreads;
  for (std::uint64_t v = begin + blockIdx.x * std::uint64_t{kThreads} + threadIdx.x; v < end;
       v += stride) {
    const int4 s = sum_vector<T>(p, v);
#pragma unroll
    for (int r = 0; r < kMaxRanks; ++r)
      if (r < p.ranks) static_cast<int4*>(p.out[r])[v] = s;
  }
  if (blockIdx.x == 0 && p.rank + 1 == p.ranks)
    for (std::uint64_t k = vectors * kV + threadIdx.x; k < count; k += kThreads) {
      const T s = sum_scalar<T>(p, k);
      for (int r = 0; r < p.ranks; ++r) static_cast<T*>(p.out[r])[k] = s;
    }
  barrier(p, 2 * epoch);  // every rank's stores into every output have landed
}

// Inputs whose every partial sum is exact in bf16 and fp32, in any order: element k of rank q
// is +-m * 2^e, e in [-4, 4] shared by the ranks at k, m in [1, m_max] with
// m_max * ranks <= 255, so any sum is an integer below 256 times 2^e.
__device__ inline float input_value(std::uint32_t seed, std::uint64_t k, int rank, int ranks) {
  const std::uint32_t lo = static_cast<std::uint32_t>(k), hi = static_cast<std::uint32_t>(k >> 32);
  const std::uint32_t shared = core::hash32(seed ^ core::hash32(lo ^ core::hash32(hi)));
  const std::uint32_t own =
      core::hash32(shared + 0x9e3779b9U * static_cast<std::uint32_t>(rank + 1));
  const int e = static_cast<int>(shared % 9) - 4;
  const int most = 255 / ranks;
  const std::uint32_t m_max = most < 1 ? 1 : most > 15 ? 15 : most;
  const float m = static_cast<float>(1 + own % m_max);
  return ldexpf((own >> 16) & 1 ? -m : m, e);
}

template <typename T>
__global__ void fill_kernel(T* p, std::uint64_t count, std::uint32_t seed, int rank, int ranks) {
  for (std::uint64_t k = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; k < count;
       k += std::uint64_t{gridDim.x} * blockDim.x)
    p[k] = Elem<T>::from_float(input_value(seed, k, rank, ranks));
}

// Elements of `out` that differ from the exact sum over the ranks (float64); NaN differs.
template <typename T>
__global__ void wrong_kernel(const T* out, std::uint64_t count, std::uint32_t seed, int ranks,
                             unsigned long long* wrong) {
  unsigned long long mine = 0;
  for (std::uint64_t k = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; k < count;
       k += std::uint64_t{gridDim.x} * blockDim.x) {
    double exact = 0;
    for (int r = 0; r < ranks; ++r) exact += input_value(seed, k, r, ranks);
    mine += static_cast<double>(Elem<T>::to_float(out[k])) != exact;
  }
  if (mine) atomicAdd(wrong, mine);
}

/// One rank: its GPU, stream, communicator, buffers (bytes, any type) and flags.
struct Rank {
  int device = 0;
  int sms = 0;
  cudaStream_t stream = nullptr;
  ncclComm_t comm = nullptr;
  core::DeviceBuffer<char> in, out;
  core::DeviceBuffer<unsigned> flags;
  core::DeviceBuffer<unsigned> timed_out;
  core::DeviceBuffer<unsigned long long> wrong;
  ~Rank() {
    cudaSetDevice(device);
    if (comm) ncclCommDestroy(comm);
    if (stream) cudaStreamDestroy(stream);
  }
};

class Ladder {
 public:
  explicit Ladder(std::vector<std::unique_ptr<Rank>>& ranks) : ranks_(ranks) {
    // The fewest SMs of any GPU, so that every block of every rank is resident on a machine
    // of mixed cards too.
    sms_ = kMaxBlocks;
    for (const auto& r : ranks_) sms_ = std::min(sms_, r->sms);
  }

  /// Enqueues one all-reduce of `count` elements of `type` by `rung` on every rank.
  void launch(AllReduceRung rung, ReduceType type, std::uint64_t count) {
    const int n = static_cast<int>(ranks_.size());
    if (rung == AllReduceRung::nccl) {
      MEMHIER_NCCL(ncclGroupStart());
      for (auto& r : ranks_)
        MEMHIER_NCCL(ncclAllReduce(r->in.data(), r->out.data(), count,
                                   type == ReduceType::fp32 ? ncclFloat : ncclBfloat16, ncclSum,
                                   r->comm, r->stream));
      MEMHIER_NCCL(ncclGroupEnd());
      return;
    }
    ++epoch_;
    const std::uint64_t per_vector = 16 / elem_bytes(type);
    const std::uint64_t vectors = count / per_vector;
    for (int q = 0; q < n; ++q) {
      Rank& r = *ranks_[q];
      PeerTable t{};
      for (int j = 0; j < n; ++j) {
        t.in[j] = ranks_[j]->in.data();
        t.out[j] = ranks_[j]->out.data();
        t.flags[j] = ranks_[j]->flags.data();
      }
      t.timed_out = r.timed_out.data();
      t.ranks = n;
      t.rank = q;
      MEMHIER_CUDA(cudaSetDevice(r.device));
      // every rank runs the same grid: block b of each meets block b of the others
      const int blocks = allreduce_blocks(
          rung == AllReduceRung::one_shot ? vectors : vectors / n + vectors % n, sms_);
      if (rung == AllReduceRung::one_shot) {
        if (type == ReduceType::fp32)
          one_shot_kernel<float><<<blocks, kThreads, 0, r.stream>>>(t, count, epoch_);
        else
          one_shot_kernel<__nv_bfloat16><<<blocks, kThreads, 0, r.stream>>>(t, count, epoch_);
      } else {
        if (type == ReduceType::fp32)
          two_shot_kernel<float><<<blocks, kThreads, 0, r.stream>>>(t, count, epoch_);
        else
          two_shot_kernel<__nv_bfloat16><<<blocks, kThreads, 0, r.stream>>>(t, count, epoch_);
      }
      MEMHIER_CHECK_LAUNCH();
    }
  }

  /// The P2P kernels' grid for `vectors` 16-byte vectors a rank.
  int max_blocks(std::uint64_t vectors) const { return allreduce_blocks(vectors, sms_); }

  void sync_all() {
    for (auto& r : ranks_) {
      MEMHIER_CUDA(cudaSetDevice(r->device));
      MEMHIER_CUDA(cudaStreamSynchronize(r->stream));
    }
    for (auto& r : ranks_) {
      unsigned t = 0;
      MEMHIER_CUDA(cudaMemcpy(&t, r->timed_out.data(), sizeof(t), cudaMemcpyDeviceToHost));
      if (t)
        throw std::runtime_error("allreduce: GPU " + std::to_string(r->device) +
                                 " waited more than 5 s at a barrier for its peers' blocks");
    }
  }

  /// Fresh inputs from `seed` and NaN outputs on every rank, enqueued (no sync).
  void prepare(ReduceType type, std::uint64_t count, std::uint32_t seed) {
    const int n = static_cast<int>(ranks_.size());
    for (int q = 0; q < n; ++q) {
      Rank& r = *ranks_[q];
      MEMHIER_CUDA(cudaSetDevice(r.device));
      if (type == ReduceType::fp32)
        fill_kernel<<<outer::stride_blocks(count), outer::kStrideThreads, 0, r.stream>>>(
            reinterpret_cast<float*>(r.in.data()), count, seed, q, n);
      else
        fill_kernel<<<outer::stride_blocks(count), outer::kStrideThreads, 0, r.stream>>>(
            reinterpret_cast<__nv_bfloat16*>(r.in.data()), count, seed, q, n);
      MEMHIER_CHECK_LAUNCH();
      MEMHIER_CUDA(cudaMemsetAsync(r.out.data(), 0xFF, count * elem_bytes(type), r.stream));
    }
  }

  /// Enqueues the check of every rank's output against the sum of `seed`'s inputs.
  void check(ReduceType type, std::uint64_t count, std::uint32_t seed) {
    const int n = static_cast<int>(ranks_.size());
    for (auto& r : ranks_) {
      MEMHIER_CUDA(cudaSetDevice(r->device));
      if (type == ReduceType::fp32)
        wrong_kernel<<<outer::stride_blocks(count), outer::kStrideThreads, 0, r->stream>>>(
            reinterpret_cast<const float*>(r->out.data()), count, seed, n, r->wrong.data());
      else
        wrong_kernel<<<outer::stride_blocks(count), outer::kStrideThreads, 0, r->stream>>>(
            reinterpret_cast<const __nv_bfloat16*>(r->out.data()), count, seed, n, r->wrong.data());
      MEMHIER_CHECK_LAUNCH();
    }
  }

  /// Wrong elements counted since the last call, over every rank (synchronizes).
  std::uint64_t take_wrong() {
    sync_all();
    std::uint64_t total = 0;
    for (auto& r : ranks_) {
      MEMHIER_CUDA(cudaSetDevice(r->device));
      unsigned long long w = 0;
      MEMHIER_CUDA(cudaMemcpy(&w, r->wrong.data(), sizeof(w), cudaMemcpyDeviceToHost));
      MEMHIER_CUDA(cudaMemset(r->wrong.data(), 0, sizeof(w)));
      total += w;
    }
    return total;
  }

  /// Seconds per all-reduce over a batch of `iterations` back to back, host clock, ended
  /// when every stream is done (nccl-tests' way; NCCL's and ours timed alike).
  double time_batch(AllReduceRung rung, ReduceType type, std::uint64_t count, int iterations) {
    return outer::host_seconds_per_call(
        iterations, [&] { launch(rung, type, count); }, [&] { sync_all(); });
  }

 private:
  std::vector<std::unique_ptr<Rank>>& ranks_;
  int sms_ = 0;
  unsigned epoch_ = 0;
};

AllReduceResult run_ladder(Context& ctx, int n) {
  if (n > kMaxRanks)
    throw Unavailable("the all-reduce kernels are built for at most " + std::to_string(kMaxRanks) +
                      " GPUs; this machine has " + std::to_string(n));
  outer::RestoreDevice restore;
  AllReduceResult m;
  m.ranks = n;
  MEMHIER_NCCL(ncclGetVersion(&m.nccl_version));
  std::string nvls_was;
  std::uint64_t max_bytes = ctx.smallest ? MiB : ctx.quick ? 64 * MiB : GiB;
  for (int d = 0; d < n; ++d) {
    cudaDeviceProp p{};
    MEMHIER_CUDA(cudaGetDeviceProperties(&p, d));
    m.names.push_back(p.name);
    MEMHIER_CUDA(cudaSetDevice(d));
    max_bytes = std::min<std::uint64_t>(max_bytes, free_device_bytes() / 8 / MiB * MiB);
  }
  if (max_bytes < MiB) throw std::runtime_error("less than 8 MiB of memory is free on some GPU");

  outer::PeerAccess access;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j) access.enable(i, j);
  const std::vector<ncclComm_t> comms = nccl_comms(n, &nvls_was);
  std::vector<std::unique_ptr<Rank>> ranks;
  for (int d = 0; d < n; ++d) {
    auto r = std::make_unique<Rank>();
    r->device = d;
    r->comm = comms[d];
    ranks.push_back(std::move(r));
  }
  for (auto& r : ranks) {
    MEMHIER_CUDA(cudaSetDevice(r->device));
    MEMHIER_CUDA(cudaDeviceGetAttribute(&r->sms, cudaDevAttrMultiProcessorCount, r->device));
    MEMHIER_CUDA(cudaStreamCreateWithFlags(&r->stream, cudaStreamNonBlocking));
    r->in = core::DeviceBuffer<char>(max_bytes);
    r->out = core::DeviceBuffer<char>(max_bytes);
    r->flags = core::DeviceBuffer<unsigned>(std::size_t{kMaxBlocks} * kMaxRanks);
    r->timed_out = core::DeviceBuffer<unsigned>(1);
    r->wrong = core::DeviceBuffer<unsigned long long>(1);
    MEMHIER_CUDA(cudaMemset(r->flags.data(), 0, std::size_t{kMaxBlocks} * kMaxRanks * 4));
    MEMHIER_CUDA(cudaMemset(r->timed_out.data(), 0, sizeof(unsigned)));
    MEMHIER_CUDA(cudaMemset(r->wrong.data(), 0, sizeof(unsigned long long)));
  }
  Ladder ladder(ranks);
  m.blocks = ladder.max_blocks(max_bytes / 16);

  const int rounds = ctx.smallest ? 1 : ctx.quick ? 3 : 7;
  std::uint32_t seed = 20261129u;
  for (ReduceType type : kReduceTypes)
    for (std::uint64_t bytes :
         geometric_sizes(256, max_bytes, ctx.quick || ctx.smallest ? 16 : 4)) {
      const std::uint64_t count = bytes / elem_bytes(type);
      ctx.progress(std::string("allreduce: ") + to_string(type) + " " +
                   fmt_bytes(static_cast<double>(bytes)));
      const int iterations =
          ctx.smallest ? 1
                       : static_cast<int>(std::clamp<std::uint64_t>(
                             (ctx.quick ? 16 : 64) * MiB / bytes, 1, ctx.quick ? 20 : 50));
      std::vector<AllReduceRun> runs;
      for (AllReduceRung rung : kAllReduceRungs) {
        AllReduceRun run;
        run.type = type;
        run.rung = rung;
        run.bytes = bytes;
        run.iterations = iterations;
        // Two patterns back to back with no host wait between: a rank that read a peer's
        // input too early or left while a peer still read its own would sum the wrong one.
        for (int k = 0; k < 2; ++k) {
          ladder.prepare(type, count, ++seed);
          ladder.launch(rung, type, count);
          ladder.check(type, count, seed);
        }
        run.wrong = ladder.take_wrong();
        runs.push_back(run);
      }
      std::vector<std::vector<double>> seconds(runs.size()), speedups(runs.size());
      for (int round = 0; round < rounds; ++round) {
        std::vector<double> t(runs.size());
        for (std::size_t i = 0; i < runs.size(); ++i) {  // a different rung first each round
          const std::size_t at = (i + static_cast<std::size_t>(round)) % runs.size();
          t[at] = ladder.time_batch(runs[at].rung, type, count, iterations);
        }
        for (std::size_t i = 0; i < runs.size(); ++i) {
          seconds[i].push_back(t[i]);
          speedups[i].push_back(t[0] / t[i]);  // runs[0] is NCCL
        }
      }
      for (std::size_t i = 0; i < runs.size(); ++i) {
        AllReduceRun& run = runs[i];
        // The timed runs rewrote the outputs from the last pattern's inputs: check again.
        ladder.launch(run.rung, type, count);
        ladder.check(type, count, seed);
        run.wrong += ladder.take_wrong();
        run.us = median(seconds[i]) * 1e6;
        run.busbw_gbps =
            static_cast<double>(bytes) / (run.us * 1e3) * bus_factor(Collective::all_reduce, n);
        run.speedup = median(speedups[i]);
        m.runs.push_back(run);
      }
    }
  return m;
}

#endif  // MEMHIER_HAVE_NCCL

bool every_pair_p2p(int n) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      int v = 1;
      if (i != j) MEMHIER_CUDA(cudaDeviceCanAccessPeer(&v, i, j));
      if (!v) return false;
    }
  return true;
}

AllReduceResult measure_on(Context& ctx, int ranks) {
#ifdef MEMHIER_HAVE_NCCL
  return run_ladder(ctx, ranks);
#else
  (void)ctx;
  throw Unavailable(allreduce_unavailable(ranks, false, true));
#endif
}

Result run_allreduce(Context& ctx) {
  return present_allreduce(measure_allreduce(ctx));
}

}  // namespace

AllReduceResult measure_allreduce(Context& ctx) {
  int n = 0;
  MEMHIER_CUDA(cudaGetDeviceCount(&n));
  if (const std::string why = allreduce_unavailable(n, nccl_built(), every_pair_p2p(n));
      !why.empty())
    throw Unavailable(why);
  return measure_on(ctx, n);
}

AllReduceResult measure_allreduce_on(Context& ctx, int ranks) {
  if (!nccl_built()) throw Unavailable(allreduce_unavailable(ranks, false, true));
  outer::require_ranks("allreduce", ranks);
  if (!every_pair_p2p(ranks)) throw Unavailable(allreduce_unavailable(ranks, true, false));
  return measure_on(ctx, ranks);
}

std::vector<registry::Entry> allreduce_probes() {
  registry::Entry e;
  e.kind = "probe";
  e.family = "allreduce";
  e.name = "allreduce";
  e.technique =
      "the all-reduce ladder over every GPU: NCCL against one-shot and two-shot kernels over "
      "NVLink P2P, fp32 and bf16, 256 B to 1 GiB, paired round by round, outputs checked "
      "exactly";
  e.claim = {"memhier goal: the all-reduce ladder",
             "one-shot beats NCCL on small messages; the best rung stays near NCCL on large ones"};
  e.min_gpus = 2;
  e.run_probe = run_allreduce;
  return {std::move(e)};
}

}  // namespace memhier::probe
