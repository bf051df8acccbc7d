// Session 4's transpose experiment (not part of the build): the shipped 64x64 scheme
// (4x4 per thread, swizzled tile, st.global.cs) at 8192 x 8192 against other tile orders
// (ORDER 2: groups of S tile columns; ORDER 3: column-major tiles) and against a tiled COPY
// with the same 256-byte row segments and no transposition, timed like memhier's harness
// (a 2x L2 memset flush, events around one launch, median of 30). Derived from
// ../h100-2026-11-21-session3/transpose_tiles.cu. Build and run on a GPU host:
//   nvcc -O3 -std=c++17 -arch=sm_90a -o to transpose_order.cu && ./to
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
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

// TH x TW tile, NT = TH*TW/16 threads, one 4x4 block each; ORDER 0: row-major tiles.
__device__ __forceinline__ float4 ld_mode(const float4* p, int mode, unsigned long long pol) {
  float4 v;
  if (mode == 2) {
    asm volatile("ld.global.nc.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  } else if (mode == 6) {
    asm volatile("ld.global.nc.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  } else if (mode == 3 || mode == 5) {
    asm volatile("ld.global.nc.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(pol));
  } else {
    v = *p;
  }
  return v;
}
__device__ __forceinline__ void st_mode(float4* p, float4 v, int mode, unsigned long long pol) {
  if (mode == 1 || mode == 2 || mode == 3 || mode == 6) {
    __stcs(p, v);
  } else if (mode == 4 || mode == 5) {
    asm volatile("st.global.L2::cache_hint.v4.f32 [%0], {%1,%2,%3,%4}, %5;" ::"l"(p), "f"(v.x), "f"(v.y),
                 "f"(v.z), "f"(v.w), "l"(pol) : "memory");
  } else {
    *p = v;
  }
}

template <int TH, int TW, int MODE, int MINB = 1, int ORDER = 0, int S = 8, bool COPY = false>
__global__ void __launch_bounds__(TH * TW / 16, MINB)
    vt(const float* __restrict__ in, float* __restrict__ out, int rows, int cols, unsigned tiles_x) {
  constexpr int NT = TH * TW / 16;
  constexpr int kChunks = TH / 4, kColQuads = TW / 4;
  constexpr int kRowsPerPass = NT / kChunks;  // = TW / 4
  constexpr int kPasses = TW / kRowsPerPass;  // = 4
  extern __shared__ float4 tile[];
  const int tid = threadIdx.x;
  const int a = tid / kColQuads, q = tid % kColQuads;
  const int p = tid % kChunks, cc0 = tid / kChunks;
  const unsigned t = blockIdx.x;
  unsigned tr = t / tiles_x;
  unsigned tc = t - tr * tiles_x;
  if (ORDER == 1) tc = (tc + tr) % tiles_x;
  const unsigned tiles_y = gridDim.x / tiles_x;
  if (ORDER == 2) {  // groups of S tile columns, rows fastest after the S columns
    tr = (t % (S * tiles_y)) / S;
    tc = (t / (S * tiles_y)) * S + t % S;
  }
  if (ORDER == 3) {  // column-major tiles
    tc = t / tiles_y;
    tr = t - tc * tiles_y;
  }
  const long long row0 = (long long)tr * TH, col0 = (long long)tc * TW;
  const long long r = row0 + 4 * a, c = col0 + 4 * q;
  const float4* src = reinterpret_cast<const float4*>(in + r * cols + c);
  const size_t stride = cols / 4;
  unsigned long long pol = 0;
  if (MODE >= 3) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
  const float4 v0 = ld_mode(src, MODE, pol), v1 = ld_mode(src + stride, MODE, pol),
               v2 = ld_mode(src + 2 * stride, MODE, pol), v3 = ld_mode(src + 3 * stride, MODE, pol);
  if (COPY) {  // the same access granularity, no transposition: out tile = in tile
    float4* d = reinterpret_cast<float4*>(out + r * cols + c);
    st_mode(d, v0, MODE, pol);
    st_mode(d + stride, v1, MODE, pol);
    st_mode(d + 2 * stride, v2, MODE, pol);
    st_mode(d + 3 * stride, v3, MODE, pol);
    return;
  }
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
  for (int i = 0; i < kPasses; ++i) {
    st_mode(dst + i * ps, w[i], MODE, pol);
  }
}

// Two vertically adjacent 64x64 tiles per block: tile 1's loads issued before tile 0's
// stores.
template <bool DUMMY>
__global__ void __launch_bounds__(256, 4)
    vt2(const float* __restrict__ in, float* __restrict__ out, int rows, int cols, unsigned tiles_x) {
  constexpr int TH = 64, TW = 64, kChunks = 16, kColQuads = 16, kRowsPerPass = 16, kPasses = 4;
  extern __shared__ float4 tile2[];
  float4* tl[2] = {tile2, tile2 + TH * TW / 4};
  const int tid = threadIdx.x;
  const int a = tid / kColQuads, q = tid % kColQuads;
  const int p = tid % kChunks, cc0 = tid / kChunks;
  const unsigned t = blockIdx.x;  // pair index: tile rows 2*(t / tiles_x) and +1
  const unsigned tr = t / tiles_x;
  const unsigned tc = t - tr * tiles_x;
  const size_t stride = cols / 4;
  float4 v[2][4];
#pragma unroll
  for (int k = 0; k < 2; ++k) {
    const long long r = (long long)(2 * tr + k) * TH + 4 * a, c = (long long)tc * TW + 4 * q;
    const float4* src = reinterpret_cast<const float4*>(in + r * cols + c);
#pragma unroll
    for (int j = 0; j < 4; ++j) v[k][j] = src[j * stride];
  }
#pragma unroll
  for (int k = 0; k < 2; ++k) {
    tl[k][vec_slot(4 * q + 0, a, kChunks)] = make_float4(v[k][0].x, v[k][1].x, v[k][2].x, v[k][3].x);
    tl[k][vec_slot(4 * q + 1, a, kChunks)] = make_float4(v[k][0].y, v[k][1].y, v[k][2].y, v[k][3].y);
    tl[k][vec_slot(4 * q + 2, a, kChunks)] = make_float4(v[k][0].z, v[k][1].z, v[k][2].z, v[k][3].z);
    tl[k][vec_slot(4 * q + 3, a, kChunks)] = make_float4(v[k][0].w, v[k][1].w, v[k][2].w, v[k][3].w);
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < 2; ++k) {
    const long long row0 = (long long)(2 * tr + k) * TH, col0 = (long long)tc * TW;
    const long long out_col = row0 + 4 * p, out_row = col0 + cc0;
    float4* dst = reinterpret_cast<float4*>(out + out_row * rows + out_col);
    const size_t ps = (size_t)kRowsPerPass * rows / 4;
#pragma unroll
    for (int i = 0; i < kPasses; ++i) __stcs(dst + i * ps, tl[k][vec_slot(cc0 + i * kRowsPerPass, p, kChunks)]);
  }
}

__global__ void copy4(const float4* __restrict__ a, float4* __restrict__ b, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i];
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

int main() {
  setvbuf(stdout, nullptr, _IONBF, 0);
  const int R = 8192, C = 8192;
  int l2 = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
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
  double t_memcpy = time_med([&] { CK(cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice)); });
  double t_copy = time_med([&] { copy4<<<(n / 4 + 255) / 256, 256>>>((const float4*)in, (float4*)out, n / 4); });
  std::printf("memcpy %.1f us, float4 copy %.1f us (%.3f)\n", t_memcpy, t_copy, t_memcpy / t_copy);
  auto run = [&](auto kern, int TH, int TW, const char* name, bool copy = false) {
    const int nt = TH * TW / 16;
    const int smem = TH * TW * 4;
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    const unsigned tiles_x = C / TW, tiles = (R / TH) * tiles_x;
    auto f = [&] { kern<<<tiles, nt, smem>>>(in, out, R, C, tiles_x); };
    CK(cudaMemset(out, 0xff, n * 4));
    f();
    CK(cudaDeviceSynchronize());
    CK(cudaGetLastError());
    CK(cudaMemcpy(o.data(), out, n * 4, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t r = 0; r < (size_t)R; r += 7)
      for (size_t c = 0; c < (size_t)C; c += 3)
        if (o[copy ? r * C + c : c * R + r] != h[r * C + c]) ++bad;
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, nt, smem));
    const double t = time_med(f);
    std::printf("%-16s %3dx%-3d threads %4d blocks/SM %d: %.1f us  %.3f x memcpy %s\n", name, TH, TW, nt,
                per_sm, t, t_memcpy / t, bad ? "WRONG" : "");
  };
  auto run2 = [&](const char* name) {
    const int smem = 2 * 64 * 64 * 4;
    auto kern = vt2<true>;
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    const unsigned tiles_x = C / 64, pairs = (R / 128) * tiles_x;
    auto f = [&] { kern<<<pairs, 256, smem>>>(in, out, R, C, tiles_x); };
    CK(cudaMemset(out, 0xff, n * 4));
    f();
    CK(cudaDeviceSynchronize());
    CK(cudaGetLastError());
    CK(cudaMemcpy(o.data(), out, n * 4, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t r = 0; r < (size_t)R; r += 7)
      for (size_t c = 0; c < (size_t)C; c += 3)
        if (o[c * R + r] != h[r * C + c]) ++bad;
    const double t = time_med(f);
    std::printf("%-16s: %.1f us  %.3f x memcpy %s\n", name, t, t_memcpy / t, bad ? "WRONG" : "");
  };
  for (int rep = 0; rep < 2; ++rep) {
    run(vt<64, 64, 1>, 64, 64, "64x64 stcs");
    run(vt<64, 64, 1, 1, 0, 8, true>, 64, 64, "tiled COPY stcs", true);
    run(vt<64, 64, 0, 1, 0, 8, true>, 64, 64, "tiled COPY plain", true);
    run(vt<64, 64, 1, 1, 3>, 64, 64, "stcs col-major");
    run(vt<64, 64, 1, 1, 2, 2>, 64, 64, "stcs group 2");
    run(vt<64, 64, 1, 1, 2, 4>, 64, 64, "stcs group 4");
    run(vt<64, 64, 1, 1, 2, 8>, 64, 64, "stcs group 8");
    run(vt<64, 64, 1, 1, 2, 16>, 64, 64, "stcs group 16");
    run(vt<64, 64, 1, 1, 2, 32>, 64, 64, "stcs group 32");
    run(vt<64, 64, 1, 1, 2, 64>, 64, 64, "stcs group 64");
  }
  std::printf("memcpy again %.1f us\n",
              time_med([&] { CK(cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice)); }));
  return 0;
}
