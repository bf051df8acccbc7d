// Session 6 experiment: fp32 sum at 2^28 (and 2^20) against cub::DeviceReduce::Sum, timed
// like the bench (L2 flushed by a memset before every repetition, events around one
// launch), rounds interleaved so drift hits every configuration alike. Every grid is the
// full resident grid, also at 2^20 (the product sizes its grid to n there).
// Outputs beside it: reduce_sweep-h100-1.txt (`./rs 8`) came from a first configuration
// list (block x float4 per step, load hints, orders, grids; all with FIN 0 or 1);
// reduce_sweep-h100-2-finish.txt (`./rs 10`) is the list below (the finishing variants).
// From the repository root:
//   nvcc -O3 -std=c++17 -arch=sm_90a -Iinclude -Isrc/kernels/reduction -o rs \
//     docs/results/h100-2026-11-22-session6/reduce_sweep.cu && ./rs 10
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cub/device/device_reduce.cuh>
#include <cuda/atomic>
#include <functional>
#include <string>
#include <vector>

#include "grid_stride.cuh"
using namespace memhier::reduction::detail;

#define CK(x)                                                                          \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::printf("CUDA %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

enum LM { LDG = 0, NA = 1, PF = 2, EF = 3, LU = 4 };

template <int M>
__device__ __forceinline__ float4 ld(const float4* p) {
  float4 r;
  if constexpr (M == NA)
    asm("ld.global.nc.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];"
        : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(p));
  else if constexpr (M == PF)
    asm("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];"
        : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(p));
  else if constexpr (M == EF)
    asm("ld.global.cs.nc.v4.f32 {%0,%1,%2,%3}, [%4];"
        : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(p));
  else if constexpr (M == LU)
    asm("ld.global.lu.v4.f32 {%0,%1,%2,%3}, [%4];"
        : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(p));
  else
    r = __ldg(p);
  return r;
}

// ORDER 0: grid-stride over block tiles of B*U float4 (the shipped order).
// ORDER 1: even share: each block a contiguous run of tiles (CUB's GridEvenShare).
// ORDER 2: grid-stride, each warp's U loads contiguous (U x 512 B per warp).
// FIN 0: single pass (last block finishes); FIN 1: partials only (no finishing).
template <int B, int U, int M, int ORDER, int FIN>
__global__ void __launch_bounds__(B) k(const float* in, size_t n, float* partials, unsigned* counter,
                                       float* out) {
  const float4* vec = reinterpret_cast<const float4*>(in);  // in is 256-byte aligned here
  const size_t nvec = n / 4;
  constexpr size_t tile = size_t(B) * U;
  const size_t tiles = nvec / tile;  // n is a multiple of every tile here
  float acc[U];
#pragma unroll
  for (int u = 0; u < U; ++u) acc[u] = 0.f;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  auto off = [&](int u) -> size_t {
    if (ORDER == 2) return size_t(warp) * 32 * U + size_t(u) * 32 + lane;
    return threadIdx.x + size_t(u) * B;
  };
  size_t t0, t1, step;
  if (ORDER == 1) {
    t0 = tiles * blockIdx.x / gridDim.x;
    t1 = tiles * (blockIdx.x + 1) / gridDim.x;
    step = 1;
  } else {
    t0 = blockIdx.x;
    t1 = tiles;
    step = gridDim.x;
  }
  for (size_t t = t0; t < t1; t += step) {
    float4 r[U];
#pragma unroll
    for (int u = 0; u < U; ++u) r[u] = ld<M>(vec + t * tile + off(u));
#pragma unroll
    for (int u = 0; u < U; ++u) acc[u] += (r[u].x + r[u].y) + (r[u].z + r[u].w);
  }
#pragma unroll
  for (int w = U / 2; w > 0; w /= 2)
#pragma unroll
    for (int u = 0; u < w; ++u) acc[u] += acc[u + w];
  const float v = block_reduce<SumOp, B>(acc[0]);
  __shared__ bool is_last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = v;
    if (FIN == 0) {
      __threadfence();
      is_last = atomicInc(counter, gridDim.x) == gridDim.x - 1;
    } else if (FIN >= 2) {  // one acq_rel atomic instead of two fences around a relaxed one
      cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(*counter);
      is_last = c.fetch_add(1, cuda::memory_order_acq_rel) == gridDim.x - 1;
    }
  }
  if (FIN == 1) return;
  __syncthreads();
  if (!is_last) return;
  if (FIN == 0) __threadfence();
  float w = 0.f;
  if (FIN == 3) {  // warp 0 alone reads and reduces the partials: no block barriers
    if (threadIdx.x >= 32) return;
    for (unsigned i = threadIdx.x; i < gridDim.x; i += 32) w += __ldcg(partials + i);
    w = warp_reduce<SumOp>(w);
  } else {
    for (unsigned i = threadIdx.x; i < gridDim.x; i += B) w += __ldcg(partials + i);
    w = block_reduce<SumOp, B>(w);
  }
  if (threadIdx.x == 0) {
    *out = w;
    *counter = 0;
  }
}

static char* g_flush;
static size_t g_flush_bytes;

struct Cfg {
  std::string name;
  std::function<void(size_t)> run;
  std::vector<double> us;
};

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IONBF, 0);
  const int rounds = argc > 1 ? atoi(argv[1]) : 6;
  int l2 = 0, sms = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  g_flush_bytes = size_t(l2) * 2;
  CK(cudaMalloc(&g_flush, g_flush_bytes));
  const size_t N = size_t(1) << 28;
  std::vector<float> h(N);
  srand(11);
  for (auto& x : h) x = rand() / (float)RAND_MAX - 0.25f;
  float *in, *out, *partials;
  unsigned* counter;
  CK(cudaMalloc(&in, N * 4));
  CK(cudaMalloc(&out, 4));
  CK(cudaMalloc(&partials, 1 << 20));
  CK(cudaMalloc(&counter, 4));
  CK(cudaMemset(counter, 0, 4));
  CK(cudaMemcpy(in, h.data(), N * 4, cudaMemcpyHostToDevice));
  void* cub_tmp = nullptr;
  size_t cub_bytes = 0;
  CK(cub::DeviceReduce::Sum(nullptr, cub_bytes, in, out, (int)N));
  CK(cudaMalloc(&cub_tmp, cub_bytes));

  std::vector<Cfg> cfgs;
  cfgs.push_back({"cub::DeviceReduce::Sum", [&](size_t n) {
                    CK(cub::DeviceReduce::Sum(cub_tmp, cub_bytes, in, out, (int)n));
                  }});
  auto add = [&](const std::string& name, auto kern, int B, int per_sm_cap) {
    int per = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kern, B, 0));
    if (per_sm_cap > 0) per = std::min(per, per_sm_cap);
    const unsigned grid = per * sms;
    cfgs.push_back({name + " g=" + std::to_string(per) + "x" + std::to_string(sms), [=](size_t n) {
                      kern<<<grid, B>>>(in, n, partials, counter, out);
                    }});
  };
#define ADD(B, U, M, O, F, CAP) \
  add(#B "x" #U " " #M " order" #O " fin" #F, k<B, U, M, O, F>, B, CAP)
  ADD(512, 2, LDG, 0, 0, 0);  // the shipped best
  ADD(512, 2, LDG, 0, 1, 0);
  ADD(512, 2, LDG, 0, 2, 0);
  ADD(512, 2, LDG, 0, 3, 0);
  ADD(256, 4, LDG, 0, 0, 0);  // the shipped single_pass rung
  ADD(256, 4, LDG, 0, 2, 0);
  ADD(256, 4, LDG, 0, 3, 0);
  ADD(512, 4, LDG, 0, 0, 0);
  ADD(512, 4, LDG, 0, 1, 0);
  ADD(512, 4, LDG, 0, 2, 0);
  ADD(512, 4, LDG, 0, 3, 0);
  ADD(512, 4, LDG, 0, 3, 2);
  ADD(512, 4, LDG, 0, 3, 3);
  ADD(512, 8, LDG, 0, 3, 2);
  ADD(512, 8, LDG, 0, 3, 1);
  ADD(1024, 4, LDG, 0, 3, 0);
  ADD(1024, 4, LDG, 0, 3, 1);
  ADD(256, 8, LDG, 0, 3, 4);
  ADD(512, 4, LDG, 2, 3, 0);

  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (size_t n : {N, size_t(1) << 20}) {
    // correctness of every configuration first (float64 reference)
    double ref = 0;
    for (size_t i = 0; i < n; ++i) ref += h[i];
    for (auto& c : cfgs) {
      c.us.clear();
      CK(cudaMemset(out, 0xff, 4));
      c.run(n);
      CK(cudaDeviceSynchronize());
      float got = 0;
      if (c.name.find("fin1") == std::string::npos) {
        CK(cudaMemcpy(&got, out, 4, cudaMemcpyDeviceToHost));
        if (std::fabs(got - ref) > 1e-4 * std::fabs(ref)) std::printf("WRONG %s: %g vs %g\n", c.name.c_str(), got, ref);
      }
    }
    const int reps = n == N ? 8 : 40;
    for (int r = 0; r < rounds; ++r)
      for (auto& c : cfgs)
        for (int i = 0; i < reps; ++i) {
          CK(cudaMemsetAsync(g_flush, (r + i) & 0xff, g_flush_bytes));
          CK(cudaEventRecord(a));
          c.run(n);
          CK(cudaEventRecord(b));
          CK(cudaEventSynchronize(b));
          float t;
          CK(cudaEventElapsedTime(&t, a, b));
          c.us.push_back(t * 1e3);
        }
    const double gb = n * 4.0;
    std::vector<double> cub_us = cfgs[0].us;
    std::sort(cub_us.begin(), cub_us.end());
    const double cub_med = cub_us[cub_us.size() / 2];
    std::printf("\nn = %zu (%d rounds x %d reps, median; x CUB = CUB median / ours)\n", n, rounds, reps);
    for (auto& c : cfgs) {
      std::vector<double> s = c.us;
      std::sort(s.begin(), s.end());
      const double med = s[s.size() / 2];
      std::printf("  %-40s %9.2f us  %7.1f GB/s  %.4f x CUB  (p10 %.2f p90 %.2f)\n", c.name.c_str(), med,
                  gb / med * 1e-3, cub_med / med, s[s.size() / 10], s[s.size() * 9 / 10]);
    }
  }
  return 0;
}
