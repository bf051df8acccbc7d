// Session 6 experiment: softmax 8 x 65536 where K clusters of C blocks share a row. Every
// cluster reads the whole row (the other clusters' reads of the same lines hit L2) and
// computes the row's (max, sum) itself, but each block stores only 1/K of its chunk: the
// per-SM store issue (0.64 us for 32 KB, session 4) is split over K times as many SMs.
// K = 1 is the shipped design. Timed like the bench (L2 flushed before each repetition).
// Output beside it: softmax_dup-h100-1.txt. From the repository root:
//   nvcc -O3 -std=c++17 -arch=sm_90a -Isrc/kernels/softmax -o sd \
//     docs/results/h100-2026-11-22-session6/softmax_dup.cu && ./sd
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "common.cuh"
using namespace memhier::softmax::detail;

#define CK(x)                                                                          \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::printf("CUDA %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

constexpr int ROWS = 8, COLS = 65536;

__device__ __forceinline__ unsigned long long gtime() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ unsigned smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %smid;" : "=r"(s));
  return s;
}
#define STAMP(k) \
  if (TS && threadIdx.x == 0) ts[blk * 8 + (k)] = gtime();

template <int U, int T, int K, bool TS>
__global__ void __launch_bounds__(T) cl(const float* __restrict__ in, float* __restrict__ out, int cols,
                                        unsigned long long* ts) {
  __shared__ float2 scratch[32];
  __shared__ ClusterSlots slots;
  const int blk = blockIdx.x;
  STAMP(0);
  const int rank = cluster_rank();
  const int cid = cluster_index();
  const long long row = K == 1 ? cid : cid / K;
  const int part = K == 1 ? 0 : cid % K;
  const int chunk = cols / 4 / cluster_size();
  const float* x = in + row * cols + (long long)rank * chunk * 4;
  float* y = out + row * cols + (long long)rank * chunk * 4;
  float v[U][4];
  load_batch<4, U, true>(x, threadIdx.x, blockDim.x, chunk, v, neg_inf());
  cluster_exchange_begin(slots);
  float tmax = neg_inf();
#pragma unroll
  for (int u = 0; u < U; ++u)
#pragma unroll
    for (int k = 0; k < 4; ++k) tmax = fmaxf(tmax, v[u][k]);
  const float wm = warp_max_redux(tmax);
  STAMP(1);
  const float use = safe_max(wm);
  float sum = 0.f;
#pragma unroll
  for (int u = 0; u < U; ++u)
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      v[u][k] = exp_fast(v[u][k] - use);
      sum += v[u][k];
    }
  const MaxSum bp = block_combine<true>(MaxSum{wm, sum}, scratch);
  STAMP(2);
  const MaxSum all = cluster_exchange(slots, bp);
  STAMP(4);
  const float scale = wm == neg_inf() ? 0.f : __fdividef(expf(wm - all.m), all.s);
#pragma unroll
  for (int u = 0; u < U; ++u) {
    if (K > 1 && u * K / U != part) continue;  // this cluster's share of the stores
    const int i = threadIdx.x + u * blockDim.x;
#pragma unroll
    for (int k = 0; k < 4; ++k) v[u][k] *= scale;
    store_pack<4, true>(y + (long long)i * 4, v[u]);
  }
  STAMP(5);
  if (TS && threadIdx.x == 0) ts[blk * 8 + 7] = smid();
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
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return ms[ms.size() / 2] * 1e3;
}

int main() {
  setvbuf(stdout, nullptr, _IONBF, 0);
  int l2 = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  g_flush_bytes = size_t(l2) * 2;
  CK(cudaMalloc(&g_flush, g_flush_bytes));
  const size_t n = size_t(ROWS) * COLS, bytes = n * 4;
  std::vector<float> h(n);
  srand(7);
  for (auto& x : h) x = (rand() / (float)RAND_MAX) * 8.f - 4.f;
  float *in, *out;
  CK(cudaMalloc(&in, bytes));
  CK(cudaMalloc(&out, bytes));
  CK(cudaMemcpy(in, h.data(), bytes, cudaMemcpyHostToDevice));
  std::vector<double> ref(n);
  for (int r = 0; r < ROWS; ++r) {
    double m = -1e300, s = 0;
    for (int c = 0; c < COLS; ++c) m = std::max(m, (double)h[r * COLS + c]);
    for (int c = 0; c < COLS; ++c) s += std::exp(h[r * COLS + c] - m);
    for (int c = 0; c < COLS; ++c) ref[r * COLS + c] = std::exp(h[r * COLS + c] - m) / s;
  }
  unsigned long long* ts;
  CK(cudaMalloc(&ts, 4096 * 8 * 8));
  auto check = [&](const char* name) {
    std::vector<float> o(n);
    CK(cudaMemcpy(o.data(), out, bytes, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (size_t i = 0; i < n; ++i) worst = std::max(worst, std::fabs(o[i] - ref[i]) / ref[i]);
    if (!(worst < 1e-5)) std::printf("    %s worst rel err %.3g  WRONG\n", name, worst);
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
    std::printf("    phases (ns; median/max):");
    for (int k = 0; k < 6; ++k) {
      std::vector<long long> d;
      for (int b = 0; b < blocks; ++b)
        if (t[b * 8 + k]) d.push_back((long long)(t[b * 8 + k] - t0));
      if (d.empty()) continue;
      std::sort(d.begin(), d.end());
      std::printf(" [%d] %lld/%lld", k, d[d.size() / 2], d.back());
    }
    std::vector<int> per(256, 0);
    int shared = 0;
    for (int b = 0; b < blocks; ++b) shared += per[t[b * 8 + 7] & 255]++ > 0;
    std::printf("; blocks sharing an SM: %d\n", shared);
    (void)name;
  };
  auto run_cl = [&](auto kern, int C, int K, int T) {
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    auto go = [=] {
      cudaLaunchConfig_t cfg{};
      cfg.gridDim = dim3(ROWS * C * K);
      cfg.blockDim = dim3(T);
      cudaLaunchAttribute at[1];
      at[0].id = cudaLaunchAttributeClusterDimension;
      at[0].val.clusterDim.x = C;
      at[0].val.clusterDim.y = 1;
      at[0].val.clusterDim.z = 1;
      cfg.attrs = at;
      cfg.numAttrs = 1;
      CK(cudaLaunchKernelEx(&cfg, kern, (const float*)in, out, COLS, ts));
    };
    return std::function<void()>(go);
  };
  auto active = [&](auto kern, int C, int T) {
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(ROWS * C * 2);
    cfg.blockDim = dim3(T);
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = C;
    at[0].val.clusterDim.y = 1;
    at[0].val.clusterDim.z = 1;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    int nc = 0;
    CK(cudaOccupancyMaxActiveClusters(&nc, kern, &cfg));
    return nc;
  };
  std::printf("max active clusters: C=8 T=512: %d, C=8 T=1024: %d, C=4 T=1024: %d, C=16 T=512: %d\n",
              active(cl<4, 512, 2, false>, 8, 512), active(cl<2, 1024, 2, false>, 8, 1024),
              active(cl<4, 1024, 2, false>, 4, 1024), active(cl<2, 512, 1, false>, 16, 512));
  struct V {
    const char* name;
    int blocks;
    std::function<void()> f, fts;
  };
  std::vector<V> vs = {
      {"shipped: 8 clusters of 8 x 512, U4", 64, run_cl(cl<4, 512, 1, false>, 8, 1, 512),
       run_cl(cl<4, 512, 1, true>, 8, 1, 512)},
      {"8 clusters of 8 x 1024, U2", 64, run_cl(cl<2, 1024, 1, false>, 8, 1, 1024),
       run_cl(cl<2, 1024, 1, true>, 8, 1, 1024)},
      {"K=2: 16 clusters of 8 x 512, U4", 128, run_cl(cl<4, 512, 2, false>, 8, 2, 512),
       run_cl(cl<4, 512, 2, true>, 8, 2, 512)},
      {"K=2: 16 clusters of 8 x 1024, U2", 128, run_cl(cl<2, 1024, 2, false>, 8, 2, 1024),
       run_cl(cl<2, 1024, 2, true>, 8, 2, 1024)},
      {"K=2: 16 clusters of 4 x 1024, U4", 64, run_cl(cl<4, 1024, 2, false>, 4, 2, 1024),
       run_cl(cl<4, 1024, 2, true>, 4, 2, 1024)},
      {"K=4: 32 clusters of 4 x 1024, U4", 128, run_cl(cl<4, 1024, 4, false>, 4, 4, 1024),
       run_cl(cl<4, 1024, 4, true>, 4, 4, 1024)},
      {"K=2: 16 clusters of 16 x 256, U4", 256, run_cl(cl<4, 256, 2, false>, 16, 2, 256),
       run_cl(cl<4, 256, 2, true>, 16, 2, 256)},
  };
  for (int rep = 0; rep < 3; ++rep) {
    double t_memcpy = time_med([&] { CK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice)); });
    std::printf("memcpy D2D %.2f us\n", t_memcpy);
    for (auto& v : vs) {
      CK(cudaMemset(out, 0xff, bytes));
      v.f();
      CK(cudaDeviceSynchronize());
      CK(cudaGetLastError());
      check(v.name);
      const double t = time_med(v.f);
      std::printf("  %-38s %.2f us (%.3f x memcpy)\n", v.name, t, t_memcpy / t);
      if (rep == 0) phases(v.name, v.blocks, v.fts);
    }
  }
  return 0;
}
