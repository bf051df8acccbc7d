// The experiment behind rung 10 of the softmax ladder (not part of the build): softmax
// over 8 x 65536, designs for few long rows, timed like memhier's harness (a 2x L2 memset
// flush, events around one launch, median of 60), and per-block phase timestamps
// (%globaltimer, thread 0) of one launch after a flush. Build and run on a GPU host:
//   nvcc -O3 -std=c++17 -arch=sm_90a -o sfr softmax_few_rows.cu && ./sfr
// Designs: reg_cluster (registers, cluster.sync and remote reads), push_cluster (registers,
// pairs pushed into every block with a remote mbarrier arrive; _w: one pair per warp),
// reg_grid (no clusters: a cooperative launch, pairs through global memory and a per-row
// counter). Outputs in this folder: softmax_few_rows-h100-first.txt (an earlier version of
// this file, before push_cluster and the launch calibration), softmax_few_rows-h200.txt.
#include <cooperative_groups.h>
#include <cuda/ptx>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <functional>
#include <vector>

namespace cg = cooperative_groups;

#define CK(x)                                                                    \
  do {                                                                           \
    cudaError_t e_ = (x);                                                        \
    if (e_ != cudaSuccess) {                                                     \
      std::printf("CUDA %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

constexpr int ROWS = 8, COLS = 65536;

__device__ __forceinline__ unsigned long long gtime() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}

struct MS {
  float m, s;
};
__device__ __forceinline__ MS comb(MS a, MS b) {
  const float m = fmaxf(a.m, b.m);
  return MS{m, a.s * __expf(a.m - m) + b.s * __expf(b.m - m)};
}
__device__ __forceinline__ MS warp_comb(MS p) {
  for (int o = 16; o > 0; o >>= 1)
    p = comb(p, MS{__shfl_xor_sync(~0u, p.m, o), __shfl_xor_sync(~0u, p.s, o)});
  return p;
}
__device__ __forceinline__ MS block_comb(MS p, float* sm, float* ss) {
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
  p = warp_comb(p);
  if (lane == 0) {
    sm[w] = p.m;
    ss[w] = p.s;
  }
  __syncthreads();
  MS q = lane < nw ? MS{sm[lane], ss[lane]} : MS{-INFINITY, 0.f};
  return warp_comb(q);
}

#define STAMP(k) \
  if (TS && threadIdx.x == 0) ts[blockIdx.x * 8 + (k)] = gtime();

// Registers, cluster of C blocks per row; each thread U float4 units.
template <int U, bool TS>
__global__ void __launch_bounds__(1024) reg_cluster(const float* __restrict__ in, float* __restrict__ out,
                                                    unsigned long long* ts) {
  STAMP(0);
  __shared__ float sm[32], ss[32];
  __shared__ float2 post, res;
  cg::cluster_group cl = cg::this_cluster();
  const int C = cl.num_blocks(), rank = cl.block_rank();
  const int row = blockIdx.x / C;
  const int chunk = COLS / 4 / C;  // float4 units per block
  const float4* x = reinterpret_cast<const float4*>(in + (size_t)row * COLS) + rank * chunk;
  float4* y = reinterpret_cast<float4*>(out + (size_t)row * COLS) + rank * chunk;
  float4 v[U];
#pragma unroll
  for (int u = 0; u < U; ++u) v[u] = __ldcs(x + threadIdx.x + u * blockDim.x);
  float m = -INFINITY;
#pragma unroll
  for (int u = 0; u < U; ++u) m = fmaxf(m, fmaxf(fmaxf(v[u].x, v[u].y), fmaxf(v[u].z, v[u].w)));
  STAMP(1);
  float s = 0.f;
#pragma unroll
  for (int u = 0; u < U; ++u) {
    v[u].x = __expf(v[u].x - m);
    v[u].y = __expf(v[u].y - m);
    v[u].z = __expf(v[u].z - m);
    v[u].w = __expf(v[u].w - m);
    s += (v[u].x + v[u].y) + (v[u].z + v[u].w);
  }
  MS all = block_comb(MS{m, s}, sm, ss);
  STAMP(2);
  if (threadIdx.x == 0) post = make_float2(all.m, all.s);
  cl.sync();
  STAMP(3);
  if (threadIdx.x < 32) {
    MS p{-INFINITY, 0.f};
    for (int r = threadIdx.x; r < C; r += 32) {
      const float2 q = *cl.map_shared_rank(&post, r);
      p = comb(p, MS{q.x, q.y});
    }
    p = warp_comb(p);
    if (threadIdx.x == 0) res = make_float2(p.m, p.s);
  }
  cl.barrier_arrive();
  __syncthreads();
  STAMP(4);
  const float sc = __expf(m - res.x) / res.y;
#pragma unroll
  for (int u = 0; u < U; ++u) {
    float4 o = v[u];
    o.x *= sc;
    o.y *= sc;
    o.z *= sc;
    o.w *= sc;
    __stcs(y + threadIdx.x + u * blockDim.x, o);
  }
  STAMP(5);
  cl.barrier_wait();
  STAMP(6);
}

__device__ __forceinline__ int fkey(float f) {  // float -> int with the same order
  const int i = __float_as_int(f);
  return i >= 0 ? i : i ^ 0x7fffffff;
}
__device__ __forceinline__ float funkey(int k) { return __int_as_float(k >= 0 ? k : k ^ 0x7fffffff); }
__device__ __forceinline__ float wmax(float f) { return funkey(__reduce_max_sync(~0u, fkey(f))); }
__device__ __forceinline__ float wsum(float f) {
  for (int o = 16; o > 0; o >>= 1) f += __shfl_xor_sync(~0u, f, o);
  return f;
}
/// (max, sum) pairs of up to 32 lanes -> the merged pair, in every lane (lanes >= n empty).
__device__ __forceinline__ MS merge_lanes(float2 q, bool valid) {
  const float M = wmax(valid ? q.x : -INFINITY);
  const float part = valid && q.x != -INFINITY ? q.y * __expf(q.x - M) : 0.f;
  return MS{M, wsum(part)};
}

namespace ptx = cuda::ptx;

// Registers; warp max by REDUX, one barrier for the block's (max, sum), then each block
// pushes its pair into every block of the cluster (DSMEM store + remote mbarrier arrive)
// and waits on its own mbarrier: no cluster-wide barrier after the loads.
template <int U, bool TS, bool PERWARP>
__device__ __forceinline__ void push_cluster_body(const float* __restrict__ in, float* __restrict__ out,
                                                  unsigned long long* ts) {
  STAMP(0);
  __shared__ float2 slots[PERWARP ? 512 : 16];
  __shared__ float2 wpair[32];
  __shared__ __align__(8) uint64_t bar;
  cg::cluster_group cl = cg::this_cluster();
  const int C = cl.num_blocks(), rank = cl.block_rank();
  const int row = blockIdx.x / C;
  const int chunk = COLS / 4 / C;
  const float4* x = reinterpret_cast<const float4*>(in + (size_t)row * COLS) + rank * chunk;
  float4* y = reinterpret_cast<float4*>(out + (size_t)row * COLS) + rank * chunk;
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
  float4 v[U];
#pragma unroll
  for (int u = 0; u < U; ++u) v[u] = __ldcs(x + threadIdx.x + u * blockDim.x);
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, static_cast<uint32_t>(PERWARP ? C * nw : C));
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  ptx::barrier_cluster_arrive(ptx::sem_relaxed);  // barriers initialised; waited on later
  float m = -INFINITY;
#pragma unroll
  for (int u = 0; u < U; ++u) m = fmaxf(m, fmaxf(fmaxf(v[u].x, v[u].y), fmaxf(v[u].z, v[u].w)));
  m = wmax(m);  // the warp's max
  STAMP(1);
  float s = 0.f;
#pragma unroll
  for (int u = 0; u < U; ++u) {
    v[u].x = __expf(v[u].x - m);
    v[u].y = __expf(v[u].y - m);
    v[u].z = __expf(v[u].z - m);
    v[u].w = __expf(v[u].w - m);
    s += (v[u].x + v[u].y) + (v[u].z + v[u].w);
  }
  s = wsum(s);
  MS blk{m, s};
  if (!PERWARP) {
    if (lane == 0) wpair[w] = make_float2(m, s);
    __syncthreads();
    blk = merge_lanes(lane < nw ? wpair[lane] : make_float2(0.f, 0.f), lane < nw);
  }
  STAMP(2);
  ptx::barrier_cluster_wait();  // every block's mbarrier is initialised
  STAMP(3);
  const bool pusher = PERWARP ? lane < C : threadIdx.x < C;
  if (pusher) {
    const int slot = PERWARP ? rank * nw + w : rank;
    float2* remote = cl.map_shared_rank(&slots[slot], lane);
    *remote = make_float2(blk.m, blk.s);
    ptx::mbarrier_arrive(ptx::sem_release, ptx::scope_cluster, ptx::space_cluster,
                         cl.map_shared_rank(&bar, lane));
  }
  while (!ptx::mbarrier_try_wait_parity(ptx::sem_acquire, ptx::scope_cluster, &bar, 0u)) {
  }
  STAMP(4);
  MS all;
  if (PERWARP) {
    const int n = C * nw;  // pairs: lane merges lane, lane+32, ...
    float lm = -INFINITY;
    for (int i = lane; i < n; i += 32) lm = fmaxf(lm, slots[i].x);
    const float M = wmax(lm);
    float part = 0.f;
    for (int i = lane; i < n; i += 32) part += slots[i].y * __expf(slots[i].x - M);
    all = MS{M, wsum(part)};
  } else {
    all = merge_lanes(lane < C ? slots[lane] : make_float2(0.f, 0.f), lane < C);
  }
  const float sc = __expf(m - all.m) / all.s;
#pragma unroll
  for (int u = 0; u < U; ++u) {
    float4 o = v[u];
    o.x *= sc;
    o.y *= sc;
    o.z *= sc;
    o.w *= sc;
    __stcs(y + threadIdx.x + u * blockDim.x, o);
  }
  STAMP(5);
}

template <int U, bool TS>
__global__ void __launch_bounds__(1024) push_cluster(const float* __restrict__ in, float* __restrict__ out,
                                                     unsigned long long* ts) {
  push_cluster_body<U, TS, false>(in, out, ts);
}
template <int U, bool TS>
__global__ void __launch_bounds__(1024) push_cluster_w(const float* __restrict__ in, float* __restrict__ out,
                                                       unsigned long long* ts) {
  push_cluster_body<U, TS, true>(in, out, ts);
}
// Registers, G blocks per row co-resident (cooperative launch), partials through global
// memory and a per-row arrival counter (monotonic: the target is epoch * G).
template <int U, bool TS>
__global__ void __launch_bounds__(1024) reg_grid(const float* __restrict__ in, float* __restrict__ out,
                                                 int G, float2* partials, unsigned* counters,
                                                 unsigned epoch, unsigned long long* ts) {
  STAMP(0);
  __shared__ float sm[32], ss[32];
  __shared__ float2 res;
  const int row = blockIdx.x / G, part = blockIdx.x % G;
  const int chunk = COLS / 4 / G;
  const float4* x = reinterpret_cast<const float4*>(in + (size_t)row * COLS) + part * chunk;
  float4* y = reinterpret_cast<float4*>(out + (size_t)row * COLS) + part * chunk;
  float4 v[U];
#pragma unroll
  for (int u = 0; u < U; ++u) v[u] = __ldcs(x + threadIdx.x + u * blockDim.x);
  float m = -INFINITY;
#pragma unroll
  for (int u = 0; u < U; ++u) m = fmaxf(m, fmaxf(fmaxf(v[u].x, v[u].y), fmaxf(v[u].z, v[u].w)));
  STAMP(1);
  float s = 0.f;
#pragma unroll
  for (int u = 0; u < U; ++u) {
    v[u].x = __expf(v[u].x - m);
    v[u].y = __expf(v[u].y - m);
    v[u].z = __expf(v[u].z - m);
    v[u].w = __expf(v[u].w - m);
    s += (v[u].x + v[u].y) + (v[u].z + v[u].w);
  }
  MS all = block_comb(MS{m, s}, sm, ss);
  STAMP(2);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = make_float2(all.m, all.s);
    unsigned* c = counters + row;
    asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(c) : "memory");
    const unsigned target = epoch * G;
    unsigned seen;
    do {
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(c) : "memory");
    } while (seen < target);
  }
  __syncthreads();
  STAMP(3);
  if (threadIdx.x < 32) {
    MS p{-INFINITY, 0.f};
    for (int r = threadIdx.x; r < G; r += 32) {
      const float2 q = __ldcg(partials + row * G + r);
      p = comb(p, MS{q.x, q.y});
    }
    p = warp_comb(p);
    if (threadIdx.x == 0) res = make_float2(p.m, p.s);
  }
  __syncthreads();
  STAMP(4);
  const float sc = __expf(m - res.x) / res.y;
#pragma unroll
  for (int u = 0; u < U; ++u) {
    float4 o = v[u];
    o.x *= sc;
    o.y *= sc;
    o.z *= sc;
    o.w *= sc;
    __stcs(y + threadIdx.x + u * blockDim.x, o);
  }
  STAMP(5);
}

template <bool TS>
__global__ void empty_k(const float*, float*, unsigned long long* ts) {
  STAMP(0);
}
template <bool TS>
__global__ void copy4s(const float4* __restrict__ a, float4* __restrict__ b, unsigned long long* ts) {
  STAMP(0);
  const int i = blockIdx.x * 1024 + threadIdx.x;
#pragma unroll
  for (int u = 0; u < 4; ++u) __stcs(b + i + u * 256, __ldcs(a + i + u * 256));
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

int main() {
  setvbuf(stdout, nullptr, _IONBF, 0);
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
  float2* partials;
  unsigned* counters;
  CK(cudaMalloc(&partials, 4096 * 8));
  CK(cudaMalloc(&counters, 64 * 4));
  CK(cudaMemset(counters, 0, 64 * 4));
  unsigned epoch = 0;

  auto check = [&](const char* name) {
    std::vector<float> o(n);
    CK(cudaMemcpy(o.data(), out, n * 4, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (size_t i = 0; i < n; ++i) worst = std::max(worst, std::fabs(o[i] - ref[i]) / ref[i]);
    if (!(worst < 1e-4)) std::printf("%s WRONG: worst rel err %g\n", name, worst);
  };
  auto phases = [&](const char* name, int blocks, const std::function<void()>& f) {
    CK(cudaMemset(ts, 0, 4096 * 64));
    CK(cudaMemsetAsync(g_flush, 1, g_flush_bytes));
    f();
    CK(cudaDeviceSynchronize());
    std::vector<unsigned long long> t(blocks * 8);
    CK(cudaMemcpy(t.data(), ts, t.size() * 8, cudaMemcpyDeviceToHost));
    unsigned long long t0 = ~0ull;
    for (int b = 0; b < blocks; ++b) t0 = std::min(t0, t[b * 8]);
    std::printf("  %s phases (ns from first block start; median / max over blocks):", name);
    for (int k = 0; k < 7; ++k) {
      std::vector<long long> d;
      for (int b = 0; b < blocks; ++b)
        if (t[b * 8 + k]) d.push_back((long long)(t[b * 8 + k] - t0));
      if (d.empty()) continue;
      std::sort(d.begin(), d.end());
      std::printf(" [%d] %lld/%lld", k, d[d.size() / 2], d.back());
    }
    std::printf("\n");
  };

  const size_t bytes = n * 4;
  auto cluster_run = [&](auto kern, int C, int T, bool, const char*) {
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    auto go = [=] {
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
      CK(cudaLaunchKernelEx(&cfg, kern, (const float*)in, out, ts));
    };
    return std::function<void()>(go);
  };
#define CLUSTER(U, C, T)                                                                   \
  {                                                                                        \
    auto f = cluster_run(reg_cluster<U, false>, C, T, false, "");                          \
    CK(cudaMemset(out, 0xff, bytes));                                                      \
    f();                                                                                   \
    CK(cudaDeviceSynchronize());                                                           \
    check("reg_cluster");                                                                  \
    double t = time_med(f);                                                                \
    std::printf("reg_cluster C=%d T=%d U=%d: %.2f us (%.3f x memcpy)\n", C, T, U, t, t_memcpy / t); \
    auto g = cluster_run(reg_cluster<U, true>, C, T, true, "");                            \
    phases("reg_cluster", ROWS * C, g);                                                    \
  }

  double t_memcpy = time_med([&] { CK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice)); });
  double t_copy = time_med([&] {
    copy4<<<(n / 4 + 255) / 256, 256>>>((const float4*)in, (float4*)out, n / 4);
  });
  std::printf("memcpy D2D %.2f us, float4 copy kernel %.2f us\n", t_memcpy, t_copy);
  {
    auto e0 = [&] { empty_k<false><<<128, 256>>>(in, out, ts); };
    std::printf("empty kernel 128x256: %.2f us\n", time_med(e0));
    for (int C : {8, 16}) {
      auto ec = cluster_run(empty_k<false>, C, 256, false, "");
      std::printf("empty cluster kernel C=%d 128 blocks: %.2f us\n", C, time_med(ec));
    }
    auto c0 = [&] { copy4s<false><<<128, 256>>>((const float4*)in, (float4*)out, ts); };
    std::printf("copy4s 128x256 (4 float4 per thread): %.2f us\n", time_med(c0));
    phases("copy4s", 128, [&] { copy4s<true><<<128, 256>>>((const float4*)in, (float4*)out, ts); });
  }

#define PUSH(U, C, T)                                                                      \
  {                                                                                        \
    auto f = cluster_run(push_cluster<U, false>, C, T, false, "");                         \
    CK(cudaMemset(out, 0xff, bytes));                                                      \
    f();                                                                                   \
    CK(cudaDeviceSynchronize());                                                           \
    check("push_cluster");                                                                 \
    double t = time_med(f);                                                                \
    std::printf("push_cluster C=%d T=%d U=%d: %.2f us (%.3f x memcpy)\n", C, T, U, t, t_memcpy / t); \
    auto g = cluster_run(push_cluster<U, true>, C, T, true, "");                           \
    phases("push_cluster", ROWS * C, g);                                                   \
  }
  PUSH(4, 16, 256);
  PUSH(4, 8, 512);
  PUSH(8, 8, 256);
#define push_cluster push_cluster_w
  PUSH(4, 16, 256);
  PUSH(4, 8, 512);
  PUSH(8, 8, 256);
  PUSH(8, 16, 128);
#undef push_cluster
  CLUSTER(4, 16, 256);
  CLUSTER(2, 16, 512);
  CLUSTER(1, 16, 1024);
  CLUSTER(2, 8, 1024);
  CLUSTER(4, 8, 512);
  CLUSTER(4, 4, 1024);

#define GRID(U, G, T)                                                                      \
  {                                                                                        \
    CK(cudaMemset(counters, 0, 64 * 4));                                                   \
    epoch = 0;                                                                             \
    auto f = [&] {                                                                         \
      ++epoch;                                                                             \
      const float* a0 = in;                                                                \
      float* a1 = out;                                                                     \
      int g = G;                                                                           \
      float2* a3 = partials;                                                               \
      unsigned* a4 = counters;                                                             \
      unsigned a5 = epoch;                                                                 \
      unsigned long long* a6 = ts;                                                         \
      void* args[] = {&a0, &a1, &g, &a3, &a4, &a5, &a6};                                   \
      CK(cudaLaunchCooperativeKernel((const void*)reg_grid<U, TSON>, ROWS * G, T, args));  \
    };                                                                                     \
    CK(cudaMemset(out, 0xff, bytes));                                                      \
    f();                                                                                   \
    CK(cudaDeviceSynchronize());                                                           \
    check("reg_grid");                                                                     \
    double t = time_med(f);                                                                \
    std::printf("reg_grid G=%d T=%d U=%d: %.2f us (%.3f x memcpy)\n", G, T, U, t, t_memcpy / t); \
  }
#define TSON false
  GRID(4, 16, 256);
  GRID(1, 16, 1024);
  GRID(2, 32, 256);
  GRID(1, 32, 512);
  GRID(1, 64, 256);
  GRID(1, 128, 128);
#undef TSON
#define TSON true
  {
    CK(cudaMemset(counters, 0, 64 * 4));
    epoch = 0;
    // phases of one grid design
    auto f = [&] {
      ++epoch;
      const float* a0 = in;
      float* a1 = out;
      int g = 32;
      float2* a3 = partials;
      unsigned* a4 = counters;
      unsigned a5 = epoch;
      unsigned long long* a6 = ts;
      void* args[] = {&a0, &a1, &g, &a3, &a4, &a5, &a6};
      CK(cudaLaunchCooperativeKernel((const void*)reg_grid<1, true>, ROWS * 32, 512, args));
    };
    phases("reg_grid G=32 T=512", ROWS * 32, f);
  }
  std::printf("memcpy D2D again %.2f us\n",
              time_med([&] { CK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice)); }));
  return 0;
}
