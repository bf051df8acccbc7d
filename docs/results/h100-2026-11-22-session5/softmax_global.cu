// Session 5 experiment: softmax 8 x 65536 with the row split over B plain blocks (up to 16
// per row on 128 SMs) exchanging (max, sum) pairs through L2 (a 64-bit relaxed store per
// block, warp 0 polls the row's slots), against the shipped cluster-of-8 DSMEM design
// (`./sg global`, output softmax_global-h100-1-global.txt: the first run, whose WRONG lines
// came from slots left by a previous layout, since fixed by clearing them per variant), and
// the shipped design with its loads changed (`./sg`, output -2-loads.txt, copied from the
// run's console): LM 1 a bulk L2 prefetch of the block's chunk first, LM 2 the chunk by
// cp.async.bulk into shared memory.
//   nvcc -O3 -std=c++17 -arch=sm_90a -I../../../src/kernels/softmax -o sg softmax_global.cu && ./sg [global]
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
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

// The shipped design (cluster_per_row, 8 blocks of 512 threads, U = 4).
template <int U, bool TS, int LM = 0>
__global__ void __launch_bounds__(512) cl(const float* __restrict__ in, float* __restrict__ out, int cols,
                                         unsigned long long* ts) {
  __shared__ float2 scratch[32];
  __shared__ ClusterSlots slots;
  __shared__ __align__(8) unsigned long long lbar;
  extern __shared__ float4 stage[];
  const int blk = blockIdx.x;
  STAMP(0);
  const int rank = cluster_rank();
  const long long row = cluster_index();
  const int chunk = cols / 4 / cluster_size();
  const float* x = in + row * cols + (long long)rank * chunk * 4;
  float* y = out + row * cols + (long long)rank * chunk * 4;
  float v[U][4];
  if (LM == 1) {  // L2 bulk prefetch of the block's chunk: 32 threads x chunk/32 float4
    if (threadIdx.x < 32) {
      const int part = chunk * 16 / 32;
      asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(reinterpret_cast<const char*>(x) + threadIdx.x * part),
                   "r"(part) : "memory");
    }
  }
  if (LM == 2) {  // the chunk by bulk copies into shared memory, completion on an mbarrier
    const unsigned b = static_cast<unsigned>(__cvta_generic_to_shared(&lbar));
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b) : "memory");
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(chunk * 16) : "memory");
      const int parts = 4, part = chunk * 16 / parts;
      for (int k = 0; k < parts; ++k) {
        const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(stage)) + k * part;
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(d),
                     "l"(reinterpret_cast<const char*>(x) + k * part), "r"(part), "r"(b) : "memory");
      }
    }
    __syncthreads();
    unsigned done = 0;
    do {
      asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                   : "=r"(done) : "r"(b) : "memory");
    } while (!done);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const float4 t = stage[threadIdx.x + u * blockDim.x];
      v[u][0] = t.x; v[u][1] = t.y; v[u][2] = t.z; v[u][3] = t.w;
    }
  } else {
    load_batch<4, U, true>(x, threadIdx.x, blockDim.x, chunk, v, neg_inf());
  }
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
    const int i = threadIdx.x + u * blockDim.x;
#pragma unroll
    for (int k = 0; k < 4; ++k) v[u][k] *= scale;
    store_pack<4, true>(y + (long long)i * 4, v[u]);
  }
  STAMP(5);
  if (TS && threadIdx.x == 0) ts[blk * 8 + 7] = smid();
}

// Global exchange: grid (B, rows); pairs[parity][row][B] 64-bit slots, ~0 = empty.
template <int U, bool TS>
__global__ void __launch_bounds__(512) gx(const float* __restrict__ in, float* __restrict__ out, int cols,
                                          unsigned long long* pairs, int parity, unsigned long long* ts) {
  __shared__ float2 scratch[32];
  __shared__ float2 rowpair;
  const int rank = blockIdx.x, nb = gridDim.x;
  const long long row = blockIdx.y;
  const int blk = blockIdx.y * nb + rank;
  STAMP(0);
  const int chunk = cols / 4 / nb;
  const float* x = in + row * cols + (long long)rank * chunk * 4;
  float* y = out + row * cols + (long long)rank * chunk * 4;
  unsigned long long* mine = pairs + ((size_t)parity * gridDim.y + row) * nb;
  unsigned long long* other = pairs + ((size_t)(parity ^ 1) * gridDim.y + row) * nb;
  float v[U][4];
  load_batch<4, U, true>(x, threadIdx.x, blockDim.x, chunk, v, neg_inf());
  if (threadIdx.x == 0) other[rank] = ~0ull;  // the next launch's slot
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
  if (threadIdx.x < 32) {
    if (threadIdx.x == 0) {
      const unsigned long long w =
          (unsigned long long)__float_as_uint(bp.m) | ((unsigned long long)__float_as_uint(bp.s) << 32);
      asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(mine + rank), "l"(w) : "memory");
    }
    unsigned long long w = 0;
    const int lane = threadIdx.x;
    if (lane < nb) {
      do {
        asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(w) : "l"(mine + lane) : "memory");
      } while ((unsigned)w == 0xffffffffu);
    }
    const MaxSum r = merge_lanes(MaxSum{__uint_as_float((unsigned)w), __uint_as_float((unsigned)(w >> 32))},
                                 lane < nb);
    if (lane == 0) rowpair = make_float2(r.m, r.s);
  }
  __syncthreads();
  const float2 all = rowpair;
  STAMP(4);
  const float scale = wm == neg_inf() ? 0.f : __fdividef(expf(wm - all.x), all.y);
#pragma unroll
  for (int u = 0; u < U; ++u) {
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
  return ms[ms.size() / 2] * 1e3;
}

int main(int argc, char** argv) {
  const bool global = argc > 1 && std::string(argv[1]) == "global";
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
  unsigned long long *ts, *pairs;
  CK(cudaMalloc(&ts, 4096 * 8 * 8));
  CK(cudaMalloc(&pairs, 2 * 64 * ROWS * 8));
  CK(cudaMemset(pairs, 0xff, 2 * 64 * ROWS * 8));
  auto check = [&](const char* name) {
    std::vector<float> o(n);
    CK(cudaMemcpy(o.data(), out, bytes, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (size_t i = 0; i < n; ++i) worst = std::max(worst, std::fabs(o[i] - ref[i]) / ref[i]);
    std::printf("    %s worst rel err %.3g%s\n", name, worst, worst < 1e-5 ? "" : "  WRONG");
  };
  auto phases = [&](const char* name, int blocks, const std::function<void()>& f, bool show_sm) {
    CK(cudaMemset(ts, 0, 4096 * 64));
    CK(cudaMemsetAsync(g_flush, 1, g_flush_bytes));
    f();
    CK(cudaDeviceSynchronize());
    std::vector<unsigned long long> t(blocks * 8);
    CK(cudaMemcpy(t.data(), ts, t.size() * 8, cudaMemcpyDeviceToHost));
    unsigned long long t0 = ~0ull;
    for (int b = 0; b < blocks; ++b) t0 = std::min(t0, t[b * 8]);
    std::printf("    %s phases (ns; median/max):", name);
    for (int k = 0; k < 6; ++k) {
      std::vector<long long> d;
      for (int b = 0; b < blocks; ++b)
        if (t[b * 8 + k]) d.push_back((long long)(t[b * 8 + k] - t0));
      if (d.empty()) continue;
      std::sort(d.begin(), d.end());
      std::printf(" [%d] %lld/%lld", k, d[d.size() / 2], d.back());
    }
    std::printf("\n");
    if (show_sm) {
      std::vector<int> per(256, 0);
      int shared = 0;
      for (int b = 0; b < blocks; ++b) shared += per[t[b * 8 + 7] & 255]++ > 0;
      std::printf("    blocks sharing an SM: %d\n", shared);
    }
  };
  int parity = 0;
  double t_memcpy = time_med([&] { CK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice)); });
  std::printf("memcpy D2D %.2f us\n", t_memcpy);
  auto run_cl = [&](auto kern, int C, int T, int dyn = 0) {
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn));
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
      CK(cudaLaunchKernelEx(&cfg, kern, (const float*)in, out, COLS, ts));
    };
    return std::function<void()>(go);
  };
  auto run_gx = [&](auto kern, int B, int T) {
    auto go = [=, &parity] {
      kern<<<dim3(B, ROWS), T>>>(in, out, COLS, pairs, parity, ts);
      parity ^= 1;
    };
    return std::function<void()>(go);
  };
  auto measure = [&](const char* name, int blocks, std::function<void()> f, std::function<void()> fts) {
    CK(cudaMemset(pairs, 0xff, 2 * 64 * ROWS * 8));  // every slot empty for a new layout
    parity = 0;
    CK(cudaMemset(out, 0xff, bytes));
    f();
    CK(cudaDeviceSynchronize());
    CK(cudaGetLastError());
    check(name);
    const double t = time_med(f);
    std::printf("  %-28s %.2f us (%.3f x memcpy)\n", name, t, t_memcpy / t);
    phases(name, blocks, fts, true);
  };
  for (int rep = 0; rep < 3 && global; ++rep) {  // output softmax_global-h100-1-global.txt
    measure("cluster 8 x 512 U4", 64, run_cl(cl<4, false>, 8, 512), run_cl(cl<4, true>, 8, 512));
    measure("global 8 x 512 U4", 64, run_gx(gx<4, false>, 8, 512), run_gx(gx<4, true>, 8, 512));
    measure("global 16 x 512 U2", 128, run_gx(gx<2, false>, 16, 512), run_gx(gx<2, true>, 16, 512));
    measure("global 16 x 256 U4", 128, run_gx(gx<4, false>, 16, 256), run_gx(gx<4, true>, 16, 256));
    measure("global 16 x 128 U8", 128, run_gx(gx<8, false>, 16, 128), run_gx(gx<8, true>, 16, 128));
    measure("global 32 x 256 U2", 256, run_gx(gx<2, false>, 32, 256), run_gx(gx<2, true>, 32, 256));
    t_memcpy = time_med([&] { CK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice)); });
    std::printf("memcpy D2D %.2f us\n", t_memcpy);
  }
  for (int rep = 0; rep < 3 && !global; ++rep) {  // output softmax_global-h100-2-loads.txt
    measure("cluster 8 x 512 U4", 64, run_cl(cl<4, false>, 8, 512), run_cl(cl<4, true>, 8, 512));
    measure("cluster + L2 prefetch", 64, run_cl(cl<4, false, 1>, 8, 512), run_cl(cl<4, true, 1>, 8, 512));
    measure("cluster + bulk load", 64, run_cl(cl<4, false, 2>, 8, 512, 32768), run_cl(cl<4, true, 2>, 8, 512, 32768));
    measure("cluster 16 x 256 U4", 128, run_cl(cl<4, false>, 16, 256), run_cl(cl<4, true>, 16, 256));
    measure("cluster 16 + bulk load", 128, run_cl(cl<4, false, 2>, 16, 256, 16384), run_cl(cl<4, true, 2>, 16, 256, 16384));
    t_memcpy = time_med([&] { CK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice)); });
    std::printf("memcpy D2D %.2f us\n", t_memcpy);
  }
  return 0;
}
