#include <algorithm>
#include <vector>

#include "common.hpp"
#include "memhier/core/check.hpp"
#include "outer_kernels.cuh"

namespace memhier::probe::outer {
namespace {

constexpr int kBlock = 512;
constexpr unsigned long long kSpinTimeoutNs = 5'000'000'000ULL;  // a stuck host frees the GPU

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin_kernel(const volatile int* flag) {
  const unsigned long long t0 = global_ns();
  while (*flag == 0 && global_ns() - t0 < kSpinTimeoutNs) {
  }
}

__global__ void copy16_kernel(int4* __restrict__ dst, const int4* __restrict__ src, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    dst[i] = src[i];
}

__global__ void copy1_kernel(char* __restrict__ dst, const char* __restrict__ src, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    dst[i] = src[i];
}

__global__ void read16_kernel(const int4* __restrict__ src, std::size_t n, std::uint32_t* sink) {
  std::uint32_t acc = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const int4 v = src[i];
    acc ^= static_cast<std::uint32_t>(v.x ^ v.y ^ v.z ^ v.w);
  }
  if (acc == 0x9e3779b9U) *sink = acc;  // keeps the loads; almost never stores
}

__global__ void chase_kernel(const char* base, int steps, long long* cycles, std::uint32_t* sink) {
  std::uint32_t off = 0;
  // The first half of the ring warms the address translation; the second is timed and
  // touches lines the first did not.
  for (int i = 0; i < steps; ++i)
    off = *reinterpret_cast<const volatile std::uint32_t*>(base + off);
  const long long t0 = clock64();
  for (int i = 0; i < steps; ++i)
    off = *reinterpret_cast<const volatile std::uint32_t*>(base + off);
  const long long t1 = clock64();
  *cycles = t1 - t0;
  *sink = off;
}

__global__ void arithmetic_kernel(int iters, std::uint32_t* sink) {
  float a = static_cast<float>(threadIdx.x), b = 1.000001f;
  for (int i = 0; i < iters; ++i) {
    a = fmaf(a, b, 0.5f);
    b = fmaf(b, 0.999999f, 1e-7f);
  }
  if (a == -1.0f) *sink = 1;  // never true; keeps the arithmetic
}

template <typename Kernel>
int blocks_for(Kernel k, std::size_t items) {
  int dev = 0, sms = 0, per_sm = 0;
  MEMHIER_CUDA(cudaGetDevice(&dev));
  MEMHIER_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  MEMHIER_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, kBlock, 0));
  const std::size_t full = static_cast<std::size_t>(std::max(per_sm, 1)) * sms;
  const std::size_t need = (items + kBlock - 1) / kBlock;
  return static_cast<int>(std::max<std::size_t>(1, std::min(full, need)));
}

}  // namespace

Event::Event(unsigned flags) {
  MEMHIER_CUDA(cudaEventCreateWithFlags(&e, flags));
}

Stream::Stream() {
  MEMHIER_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
}

double elapsed_ms(const Event& start, const Event& stop) {
  MEMHIER_CUDA(cudaEventSynchronize(stop.e));
  float ms = 0;
  MEMHIER_CUDA(cudaEventElapsedTime(&ms, start.e, stop.e));
  return static_cast<double>(ms);
}

StreamGate::StreamGate() {
  void* p = nullptr;
  MEMHIER_CUDA_ALLOC(cudaHostAlloc(&p, sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable),
                     sizeof(int));
  flag_ = static_cast<volatile int*>(p);
  *flag_ = 0;
}

StreamGate::~StreamGate() {
  if (flag_) {
    *flag_ = 1;  // never leave a spin waiting on freed memory
    cudaFreeHost(const_cast<int*>(flag_));
  }
}

void StreamGate::hold(cudaStream_t s) {
  *flag_ = 0;
  void* dev = nullptr;
  MEMHIER_CUDA(cudaHostGetDevicePointer(&dev, const_cast<int*>(flag_), 0));
  spin_kernel<<<1, 1, 0, s>>>(static_cast<const volatile int*>(dev));
  MEMHIER_CHECK_LAUNCH();
}

void StreamGate::release() {
  *flag_ = 1;
}

void sm_copy(void* dst, const void* src, std::size_t bytes, cudaStream_t s) {
  const bool aligned =
      (reinterpret_cast<std::uintptr_t>(dst) | reinterpret_cast<std::uintptr_t>(src)) % 16 == 0;
  const std::size_t n16 = aligned ? bytes / 16 : 0;
  if (n16) {
    copy16_kernel<<<blocks_for(copy16_kernel, n16), kBlock, 0, s>>>(
        static_cast<int4*>(dst), static_cast<const int4*>(src), n16);
    MEMHIER_CHECK_LAUNCH();
  }
  const std::size_t done = n16 * 16;
  if (done < bytes) {
    copy1_kernel<<<blocks_for(copy1_kernel, bytes - done), kBlock, 0, s>>>(
        static_cast<char*>(dst) + done, static_cast<const char*>(src) + done, bytes - done);
    MEMHIER_CHECK_LAUNCH();
  }
}

void sm_read(const void* src, std::size_t bytes, std::uint32_t* sink, cudaStream_t s) {
  const std::size_t n16 = bytes / 16;  // callers pass whole, aligned buffers
  read16_kernel<<<blocks_for(read16_kernel, n16), kBlock, 0, s>>>(static_cast<const int4*>(src),
                                                                  n16, sink);
  MEMHIER_CHECK_LAUNCH();
}

double chase_cycles(const void* ring, int steps) {
  long long* d_cycles = nullptr;
  std::uint32_t* d_sink = nullptr;
  MEMHIER_CUDA_ALLOC(cudaMalloc(&d_cycles, sizeof(long long)), sizeof(long long));
  MEMHIER_CUDA_ALLOC(cudaMalloc(&d_sink, sizeof(std::uint32_t)), sizeof(std::uint32_t));
  long long cycles = 0;
  try {
    chase_kernel<<<1, 1>>>(static_cast<const char*>(ring), steps, d_cycles, d_sink);
    MEMHIER_CHECK_LAUNCH();
    MEMHIER_CUDA(cudaMemcpy(&cycles, d_cycles, sizeof(cycles), cudaMemcpyDeviceToHost));
  } catch (...) {
    cudaFree(d_cycles);
    cudaFree(d_sink);
    throw;
  }
  MEMHIER_CUDA(cudaFree(d_cycles));
  MEMHIER_CUDA(cudaFree(d_sink));
  return steps > 0 ? static_cast<double>(cycles) / steps : NAN;
}

void arithmetic(int iters, std::uint32_t* sink, cudaStream_t s) {
  int dev = 0, sms = 0;
  MEMHIER_CUDA(cudaGetDevice(&dev));
  MEMHIER_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  arithmetic_kernel<<<sms, 256, 0, s>>>(iters, sink);
  MEMHIER_CHECK_LAUNCH();
}

double time_batch(cudaStream_t s, int batch, int reps, const std::function<void(cudaStream_t)>& op,
                  StreamGate* gate) {
  Event start, stop;
  op(s);  // warm-up: first-use costs (mappings, staging buffers) stay out of the samples
  MEMHIER_CUDA(cudaStreamSynchronize(s));
  std::vector<double> per_op;
  for (int r = 0; r < reps; ++r) {
    if (gate) gate->hold(s);
    MEMHIER_CUDA(cudaEventRecord(start.e, s));
    for (int i = 0; i < batch; ++i) op(s);
    MEMHIER_CUDA(cudaEventRecord(stop.e, s));
    if (gate) gate->release();
    per_op.push_back(elapsed_ms(start, stop) / batch);
  }
  return median(per_op);
}

}  // namespace memhier::probe::outer
