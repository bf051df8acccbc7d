// Probe "tma": how fast each way of filling shared memory from global memory runs, by the
// bytes a block moves per stage and the stages it keeps in flight. One block of 256 threads
// streams chunks through `stages` shared buffers: ld.global.v4 into registers then
// st.shared.v4 (every thread computes every address), cp.async 16 B per thread, one
// cp.async.bulk per chunk, or one cp.async.bulk.tensor 2-D box per chunk (one thread
// issues; the copy engine computes the addresses). Each is run on one SM alone (its source
// cold in HBM: the L2 is flushed first) and with one block on every SM (a 256 MiB stream),
// and every block sums one word per thread and chunk, which a plain-load reference must
// match. Then shared -> global: st.global.v4 against cp.async.bulk stores; TMA multicast
// (tma_multicast.sm90a.cu); what TMA does at a tensor's edges (tma_edges.cu).
#include <cuda.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common.cuh"
#include "families.hpp"
#include "memhier/core/gate.hpp"
#include "memhier/core/tma.cuh"
#include "memhier/core/tma.hpp"
#include "tma_detail.cuh"

namespace memhier::probe {
namespace {

using namespace tma_detail;

enum class Load { ld_st, cp_async, bulk, tensor };
enum class Store { st_global, bulk };

struct Args {
  const float* src = nullptr;            ///< loads: the stream; stores: unused
  float* dst = nullptr;                  ///< stores: the output stream
  unsigned chunk_bytes = 0, chunks = 0;  ///< per stage; per block
  unsigned* sums = nullptr;              ///< loads: one sum per block
};

/// Global -> shared: the block's chunks through S stages, each chunk's sampled word summed.
/// The kernel names carry "tma_probe" so that a profiler can pick them out.
template <Load M, int S>
__global__ void __launch_bounds__(kThreads)
    tma_probe_load(const __grid_constant__ CUtensorMap map, Args a) {
#if MEMHIER_TMA_DEVICE
  extern __shared__ __align__(128) unsigned char stage_mem[];
  __shared__ alignas(8) unsigned long long bars[S];
  const unsigned tid = threadIdx.x, b = blockIdx.x;
  const unsigned chunk_words = a.chunk_bytes / 4, vec = a.chunk_bytes / (16 * kThreads);
  const std::size_t first = static_cast<std::size_t>(b) * a.chunks;  // the block's first tile
  if (M == Load::bulk || M == Load::tensor) {
    if (tid == 0) {
      if (M == Load::tensor) tma::prefetch_tensor_map(&map);
      for (int s = 0; s < S; ++s) tma::mbarrier_init(tma::smem_addr(&bars[s]), 1);
      tma::fence_mbarrier_init();
    }
    __syncthreads();
  }
  const auto stage_ptr = [&](unsigned c) { return stage_mem + (c % S) * a.chunk_bytes; };
  const auto issue = [&](unsigned c) {  // chunk c into stage c % S
    const float* src = a.src + (first + c) * chunk_words;
    if (M == Load::cp_async) {
      for (unsigned v = 0; v < vec; ++v) {
        const unsigned piece = v * kThreads + tid;
        ptx::cp_async_cg_16(stage_ptr(c) + 16 * piece, src + 4 * piece);
      }
      ptx::cp_async_commit_group();
    } else if (tid == 0) {
      const unsigned bar = tma::smem_addr(&bars[c % S]);
      tma::mbarrier_arrive_expect_tx(bar, a.chunk_bytes);
      if (M == Load::bulk) {
        tma::bulk_load(tma::smem_addr(stage_ptr(c)), src, a.chunk_bytes, bar);
      } else {
        const std::size_t t = first + c;
        const int rows = static_cast<int>(chunk_words / kBoxCols);
        tma::tensor_load_2d(tma::smem_addr(stage_ptr(c)), &map,
                            static_cast<int>(t % kTilesX) * kBoxCols,
                            static_cast<int>(t / kTilesX) * rows, bar);
      }
    }
  };
  unsigned sum = 0;
  if (M == Load::ld_st) {
    for (unsigned c0 = 0; c0 < a.chunks; c0 += S) {
      float4 r[S][kMaxVec];
#pragma unroll
      for (int s = 0; s < S; ++s)
#pragma unroll
        for (int v = 0; v < kMaxVec; ++v)
          if (v < static_cast<int>(vec) && c0 + s < a.chunks)
            r[s][v] = reinterpret_cast<const float4*>(a.src + (first + c0 + s) *
                                                                  chunk_words)[v * kThreads + tid];
#pragma unroll
      for (int s = 0; s < S; ++s)
#pragma unroll
        for (int v = 0; v < kMaxVec; ++v)
          if (v < static_cast<int>(vec) && c0 + s < a.chunks)
            reinterpret_cast<float4*>(stage_ptr(c0 + s))[v * kThreads + tid] = r[s][v];
      __syncthreads();
      for (unsigned c = c0; c < c0 + S && c < a.chunks; ++c)
        sum += reinterpret_cast<const unsigned*>(stage_ptr(c))[sampled_word(chunk_words, c, tid)];
      __syncthreads();
    }
  } else {
    for (unsigned c = 0; c < S; ++c) {
      if (c < a.chunks)
        issue(c);
      else if (M == Load::cp_async)
        ptx::cp_async_commit_group();  // empty: S groups are always committed ahead
    }
    for (unsigned c = 0; c < a.chunks; ++c) {
      if (M == Load::cp_async) {
        ptx::cp_async_wait_group<S - 1>();
        __syncthreads();
      } else {
        tma::mbarrier_wait_parity(tma::smem_addr(&bars[c % S]), (c / S) & 1u);
      }
      sum += reinterpret_cast<const unsigned*>(stage_ptr(c))[sampled_word(chunk_words, c, tid)];
      __syncthreads();  // the stage is free for chunk c + S
      if (c + S < a.chunks)
        issue(c + S);
      else if (M == Load::cp_async)
        ptx::cp_async_commit_group();
    }
  }
  atomicAdd(&a.sums[b], sum);
#else
  (void)map, (void)a;
  tma::unsupported();
#endif
}

/// The sums tma_probe_load must produce, from plain loads of the same words.
__global__ void tma_reference_sums(Args a, bool two_d) {
  const unsigned chunk_words = a.chunk_bytes / 4;
  unsigned sum = 0;
  for (unsigned c = 0; c < a.chunks; ++c) {
    const std::size_t t = static_cast<std::size_t>(blockIdx.x) * a.chunks + c;
    sum += reinterpret_cast<const unsigned*>(
        a.src)[tile_word(two_d, chunk_words, t, sampled_word(chunk_words, c, threadIdx.x))];
  }
  atomicAdd(&a.sums[blockIdx.x], sum);
}

/// Shared -> global: S stages filled once with a pattern, chunk c stored from stage c % S,
/// by every thread (ld.shared.v4 + st.global.v4) or by one cp.async.bulk; a bulk stage is
/// reused only once its previous store has read it (at most S - 1 groups reading).
template <Store M, int S>
__global__ void __launch_bounds__(kThreads) tma_probe_store(Args a) {
#if MEMHIER_TMA_DEVICE
  extern __shared__ __align__(128) unsigned char stage_mem[];
  const unsigned tid = threadIdx.x;
  const unsigned chunk_words = a.chunk_bytes / 4, vec = a.chunk_bytes / (16 * kThreads);
  for (unsigned j = tid; j < S * chunk_words; j += kThreads)
    reinterpret_cast<unsigned*>(stage_mem)[j] = store_pattern(j / chunk_words, j % chunk_words);
  if (M == Store::bulk) tma::fence_proxy_async_shared();
  __syncthreads();
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * a.chunks;
  for (unsigned c = 0; c < a.chunks; ++c) {
    float* dst = a.dst + (first + c) * chunk_words;
    const unsigned char* stage = stage_mem + (c % S) * a.chunk_bytes;
    if (M == Store::st_global) {
      for (unsigned v = 0; v < vec; ++v) {
        const unsigned piece = v * kThreads + tid;
        reinterpret_cast<float4*>(dst)[piece] = reinterpret_cast<const float4*>(stage)[piece];
      }
    } else if (tid == 0) {
      if (c >= S) tma::bulk_wait_read<S - 1>();
      tma::bulk_store(dst, tma::smem_addr(stage), a.chunk_bytes);
      tma::bulk_commit();
    }
  }
  if (M == Store::bulk && tid == 0) tma::bulk_wait<0>();
#else
  (void)a;
  tma::unsupported();
#endif
}

/// Counts the sampled output words that differ from the pattern tma_probe_store wrote.
__global__ void tma_reference_stores(Args a, int stages, unsigned* wrong) {
  const unsigned chunk_words = a.chunk_bytes / 4;
  for (unsigned c = 0; c < a.chunks; ++c) {
    const std::size_t t = static_cast<std::size_t>(blockIdx.x) * a.chunks + c;
    const unsigned w = sampled_word(chunk_words, c, threadIdx.x);
    const unsigned got = reinterpret_cast<const unsigned*>(a.dst)[t * chunk_words + w];
    if (got != store_pattern(c % static_cast<unsigned>(stages), w)) atomicAdd(wrong, 1u);
  }
}

using LoadKernel = void (*)(CUtensorMap, Args);
using StoreKernel = void (*)(Args);

template <Load M>
LoadKernel load_kernel(int stages) {
  return stages == 1   ? tma_probe_load<M, 1>
         : stages == 2 ? tma_probe_load<M, 2>
                       : tma_probe_load<M, 4>;
}
LoadKernel load_kernel(Load m, int stages) {
  switch (m) {
    case Load::ld_st:
      return load_kernel<Load::ld_st>(stages);
    case Load::cp_async:
      return load_kernel<Load::cp_async>(stages);
    case Load::bulk:
      return load_kernel<Load::bulk>(stages);
    default:
      return load_kernel<Load::tensor>(stages);
  }
}
StoreKernel store_kernel(Store m, int stages) {
  if (m == Store::st_global) return tma_probe_store<Store::st_global, 1>;
  return stages == 1   ? tma_probe_store<Store::bulk, 1>
         : stages == 2 ? tma_probe_store<Store::bulk, 2>
                       : tma_probe_store<Store::bulk, 4>;
}

/// The 2-D view of the stream for chunks of `chunk_bytes`: kBoxCols x chunk/256 boxes.
CUtensorMap stream_map(const float* src, std::size_t rows, int chunk_bytes) {
  core::Tensor2d t;
  t.base = src;
  t.cols = kWidth;
  t.rows = rows;
  t.pitch_bytes = kWidth * sizeof(float);
  t.box_cols = kBoxCols;
  t.box_rows = static_cast<std::uint32_t>(chunk_bytes / (kBoxCols * 4));
  return core::encode_tensor_map_2d(t);
}

/// Whether this card gives a block of `k` `smem` bytes of shared memory (an RTX 5090 allows
/// 99 KiB, the plan's largest stage set is 128 KiB): larger configurations are not measured.
bool fits(const void* k, int smem) {
  return core::kernel_unsupported("", k, {90, false, smem, 0}).empty();
}

/// The plan: sizes and stages (fewer with --quick), the stream's length.
struct Plan {
  std::vector<int> chunks_bytes, stages;
  std::size_t chip_bytes = 0;
};

Plan plan(const Context& ctx) {
  Plan p;
  p.chunks_bytes = ctx.quick ? std::vector<int>{16384} : std::vector<int>{4096, 16384, 32768};
  p.stages = ctx.quick ? std::vector<int>{1, 4} : std::vector<int>{1, 2, 4};
  p.chip_bytes = std::size_t{256} << 20;
  return p;
}

/// One timed configuration: `launch(s)` once verified, then timed; one-SM runs flush L2.
double time_config(const Context& ctx, const std::string& name, bool flush,
                   const std::function<void(cudaStream_t)>& launch) {
  core::TimingOptions o = probe_timing(ctx, name);
  o.flush_l2 = flush;
  o.min_total_ms = ctx.quick ? 0.5 : 2.0;
  o.max_reps = ctx.quick ? 10 : 30;
  return core::time_it(launch, fewest_if_smallest(ctx, o)).median_ms;
}

/// Chunks per block for a launch of `blocks` blocks over at most `bytes`.
unsigned chunks_for(std::size_t bytes, int blocks, int chunk) {
  return static_cast<unsigned>(std::max<std::size_t>(1, bytes / blocks / chunk));
}

/// Chunks for the one-SM run: 2 MiB per stage in flight (64 rounds of the largest chunk),
/// so the pipeline's fill and drain stay small beside the stream.
unsigned one_sm_chunks(int stages, int chunk) {
  return static_cast<unsigned>(64 * stages * (32768 / chunk));
}

void measure_loads(Context& ctx, const Plan& p, TmaResult& m, const float* src, std::size_t rows,
                   core::DeviceBuffer<unsigned>& sums, core::DeviceBuffer<unsigned>& ref) {
  const int sms = ctx.device.sm_count;
  for (Load method : {Load::ld_st, Load::cp_async, Load::bulk, Load::tensor})
    for (int chunk : p.chunks_bytes) {
      const CUtensorMap map = stream_map(src, rows, chunk);
      for (int stages : p.stages) {
        TmaRate r;
        r.method = tma_load_methods()[static_cast<std::size_t>(method)];
        r.chunk_bytes = chunk;
        r.stages = stages;
        ctx.progress("tma: " + r.method + " " + fmt_bytes(chunk) + " x" + std::to_string(stages));
        const LoadKernel k = load_kernel(method, stages);
        const int smem = chunk * stages;
        if (!fits(reinterpret_cast<const void*>(k), smem)) continue;
        MEMHIER_CUDA(cudaFuncSetAttribute(reinterpret_cast<const void*>(k),
                                          cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        bool ok = true;
        for (const bool chip : {true, false}) {
          const int blocks = chip ? sms : 1;
          Args a;
          a.src = src;
          a.chunk_bytes = static_cast<unsigned>(chunk);
          a.chunks = chip ? chunks_for(p.chip_bytes, sms, chunk) : one_sm_chunks(stages, chunk);
          a.sums = sums.data();
          const auto launch = [&](cudaStream_t s) {
            k<<<blocks, kThreads, smem, s>>>(map, a);
            MEMHIER_CHECK_LAUNCH();
          };
          MEMHIER_CUDA(cudaMemset(sums.data(), 0, sizeof(unsigned) * blocks));
          launch(nullptr);
          Args ra = a;
          ra.sums = ref.data();
          MEMHIER_CUDA(cudaMemset(ref.data(), 0, sizeof(unsigned) * blocks));
          tma_reference_sums<<<blocks, kThreads>>>(ra, method == Load::tensor);
          MEMHIER_CHECK_LAUNCH();
          const std::vector<unsigned> got = sums.download(), want = ref.download();
          ok = ok && std::equal(got.begin(), got.begin() + blocks, want.begin());
          const double bytes = double(a.chunks) * chunk * blocks;
          const double ms = time_config(ctx, "tma " + r.method, !chip, launch);
          (chip ? r.chip_gbps : r.sm_gbps) = gbps(bytes, ms);
          if (chip)
            m.chip_bytes = bytes;
          else
            m.sm_bytes = std::max(m.sm_bytes, bytes);
        }
        r.verified = ok;
        m.loads.push_back(r);
      }
    }
}

void measure_stores(Context& ctx, const Plan& p, TmaResult& m, float* dst,
                    core::DeviceBuffer<unsigned>& wrong) {
  const int sms = ctx.device.sm_count;
  for (Store method : {Store::st_global, Store::bulk})
    for (int chunk : p.chunks_bytes)
      for (int stages : p.stages) {
        if (method == Store::st_global && stages != p.stages.front()) continue;  // no stages
        TmaRate r;
        r.method = tma_store_methods()[method == Store::bulk ? 1 : 0];
        r.chunk_bytes = chunk;
        r.stages = method == Store::bulk ? stages : 1;
        ctx.progress("tma: " + r.method + " " + fmt_bytes(chunk) + " x" + std::to_string(stages));
        const StoreKernel k = store_kernel(method, r.stages);
        const int smem = chunk * r.stages;
        if (!fits(reinterpret_cast<const void*>(k), smem)) continue;
        MEMHIER_CUDA(cudaFuncSetAttribute(reinterpret_cast<const void*>(k),
                                          cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        bool ok = true;
        for (const bool chip : {true, false}) {
          const int blocks = chip ? sms : 1;
          Args a;
          a.dst = dst;
          a.chunk_bytes = static_cast<unsigned>(chunk);
          a.chunks = chip ? chunks_for(p.chip_bytes, sms, chunk) : one_sm_chunks(r.stages, chunk);
          const auto launch = [&](cudaStream_t s) {
            k<<<blocks, kThreads, smem, s>>>(a);
            MEMHIER_CHECK_LAUNCH();
          };
          MEMHIER_CUDA(cudaMemset(dst, 0xff, std::size_t{a.chunks} * chunk * blocks));
          launch(nullptr);
          MEMHIER_CUDA(cudaMemset(wrong.data(), 0, sizeof(unsigned)));
          tma_reference_stores<<<blocks, kThreads>>>(a, r.stages, wrong.data());
          MEMHIER_CHECK_LAUNCH();
          ok = ok && wrong.download()[0] == 0;
          const double ms = time_config(ctx, "tma " + r.method, !chip, launch);
          (chip ? r.chip_gbps : r.sm_gbps) = gbps(double(a.chunks) * chunk * blocks, ms);
        }
        r.verified = ok;
        m.stores.push_back(r);
      }
}

/// One launch of each method at 16 KiB x 2 stages on every SM, inside the NVTX range
/// "tma issue slots", so that Nsight Compute can count each method's instructions.
void launch_for_profiler(const Context& ctx, const float* src, std::size_t rows, float* dst,
                         core::DeviceBuffer<unsigned>& sums, TmaResult& m) {
  core::NvtxRange range("tma issue slots");
  const int sms = ctx.device.sm_count, chunk = 16384;
  Args a;
  a.src = src;
  a.dst = dst;
  a.chunk_bytes = chunk;
  a.chunks = chunks_for(std::size_t{64} << 20, sms, chunk);
  a.sums = sums.data();
  m.profile_chunks = static_cast<double>(a.chunks) * sms;
  const CUtensorMap map = stream_map(src, rows, chunk);
  for (Load method : {Load::ld_st, Load::cp_async, Load::bulk, Load::tensor}) {
    const LoadKernel k = load_kernel(method, 2);
    MEMHIER_CUDA(cudaFuncSetAttribute(reinterpret_cast<const void*>(k),
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, 2 * chunk));
    k<<<sms, kThreads, 2 * chunk>>>(map, a);
    MEMHIER_CHECK_LAUNCH();
  }
  for (Store method : {Store::st_global, Store::bulk}) {
    const int stages = method == Store::bulk ? 2 : 1;
    const StoreKernel k = store_kernel(method, stages);
    MEMHIER_CUDA(cudaFuncSetAttribute(reinterpret_cast<const void*>(k),
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, stages * chunk));
    k<<<sms, kThreads, stages * chunk>>>(a);
    MEMHIER_CHECK_LAUNCH();
  }
  MEMHIER_CUDA(cudaDeviceSynchronize());
}

Result run_tma(Context& ctx) {
  return present_tma(measure_tma(ctx));
}

}  // namespace

const std::vector<std::string>& tma_load_methods() {
  static const std::vector<std::string> v = {"ld.global.v4+st.shared", "cp.async 16B",
                                             "cp.async.bulk", "cp.async.bulk.tensor 2-D"};
  return v;
}

const std::vector<std::string>& tma_store_methods() {
  static const std::vector<std::string> v = {"ld.shared.v4+st.global.v4", "cp.async.bulk store"};
  return v;
}

TmaResult measure_tma(Context& ctx) {
  TmaResult m;
  m.device = ctx.device;
  m.unsupported = core::kernel_unsupported(
      "The TMA probe", reinterpret_cast<const void*>(load_kernel(Load::tensor, 1)), {90, false, 0, 0});
  if (!m.unsupported.empty()) return m;
  const Plan p = plan(ctx);
  // Whole bands of 2-D tiles at the largest chunk (kTilesX tiles of 32 KiB: 4 MiB a band).
  const std::size_t band = std::size_t{kTilesX} * 32768;
  const std::size_t bytes = (p.chip_bytes + band - 1) / band * band;
  const std::size_t rows = bytes / (kWidth * sizeof(float));
  core::DeviceBuffer<float> src(bytes / sizeof(float)), dst(bytes / sizeof(float));
  fill_random_bits(reinterpret_cast<std::uint32_t*>(src.data()), src.size(), 0x7a3au);
  core::DeviceBuffer<unsigned> sums(ctx.device.sm_count), ref(ctx.device.sm_count), wrong(1);
  MEMHIER_CUDA(cudaDeviceSynchronize());
  try {
    measure_loads(ctx, p, m, src.data(), rows, sums, ref);
  } catch (const core::TmaUnavailable& e) {
    m.unsupported = e.what();
    return m;
  }
  measure_stores(ctx, p, m, dst.data(), wrong);
  ctx.progress("tma: multicast");
  for (int cluster : {2, 4})
    m.multicast.push_back(tma_detail::measure_multicast(ctx, cluster, src.data(), rows));
  ctx.progress("tma: edges and swizzle");
  tma_detail::check_edges(m);
  launch_for_profiler(ctx, src.data(), rows, dst.data(), sums, m);
  return m;
}

std::vector<registry::Entry> tma_probes() {
  registry::Entry e;
  e.kind = "probe";
  e.family = "tma";
  e.name = "tma";
  e.technique =
      "global -> shared by ld/st, cp.async, cp.async.bulk and 2-D tensor boxes, by chunk "
      "size and stages, one SM and all; bulk stores; multicast to 2/4 blocks; edges, swizzle";
  e.claim = {"002 §cp.async.bulk (Hopper)",
             "TMA copies whole tiles global -> shared in one instruction, addresses in hardware"};
  e.run_probe = run_tma;
  return {e};
}

}  // namespace memhier::probe
