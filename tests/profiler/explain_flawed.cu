// A program of deliberately flawed kernels for `memhier explain`'s GPU test: each kernel has one
// flaw (a strided load, an unpadded shared-memory transpose, a dynamically indexed local array,
// a register count that limits occupancy) and one has none (a float4 copy). It is a user's
// program as far as explain knows: it links nothing of memhier's. `--repeat N` launches a small
// copy N more times (the many-launch test). Sizes follow the device, not a card.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(call)                                                                               \
  do {                                                                                            \
    const cudaError_t e_ = (call);                                                                \
    if (e_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

// The kernels at global scope: ncu names them as a user's kernels usually read.
constexpr int kStride = 32;  // floats between two lanes' loads: one 128-byte line each

// Flaw: lane i reads in[32 i]: every lane of a warp a line of its own.
static __global__ void strided_load(const float* __restrict__ in, float* __restrict__ out, long n) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i * kStride] * 2.0f;
}

// Flaw: a [32][32] tile read down its columns: a 32-way bank conflict on every column read.
static __global__ void transpose_unpadded(const float* __restrict__ in, float* __restrict__ out,
                                          int n) {
  __shared__ float tile[32][32];
  const int x = blockIdx.x * 32 + threadIdx.x;
  for (int r = threadIdx.y; r < 32; r += blockDim.y)
    tile[r][threadIdx.x] = in[static_cast<long>(blockIdx.y * 32 + r) * n + x];
  __syncthreads();
  const int tx = blockIdx.y * 32 + threadIdx.x;
  for (int r = threadIdx.y; r < 32; r += blockDim.y)
    out[static_cast<long>(blockIdx.x * 32 + r) * n + tx] = tile[threadIdx.x][r];
}

// Flaw: an array indexed by a runtime value lives in local memory, not in registers.
constexpr int kLocal = 64;
static __global__ void forced_spills(const float* __restrict__ in, float* __restrict__ out,
                                     long n) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float buf[kLocal];
  const float x = in[i];
  for (int j = 0; j < kLocal; ++j) buf[j] = x * static_cast<float>(j);
  float s = 0;
  for (int j = 0; j < kLocal; ++j) s += buf[(j * 7 + static_cast<int>(i)) & (kLocal - 1)];
  out[i] = s;
}

// Flaw: 96 accumulators live across a chain of dependent loads: over a hundred registers a
// thread, so few warps fit an SM, and each warp has one load in flight.
constexpr int kAcc = 96;
static __global__ void __launch_bounds__(256, 1)
    register_limited(const float* __restrict__ in, float* __restrict__ out, long n, int rounds) {
  float acc[kAcc];
#pragma unroll
  for (int j = 0; j < kAcc; ++j) acc[j] = static_cast<float>(j);
  const long first = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long stride = static_cast<long>(gridDim.x) * blockDim.x;
  long idx = first;
  for (int r = 0; r < rounds; ++r) {
#pragma unroll
    for (int j = 0; j < kAcc; ++j) {
      const float x = in[idx % n];
      idx += stride + static_cast<long>(x);  // in[] holds zeros: the next load waits for this one
      acc[j] += x;
    }
  }
  float s = 0;
#pragma unroll
  for (int j = 0; j < kAcc; ++j) s += acc[j];
  out[first] = s;
}

// No flaw: a float4 copy, four loads in flight per thread before the stores.
static __global__ void copy_clean(const float4* __restrict__ in, float4* __restrict__ out,
                                  long n4) {
  const long stride = static_cast<long>(gridDim.x) * blockDim.x;
  long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n4; i += 4 * stride) {
    const float4 a = in[i], b = in[i + stride], c = in[i + 2 * stride], d = in[i + 3 * stride];
    out[i] = a;
    out[i + stride] = b;
    out[i + 2 * stride] = c;
    out[i + 3 * stride] = d;
  }
  for (; i < n4; i += stride) out[i] = in[i];
}

int main(int argc, char** argv) {
  long repeat = 0;
  for (int a = 1; a + 1 < argc; ++a)
    if (std::strcmp(argv[a], "--repeat") == 0) repeat = std::atol(argv[a + 1]);
  int dev = 0;
  CHECK(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, dev));
  const int sms = prop.multiProcessorCount;

  const long n = 1L << 26;  // 256 MiB of floats: far past any L2
  float *a = nullptr, *b = nullptr;
  CHECK(cudaMalloc(&a, n * sizeof(float)));
  CHECK(cudaMalloc(&b, n * sizeof(float)));
  CHECK(cudaMemset(a, 0, n * sizeof(float)));
  CHECK(cudaMemset(b, 0, n * sizeof(float)));

  const long strided_n = n / kStride;
  strided_load<<<static_cast<unsigned>((strided_n + 255) / 256), 256>>>(a, b, strided_n);
  CHECK(cudaGetLastError());

  const int side = 8192;  // side x side floats: 256 MiB
  transpose_unpadded<<<dim3(side / 32, side / 32), dim3(32, 8)>>>(a, b, side);
  CHECK(cudaGetLastError());

  const long spill_n = n / 8;
  forced_spills<<<static_cast<unsigned>((spill_n + 255) / 256), 256>>>(a, b, spill_n);
  CHECK(cudaGetLastError());

  register_limited<<<sms * 4, 256>>>(a, b, n, 6);
  CHECK(cudaGetLastError());

  copy_clean<<<sms * 8, 256>>>(reinterpret_cast<const float4*>(a), reinterpret_cast<float4*>(b),
                               n / 4);
  CHECK(cudaGetLastError());

  for (long r = 0; r < repeat; ++r) {
    copy_clean<<<sms, 256>>>(reinterpret_cast<const float4*>(a), reinterpret_cast<float4*>(b),
                             1L << 16);
    CHECK(cudaGetLastError());
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  std::printf("explain_flawed: %ld extra launches done\n", repeat);
  return 0;
}
