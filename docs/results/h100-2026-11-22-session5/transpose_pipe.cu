// Session 5's transpose experiment (not part of the build), at 8192 x 8192 against the
// scheme shipped before it (best_64x64: 4x4 per thread through a swizzled transposed tile,
// .cs stores), timed like memhier's harness (a 2x L2 memset flush, events around one
// launch, median of 30). Modes (argv[1]):
//   piped    a cp.async multi-stage pipeline: persistent blocks, tile n+S-1's loads in
//            flight while tile n is transposed and stored
//   reg      no shared memory: a warp of A row quads x 32/A column quads, each thread a 4x4
//            block transposed in registers
//   far, near, prefetch (default)  the shipped scheme plus a bulk L2 prefetch
//            (cp.async.bulk.prefetch.L2) of the input rows of tile blockIdx + distance
// Build and run on a GPU host:
//   nvcc -O3 -std=c++17 -arch=sm_90a -o tp transpose_pipe.cu && ./tp MODE
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#define CK(x)                                                                        \
  do {                                                                               \
    cudaError_t e_ = (x);                                                            \
    if (e_ != cudaSuccess) {                                                         \
      std::printf("CUDA %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

__host__ __device__ inline int vec_slot(int row, int chunk, int chunks_per_row) {
  return row * chunks_per_row + (chunk ^ ((row >> 2) & 7));
}

// The shipped scheme, one 64x64 tile per block.
__global__ void __launch_bounds__(256, 6)
    shipped(const float* __restrict__ in, float* __restrict__ out, int rows, int cols, unsigned tiles_x) {
  constexpr int kChunks = 16, kColQuads = 16, kRowsPerPass = 16, kPasses = 4;
  __shared__ float4 tile[64 * 16];
  const int tid = threadIdx.x;
  const int a = tid / kColQuads, q = tid % kColQuads;
  const int p = tid % kChunks, cc0 = tid / kChunks;
  const unsigned t = blockIdx.x;
  const unsigned tr = t / tiles_x, tc = t - tr * tiles_x;
  const long long row0 = (long long)tr * 64, col0 = (long long)tc * 64;
  const long long r = row0 + 4 * a, c = col0 + 4 * q;
  const float4* src = reinterpret_cast<const float4*>(in + r * cols + c);
  const size_t stride = cols / 4;
  const float4 v0 = src[0], v1 = src[stride], v2 = src[2 * stride], v3 = src[3 * stride];
  tile[vec_slot(4 * q + 0, a, kChunks)] = make_float4(v0.x, v1.x, v2.x, v3.x);
  tile[vec_slot(4 * q + 1, a, kChunks)] = make_float4(v0.y, v1.y, v2.y, v3.y);
  tile[vec_slot(4 * q + 2, a, kChunks)] = make_float4(v0.z, v1.z, v2.z, v3.z);
  tile[vec_slot(4 * q + 3, a, kChunks)] = make_float4(v0.w, v1.w, v2.w, v3.w);
  __syncthreads();
  float4 w[kPasses];
#pragma unroll
  for (int i = 0; i < kPasses; ++i) w[i] = tile[vec_slot(cc0 + i * kRowsPerPass, p, kChunks)];
  const long long out_col = row0 + 4 * p, out_row = col0 + cc0;
  float4* dst = reinterpret_cast<float4*>(out + out_row * rows + out_col);
  const size_t ps = (size_t)kRowsPerPass * rows / 4;
#pragma unroll
  for (int i = 0; i < kPasses; ++i) __stcs(dst + i * ps, w[i]);
}

// The shipped scheme plus a bulk L2 prefetch of tile blockIdx + dist (one 256-byte row per thread < 64).
__global__ void __launch_bounds__(256, 6)
    shipped_pf(const float* __restrict__ in, float* __restrict__ out, int rows, int cols, unsigned tiles_x, unsigned tiles, unsigned dist) {
  constexpr int kChunks = 16, kColQuads = 16, kRowsPerPass = 16, kPasses = 4;
  __shared__ float4 tile[64 * 16];
  const int tid = threadIdx.x;
  const int a = tid / kColQuads, q = tid % kColQuads;
  const int p = tid % kChunks, cc0 = tid / kChunks;
  const unsigned t = blockIdx.x;
  const unsigned tr = t / tiles_x, tc = t - tr * tiles_x;
  const long long row0 = (long long)tr * 64, col0 = (long long)tc * 64;
  if (tid < 64 && t + dist < tiles) {
    const unsigned u = t + dist, ur = u / tiles_x, uc = u - ur * tiles_x;
    const float* pr = in + ((long long)ur * 64 + tid) * cols + (long long)uc * 64;
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], 256;" ::"l"(pr) : "memory");
  }
  const long long r = row0 + 4 * a, c = col0 + 4 * q;
  const float4* src = reinterpret_cast<const float4*>(in + r * cols + c);
  const size_t stride = cols / 4;
  const float4 v0 = src[0], v1 = src[stride], v2 = src[2 * stride], v3 = src[3 * stride];
  tile[vec_slot(4 * q + 0, a, kChunks)] = make_float4(v0.x, v1.x, v2.x, v3.x);
  tile[vec_slot(4 * q + 1, a, kChunks)] = make_float4(v0.y, v1.y, v2.y, v3.y);
  tile[vec_slot(4 * q + 2, a, kChunks)] = make_float4(v0.z, v1.z, v2.z, v3.z);
  tile[vec_slot(4 * q + 3, a, kChunks)] = make_float4(v0.w, v1.w, v2.w, v3.w);
  __syncthreads();
  float4 w[kPasses];
#pragma unroll
  for (int i = 0; i < kPasses; ++i) w[i] = tile[vec_slot(cc0 + i * kRowsPerPass, p, kChunks)];
  const long long out_col = row0 + 4 * p, out_row = col0 + cc0;
  float4* dst = reinterpret_cast<float4*>(out + out_row * rows + out_col);
  const size_t ps = (size_t)kRowsPerPass * rows / 4;
#pragma unroll
  for (int i = 0; i < kPasses; ++i) __stcs(dst + i * ps, w[i]);
}

__device__ __forceinline__ void cp16(void* s, const void* g) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(s));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(g) : "memory");
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

// Input-layout stage: row r (0..63) of 16 float4 chunks, chunk q at q ^ ((r>>2)&7).
__device__ __forceinline__ int in_slot(int r, int q) { return r * 16 + (q ^ ((r >> 2) & 7)); }

// ORDER 0: tiles t = blockIdx + n*grid, row-major. ORDER 1: each block a contiguous run.
template <int S, int MINB, int ORDER>
__global__ void __launch_bounds__(256, MINB)
    piped(const float* __restrict__ in, float* __restrict__ out, int rows, int cols, unsigned tiles_x,
          unsigned tiles) {
  extern __shared__ float4 sm[];
  const int tid = threadIdx.x;
  const int lq = tid & 15, lr = tid >> 4;  // loader: chunk lq of rows lr + 16 j
  const int p = tid & 15, k = tid >> 4;    // consumer: row quad p, chunk k
  const size_t stride4 = cols / 4;
  unsigned first, step, count;
  if (ORDER == 0) {
    first = blockIdx.x;
    step = gridDim.x;
    count = blockIdx.x < tiles ? (tiles - 1 - blockIdx.x) / gridDim.x + 1 : 0;
  } else {
    const unsigned per = tiles / gridDim.x, extra = tiles % gridDim.x;
    first = blockIdx.x * per + min(blockIdx.x, extra);
    count = per + (blockIdx.x < extra ? 1 : 0);
    step = 1;
  }
  auto issue = [&](unsigned n) {
    if (n < count) {
      const unsigned t = first + n * step;
      const unsigned tr = t / tiles_x, tc = t - tr * tiles_x;
      const float4* src = reinterpret_cast<const float4*>(in + (long long)tr * 64 * cols + (long long)tc * 64) +
                          lr * stride4 + lq;
      float4* st = sm + (n % S) * 1024;
#pragma unroll
      for (int j = 0; j < 4; ++j) cp16(st + in_slot(lr + 16 * j, lq), src + 16 * j * stride4);
    }
    cp_commit();
  };
#pragma unroll
  for (int s = 0; s < S - 1; ++s) issue(s);
  for (unsigned n = 0; n < count; ++n) {
    cp_wait<S - 2>();
    __syncthreads();
    issue(n + S - 1);
    const float4* st = sm + (n % S) * 1024;
    float4 v[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) v[i] = st[in_slot(4 * p + i, k)];
    const unsigned t = first + n * step;
    const unsigned tr = t / tiles_x, tc = t - tr * tiles_x;
    const long long out_row = (long long)tc * 64 + 4 * k, out_col = (long long)tr * 64 + 4 * p;
    float4* dst = reinterpret_cast<float4*>(out + out_row * rows + out_col);
    const size_t os = rows / 4;
    __stcs(dst, make_float4(v[0].x, v[1].x, v[2].x, v[3].x));
    __stcs(dst + os, make_float4(v[0].y, v[1].y, v[2].y, v[3].y));
    __stcs(dst + 2 * os, make_float4(v[0].z, v[1].z, v[2].z, v[3].z));
    __stcs(dst + 3 * os, make_float4(v[0].w, v[1].w, v[2].w, v[3].w));
  }
}

// No shared memory: each thread loads a 4x4 block (4 float4 from 4 input rows), transposes it
// in registers and stores 4 float4 along output rows. A warp is A row quads x 32/A column
// quads: loads are A*4 rows x (32/A)*16 bytes, stores (32/A)*4 rows x A*16 bytes.
template <int A, bool CS>
__global__ void __launch_bounds__(256)
    regt(const float* __restrict__ in, float* __restrict__ out, int rows, int cols, unsigned tiles_x) {
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  constexpr int WR = 16 / A;  // warps along the tile's rows
  const int a = (w % WR) * A + lane % A;
  const int q = (w / WR) * (32 / A) + lane / A;
  const unsigned t = blockIdx.x;
  const unsigned tr = t / tiles_x, tc = t - tr * tiles_x;
  const long long r = (long long)tr * 64 + 4 * a, c = (long long)tc * 64 + 4 * q;
  const float4* src = reinterpret_cast<const float4*>(in + r * cols + c);
  const size_t s = cols / 4;
  const float4 v0 = src[0], v1 = src[s], v2 = src[2 * s], v3 = src[3 * s];
  float4* dst = reinterpret_cast<float4*>(out + c * rows + r);
  const size_t os = rows / 4;
  if (CS) {
    __stcs(dst, make_float4(v0.x, v1.x, v2.x, v3.x));
    __stcs(dst + os, make_float4(v0.y, v1.y, v2.y, v3.y));
    __stcs(dst + 2 * os, make_float4(v0.z, v1.z, v2.z, v3.z));
    __stcs(dst + 3 * os, make_float4(v0.w, v1.w, v2.w, v3.w));
  } else {
    dst[0] = make_float4(v0.x, v1.x, v2.x, v3.x);
    dst[os] = make_float4(v0.y, v1.y, v2.y, v3.y);
    dst[2 * os] = make_float4(v0.z, v1.z, v2.z, v3.z);
    dst[3 * os] = make_float4(v0.w, v1.w, v2.w, v3.w);
  }
}

static char* g_flush;
static size_t g_flush_bytes;

double time_med(const std::function<void()>& f, int reps = 30) {
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
  const std::string mode = argc > 1 ? argv[1] : "prefetch";
  setvbuf(stdout, nullptr, _IONBF, 0);
  const int R = 8192, C = 8192;
  int l2 = 0, sms = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  g_flush_bytes = size_t(l2) * 2;
  CK(cudaMalloc(&g_flush, g_flush_bytes));
  const size_t n = size_t(R) * C;
  std::vector<float> h(n);
  for (size_t i = 0; i < n; ++i) h[i] = float((i * 2654435761u) % 1000003);
  float *in, *out;
  CK(cudaMalloc(&in, n * 4));
  CK(cudaMalloc(&out, n * 4));
  CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
  std::vector<float> o(n);
  const unsigned tiles_x = C / 64, tiles = (R / 64) * tiles_x;
  auto check = [&](const char* name) {
    CK(cudaMemcpy(o.data(), out, n * 4, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t r = 0; r < (size_t)R; r += 3)
      for (size_t c = 0; c < (size_t)C; c += 1)
        if (o[c * R + r] != h[r * C + c]) ++bad;
    if (bad) std::printf("  %s WRONG: %zu\n", name, bad);
  };
  double t_memcpy = 0;
  auto memcpy_t = [&] { t_memcpy = time_med([&] { CK(cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice)); }); };
  memcpy_t();
  std::printf("memcpy %.1f us (%d SMs)\n", t_memcpy, sms);
  auto run_shipped = [&] {
    auto f = [&] { shipped<<<tiles, 256>>>(in, out, R, C, tiles_x); };
    CK(cudaMemset(out, 0xff, n * 4));
    f();
    CK(cudaDeviceSynchronize());
    check("shipped");
    const double t = time_med(f);
    std::printf("shipped 64x64            : %.1f us %.3f x memcpy\n", t, t_memcpy / t);
  };
  auto run = [&](auto kern, int S, int blocks_per_sm, int order, const char* name) {
    const int smem = S * 16384;
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, 256, smem));
    const int bps = blocks_per_sm > 0 ? std::min(per_sm, blocks_per_sm) : per_sm;
    const unsigned grid = bps * sms;
    auto f = [&] { kern<<<grid, 256, smem>>>(in, out, R, C, tiles_x, tiles); };
    CK(cudaMemset(out, 0xff, n * 4));
    f();
    CK(cudaDeviceSynchronize());
    CK(cudaGetLastError());
    check(name);
    const double t = time_med(f);
    std::printf("%-8s S=%d order %d %d/SM (max %d): %.1f us %.3f x memcpy\n", name, S, order, bps, per_sm, t,
                t_memcpy / t);
  };
  auto run_reg = [&](auto kern, const char* name) {
    auto f = [&] { kern<<<tiles, 256>>>(in, out, R, C, tiles_x); };
    CK(cudaMemset(out, 0xff, n * 4));
    f();
    CK(cudaDeviceSynchronize());
    CK(cudaGetLastError());
    check(name);
    const double t = time_med(f);
    std::printf("%-24s : %.1f us %.3f x memcpy\n", name, t, t_memcpy / t);
  };
  auto run_pf = [&](unsigned dist) {
    auto f = [&] { shipped_pf<<<tiles, 256>>>(in, out, R, C, tiles_x, tiles, dist); };
    CK(cudaMemset(out, 0xff, n * 4));
    f();
    CK(cudaDeviceSynchronize());
    CK(cudaGetLastError());
    check("pf");
    const double t = time_med(f);
    std::printf("shipped + L2 prefetch %5u : %.1f us %.3f x memcpy\n", dist, t, t_memcpy / t);
  };
  // Outputs beside this file: transpose_pipe-h100-1-piped.txt, -2-reg.txt, -3-prefetch-far.txt,
  // -4-prefetch-near.txt, -5-prefetch-own.txt (the modes below, in that order).
  for (int rep = 0; rep < 2 && mode == "piped"; ++rep) {
    run_shipped();
    run(piped<2, 1, 0>, 2, 0, 0, "piped");
    run(piped<2, 1, 0>, 2, 4, 0, "piped");
    run(piped<3, 1, 0>, 3, 0, 0, "piped");
    run(piped<3, 1, 0>, 3, 2, 0, "piped");
    run(piped<4, 1, 0>, 4, 0, 0, "piped");
    run(piped<4, 1, 0>, 4, 2, 0, "piped");
    run(piped<6, 1, 0>, 6, 0, 0, "piped");
    run(piped<3, 1, 1>, 3, 0, 1, "piped");
    run(piped<4, 1, 1>, 4, 0, 1, "piped");
    memcpy_t();
    std::printf("memcpy %.1f us\n", t_memcpy);
  }
  for (int rep = 0; rep < 3 && mode == "reg"; ++rep) {
    run_shipped();
    run_reg(regt<16, true>, "reg A=16 cs");
    run_reg(regt<16, false>, "reg A=16 plain");
    run_reg(regt<8, true>, "reg A=8 cs");
    run_reg(regt<8, false>, "reg A=8 plain");
    run_reg(regt<4, true>, "reg A=4 cs");
    run_reg(regt<2, true>, "reg A=2 cs");
    memcpy_t();
    std::printf("memcpy %.1f us\n", t_memcpy);
  }
  const std::vector<unsigned> far = {132, 396, 792, 1584, 3168},
                              near = {16, 32, 64, 100, 128, 132, 160, 200, 256, 264},
                              own = {0, 1, 4, 8, 64};
  const std::vector<unsigned>& dists = mode == "far" ? far : mode == "near" ? near : own;
  for (int rep = 0; rep < 3 && (mode == "far" || mode == "near" || mode == "prefetch"); ++rep) {
    run_shipped();
    for (unsigned d : dists) run_pf(d);
    memcpy_t();
    std::printf("memcpy %.1f us\n", t_memcpy);
  }
  return 0;
}
