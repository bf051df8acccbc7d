// The experiment behind session 4's softmax rung 10 (not part of the build): softmax over
// 8 x 65536 in clusters, timed like memhier's harness (a 2x L2 memset flush, events around
// one launch, median of 60), with per-block phase timestamps (%globaltimer, thread 0:
// [0] start, [1] own loads in, [2] block pair, [3] cluster barrier passed, [4] row pair,
// [5] stores issued) and the SM of every block. Build and run on a GPU host:
//   nvcc -O3 -std=c++17 -arch=sm_90a -o sce softmax_cluster_exchange.cu && ./sce 8
// MODE: 0 remote store + remote mbarrier arrive.release.cluster (the design before), 1
// st.async with complete_tx, 2 no exchange (the floor; results wrong), 3 st.async per warp.
// EXPM: 0 expf, 1 ex2.approx after one FFMA, 2 half of them by a polynomial on the FMA pipe.
// END: a cluster barrier at the end. PRE: early stores to allocate the output lines in L2.
// BULK: stores through shared memory and cp.async.bulk (1 all, 2 half). Chunks need not
// divide the row (clusters of 10..14). This is the last version; the outputs beside it
// (softmax_cluster_exchange-*.txt) come from it and from its earlier variant lists, in the
// order listed in NOTES.md.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

namespace cg = cooperative_groups;

#define CK(x)                                                                          \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::printf("CUDA %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

static int ROWS = 8;
constexpr int COLS = 65536;

__device__ __forceinline__ unsigned long long gtime() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}
#define STAMP(k) \
  if (TS && threadIdx.x == 0) ts[blockIdx.x * 8 + (k)] = gtime();

__device__ __forceinline__ int fkey(float f) {
  const int i = __float_as_int(f);
  return i >= 0 ? i : i ^ 0x7fffffff;
}
__device__ __forceinline__ float funkey(int k) { return __int_as_float(k >= 0 ? k : k ^ 0x7fffffff); }
__device__ __forceinline__ float wmax(float f) { return funkey(__reduce_max_sync(~0u, fkey(f))); }
__device__ __forceinline__ float wsum(float f) {
  for (int o = 16; o > 0; o >>= 1) f += __shfl_xor_sync(~0u, f, o);
  return f;
}
struct MS {
  float m, s;
};
__device__ __forceinline__ MS merge_lanes(float2 q, bool valid) {
  const float M = wmax(valid ? q.x : -INFINITY);
  const float part = valid && q.x != -INFINITY ? q.y * expf(q.x - M) : 0.f;
  return MS{M, wsum(part)};
}

__device__ __forceinline__ float ex2(float t) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(t));
  return r;
}
// 2^t for t <= 0 on the FMA pipe: t = n + f, |f| <= 0.5, Taylor degree 6 of 2^f.
__device__ __forceinline__ float ex2_fma(float t) {
  t = fmaxf(t, -127.f);
  const float r = t + 12582912.f;  // round to nearest integer
  const int n = __float_as_int(r) - 0x4B400000;
  const float f = t - (r - 12582912.f);
  float p = 1.5403530393381609e-4f;
  p = fmaf(p, f, 1.3333558146428443e-3f);
  p = fmaf(p, f, 9.6181291076284772e-3f);
  p = fmaf(p, f, 5.5504108664821580e-2f);
  p = fmaf(p, f, 2.4022650695910071e-1f);
  p = fmaf(p, f, 6.9314718055994531e-1f);
  p = fmaf(p, f, 1.f);
  const float y = __int_as_float(__float_as_int(p) + (n << 23));
  return n <= -126 ? 0.f : y;
}

// EXPM 0: expf (shipped), 1: ex2.approx after one FFMA, 2: half of them on the FMA pipe.
template <int EXPM>
__device__ __forceinline__ float ex(float x, float m, int k) {
  if (EXPM == 0) return expf(x - m);
  const float L = 1.4426950408889634f;
  const float t = fmaf(x, L, -m * L);
  if (EXPM == 1 || (k & 1) == 0) return ex2(t);
  return ex2_fma(t);
}

// MODE 0: remote store + remote mbarrier arrive.release.cluster (shipped); 1: st.async with
// complete_tx; 2: no exchange (the floor; results wrong). END: cluster barrier at the end.
template <int U, int MODE, int EXPM, bool END, bool TS, int PRE = 0, int BULK = 0>
__global__ void __launch_bounds__(1024) sm_cluster(const float* __restrict__ in, float* __restrict__ out,
                                                   unsigned long long* ts) {
  STAMP(0);
  __shared__ float2 slots[MODE == 3 ? 512 : 16];
  __shared__ float2 wpair[32];
  __shared__ __align__(8) unsigned long long bar;
  cg::cluster_group cl = cg::this_cluster();
  const int C = cl.num_blocks(), rank = cl.block_rank();
  const int row = blockIdx.x / C;
  const int chunk = (COLS / 4 + C - 1) / C;
  const int count = min(chunk, COLS / 4 - rank * chunk);
  const float4* x = reinterpret_cast<const float4*>(in + (size_t)row * COLS) + rank * chunk;
  float4* y = reinterpret_cast<float4*>(out + (size_t)row * COLS) + rank * chunk;
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
  float4 v[U];
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const int i = threadIdx.x + u * blockDim.x;
    v[u] = i < count ? __ldcs(x + i) : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
  }
  if (PRE == 2) {  // allocate the output lines in L2 early: zeros, overwritten below
#pragma unroll
    for (int u = 0; u < U; ++u) y[threadIdx.x + u * blockDim.x] = make_float4(0.f, 0.f, 0.f, 0.f);
  }
  const unsigned lbar = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  if (MODE != 2) {
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(lbar), "r"(MODE == 0 ? C : 1) : "memory");
      if (MODE == 1 || MODE == 3)
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(lbar),
                     "r"(MODE == 3 ? C * nw * 8 : C * 8) : "memory");
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory");
  }
  float m = -INFINITY;
#pragma unroll
  for (int u = 0; u < U; ++u) m = fmaxf(m, fmaxf(fmaxf(v[u].x, v[u].y), fmaxf(v[u].z, v[u].w)));
  m = wmax(m);
  STAMP(1);
  float s = 0.f;
#pragma unroll
  for (int u = 0; u < U; ++u) {
    v[u].x = ex<EXPM>(v[u].x, m, 0);
    v[u].y = ex<EXPM>(v[u].y, m, 1);
    v[u].z = ex<EXPM>(v[u].z, m, 2);
    v[u].w = ex<EXPM>(v[u].w, m, 3);
    s += (v[u].x + v[u].y) + (v[u].z + v[u].w);
  }
  if (PRE == 1) {  // allocate the output lines in L2 early: the unnormalised values
#pragma unroll
    for (int u = 0; u < U; ++u) y[threadIdx.x + u * blockDim.x] = v[u];
  }
  if (PRE == 3) {
#pragma unroll
    for (int u = 0; u < U; ++u) __stcs(y + threadIdx.x + u * blockDim.x, v[u]);
  }
  s = wsum(s);
  MS blk{m, s};
  if (MODE != 3) {
    if (lane == 0) wpair[w] = make_float2(m, s);
    __syncthreads();
    blk = merge_lanes(lane < nw ? wpair[lane] : make_float2(0.f, 0.f), lane < nw);
  }
  STAMP(2);
  MS all = blk;
  if (MODE != 2) {
    asm volatile("barrier.cluster.wait;" ::: "memory");
    STAMP(3);
    if (MODE == 3 ? lane < C : (int)threadIdx.x < C) {
      const unsigned r = MODE == 3 ? lane : threadIdx.x;
      const unsigned lslot = static_cast<unsigned>(__cvta_generic_to_shared(&slots[MODE == 3 ? rank * nw + w : rank]));
      if (MODE == 0) {
        *cl.map_shared_rank(&slots[rank], r) = make_float2(blk.m, blk.s);
        asm volatile(
            "{\n\t.reg .b32 a;\n\t"
            "mapa.shared::cluster.u32 a, %0, %1;\n\t"
            "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [a];\n\t}" ::"r"(lbar),
            "r"(r)
            : "memory");
      } else {
        asm volatile(
            "{\n\t.reg .b32 a, b;\n\t"
            "mapa.shared::cluster.u32 a, %0, %2;\n\t"
            "mapa.shared::cluster.u32 b, %1, %2;\n\t"
            "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [a], {%3, %4}, [b];\n\t}" ::"r"(lslot),
            "r"(lbar), "r"(r), "f"(blk.m), "f"(blk.s)
            : "memory");
      }
    }
    if (END) asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory");
    unsigned done = 0;
    do {
      asm volatile(
          "{\n\t.reg .pred p;\n\t"
          "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0;\n\t"
          "selp.u32 %0, 1, 0, p;\n\t}"
          : "=r"(done)
          : "r"(lbar)
          : "memory");
    } while (!done);
    STAMP(4);
    if (MODE == 3) {
      const int np = C * nw;
      float lm = -INFINITY;
      for (int i = lane; i < np; i += 32) lm = fmaxf(lm, slots[i].x);
      const float M = wmax(lm);
      float part = 0.f;
      for (int i = lane; i < np; i += 32) part += slots[i].y * expf(slots[i].x - M);
      all = MS{M, wsum(part)};
    } else {
      all = merge_lanes(lane < C ? slots[lane] : make_float2(0.f, 0.f), lane < C);
    }
  }
  const float sc = expf(m - all.m) / all.s;
  if (BULK) {  // BULK 1: every unit through shared memory and one bulk store; 2: half
    __shared__ __align__(128) float4 stage[2048];
    constexpr int first = BULK == 1 ? 0 : U / 2;
#pragma unroll
    for (int u = 0; u < U; ++u) {
      float4 o = v[u];
      o.x *= sc;
      o.y *= sc;
      o.z *= sc;
      o.w *= sc;
      if (u >= first)
        stage[threadIdx.x + (u - first) * blockDim.x] = o;
      else
        __stcs(y + threadIdx.x + u * blockDim.x, o);
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
      const unsigned src = static_cast<unsigned>(__cvta_generic_to_shared(stage));
      const unsigned nbytes = (U - first) * blockDim.x * 16;
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(y + first * blockDim.x),
                   "r"(src), "r"(nbytes) : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
  } else {
#pragma unroll
  for (int u = 0; u < U; ++u) {
    float4 o = v[u];
    o.x *= sc;
    o.y *= sc;
    o.z *= sc;
    o.w *= sc;
    if (threadIdx.x + u * blockDim.x < count) __stcs(y + threadIdx.x + u * blockDim.x, o);
  }
  }
  STAMP(5);
  if (TS && threadIdx.x == 0) {
    unsigned sm;
    asm("mov.u32 %0, %smid;" : "=r"(sm));
    ts[blockIdx.x * 8 + 7] = sm;
  }
  if (MODE != 2 && END) asm volatile("barrier.cluster.wait;" ::: "memory");
}

template <bool TS>
__global__ void copyN(const float4* __restrict__ a, float4* __restrict__ b, int per_block, int U,
                      unsigned long long* ts) {
  STAMP(0);
  const float4* x = a + (size_t)blockIdx.x * per_block;
  float4* y = b + (size_t)blockIdx.x * per_block;
  float4 v[8];
#pragma unroll
  for (int u = 0; u < 8; ++u)
    if (u < U) v[u] = __ldcs(x + threadIdx.x + u * blockDim.x);
#pragma unroll
  for (int u = 0; u < 8; ++u)
    if (u < U) __stcs(y + threadIdx.x + u * blockDim.x, v[u]);
  STAMP(1);
}
__global__ void copy4(const float4* __restrict__ a, float4* __restrict__ b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i];
}

static char* g_flush;
static size_t g_flush_bytes;

double time_med(const std::function<void()>& f, int reps = 60) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  f();
  CK(cudaDeviceSynchronize());
  std::vector<float> ms;
  for (int i = 0; i < reps; ++i) {
    CK(cudaMemsetAsync(g_flush, i & 0xff, g_flush_bytes));
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float t;
    CK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2] * 1e3;  // us
}

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IONBF, 0);
  if (argc > 1) ROWS = atoi(argv[1]);
  int l2 = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  g_flush_bytes = size_t(l2) * 2;
  CK(cudaMalloc(&g_flush, g_flush_bytes));
  const size_t n = size_t(ROWS) * COLS;
  std::vector<float> h(n);
  srand(7);
  for (auto& x : h) x = (rand() / (float)RAND_MAX) * 8.f - 4.f;
  float *in, *out;
  CK(cudaMalloc(&in, n * 4));
  CK(cudaMalloc(&out, n * 4));
  CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
  std::vector<double> ref(n);
  for (int r = 0; r < ROWS; ++r) {
    double m = -1e300, s = 0;
    for (int c = 0; c < COLS; ++c) m = std::max(m, (double)h[r * COLS + c]);
    for (int c = 0; c < COLS; ++c) s += std::exp(h[r * COLS + c] - m);
    for (int c = 0; c < COLS; ++c) ref[r * COLS + c] = std::exp(h[r * COLS + c] - m) / s;
  }
  unsigned long long* ts;
  CK(cudaMalloc(&ts, 4096 * 8 * 8));
  const size_t bytes = n * 4;

  auto check = [&](const char* name) {
    std::vector<float> o(n);
    CK(cudaMemcpy(o.data(), out, n * 4, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (size_t i = 0; i < n; ++i) worst = std::max(worst, std::fabs(o[i] - ref[i]) / ref[i]);
    std::printf("    %s worst rel err %.3g%s\n", name, worst, worst < 1e-5 ? "" : "  WRONG");
  };
  bool show_sm = false;
  auto phases = [&](const char* name, int blocks, const std::function<void()>& f) {
    CK(cudaMemset(ts, 0, 4096 * 64));
    CK(cudaMemsetAsync(g_flush, 1, g_flush_bytes));
    f();
    CK(cudaDeviceSynchronize());
    std::vector<unsigned long long> t(blocks * 8);
    CK(cudaMemcpy(t.data(), ts, t.size() * 8, cudaMemcpyDeviceToHost));
    unsigned long long t0 = ~0ull;
    for (int b = 0; b < blocks; ++b) t0 = std::min(t0, t[b * 8]);
    std::printf("    %s phases (ns; median/max):", name);
    for (int k = 0; k < 7; ++k) {
      if (k == 6 && show_sm) continue;
      std::vector<long long> d;
      for (int b = 0; b < blocks; ++b)
        if (t[b * 8 + k]) d.push_back((long long)(t[b * 8 + k] - t0));
      if (d.empty()) continue;
      std::sort(d.begin(), d.end());
      std::printf(" [%d] %lld/%lld", k, d[d.size() / 2], d.back());
    }
    std::printf("\n");
    if (show_sm) {
      std::printf("    smids:");
      for (int b = 0; b < blocks; ++b) std::printf(" %llu", t[b * 8 + 7]);
      std::printf("\n");
    }
  };
  int dyn_smem = 0;
  auto cluster_run = [&](auto kern, int C, int T) {
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn_smem));
    const int dyn = dyn_smem;
    auto go = [=] {
      cudaLaunchConfig_t cfg{};
      cfg.gridDim = dim3(ROWS * C);
      cfg.blockDim = dim3(T);
      cfg.dynamicSmemBytes = dyn;
      cudaLaunchAttribute at[1];
      at[0].id = cudaLaunchAttributeClusterDimension;
      at[0].val.clusterDim.x = C;
      at[0].val.clusterDim.y = 1;
      at[0].val.clusterDim.z = 1;
      cfg.attrs = at;
      cfg.numAttrs = 1;
      CK(cudaLaunchKernelEx(&cfg, kern, (const float*)in, out, ts));
    };
    return std::function<void()>(go);
  };
  auto max_clusters = [&](auto kern, int C, int T) {
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(ROWS * C);
    cfg.blockDim = dim3(T);
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = C;
    at[0].val.clusterDim.y = 1;
    at[0].val.clusterDim.z = 1;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    int k = 0;
    CK(cudaOccupancyMaxActiveClusters(&k, kern, &cfg));
    return k;
  };

  double t_memcpy = time_med([&] { CK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice)); });
  double t_copy = time_med([&] { copy4<<<(n / 4 + 255) / 256, 256>>>((const float4*)in, (float4*)out, n / 4); });
  std::printf("rows %d: memcpy D2D %.2f us, float4 copy kernel %.2f us\n", ROWS, t_memcpy, t_copy);
  // Load-all-then-store copies: the floor of any design that holds the data before writing.
  for (auto [blocks, T, U] : {std::tuple{64, 512, 4}, std::tuple{128, 256, 4}, std::tuple{128, 512, 2},
                              std::tuple{256, 256, 2}, std::tuple{512, 256, 1}}) {
    blocks = blocks * ROWS / 8;
    const int per = T * U;
    auto f = [&, blocks, T, U, per] { copyN<false><<<blocks, T>>>((const float4*)in, (float4*)out, per, U, ts); };
    const double t = time_med(f);
    std::printf("  copyN %d x %d U=%d: %.2f us (%.3f x memcpy)\n", blocks, T, U, t, t_memcpy / t);
    phases("copyN", blocks, [&, blocks, T, U, per] {
      copyN<true><<<blocks, T>>>((const float4*)in, (float4*)out, per, U, ts);
    });
  }

#define RUN(U, MODE, EXPM, END, C, T)                                                                  \
  {                                                                                                    \
    auto f = cluster_run(sm_cluster<U, MODE, EXPM, END, false>, C, T);                                 \
    CK(cudaMemset(out, 0xff, bytes));                                                                  \
    f();                                                                                               \
    CK(cudaDeviceSynchronize());                                                                       \
    double t = time_med(f);                                                                            \
    std::printf("  mode %d exp %d end %d C=%d T=%d U=%d (max clusters %d): %.2f us (%.3f x memcpy)\n", \
                MODE, EXPM, END, C, T, U, max_clusters(sm_cluster<U, MODE, EXPM, END, false>, C, T), t, \
                t_memcpy / t);                                                                         \
    if (MODE != 2) check("sm_cluster");                                                                \
    phases("sm_cluster", ROWS * C, cluster_run(sm_cluster<U, MODE, EXPM, END, true>, C, T));           \
  }
#define RUNP(U, C, T, PRE)                                                                             \
  {                                                                                                    \
    auto f = cluster_run(sm_cluster<U, 1, 1, false, false, PRE>, C, T);                                \
    CK(cudaMemset(out, 0xff, bytes));                                                                  \
    f();                                                                                               \
    CK(cudaDeviceSynchronize());                                                                       \
    double t = time_med(f);                                                                            \
    std::printf("  pre %d C=%d T=%d U=%d: %.2f us (%.3f x memcpy)\n", PRE, C, T, U, t, t_memcpy / t); \
    check("sm_cluster");                                                                               \
    phases("sm_cluster", ROWS * C, cluster_run(sm_cluster<U, 1, 1, false, true, PRE>, C, T));          \
  }
#define RUNB(U, C, T, BULK)                                                                            \
  {                                                                                                    \
    auto f = cluster_run(sm_cluster<U, 1, 1, false, false, 0, BULK>, C, T);                            \
    CK(cudaMemset(out, 0xff, bytes));                                                                  \
    f();                                                                                               \
    CK(cudaDeviceSynchronize());                                                                       \
    double t = time_med(f);                                                                            \
    std::printf("  bulk %d C=%d T=%d U=%d: %.2f us (%.3f x memcpy)\n", BULK, C, T, U, t, t_memcpy / t); \
    check("sm_cluster");                                                                               \
    phases("sm_cluster", ROWS * C, cluster_run(sm_cluster<U, 1, 1, false, true, 0, BULK>, C, T));      \
  }
  for (int rep = 0; rep < 2; ++rep) {
    show_sm = rep == 0;
    RUNB(4, 8, 512, 0);
    RUNB(4, 10, 416, 0);
    RUNB(4, 11, 384, 0);
    RUNB(4, 12, 352, 0);
    RUNB(4, 13, 320, 0);
    RUNB(4, 14, 320, 0);
    RUNB(2, 12, 704, 0);
    RUNB(8, 12, 192, 0);
  }
  std::printf("memcpy D2D again %.2f us\n",
              time_med([&] { CK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice)); }));
  return 0;
}
