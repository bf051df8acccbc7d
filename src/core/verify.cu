// Every output element against its float64 reference and bound: one grid-stride pass, one
// partial result per block, merged on the host in block order (deterministic for a grid).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "memhier/core/buffer.hpp"
#include "memhier/core/check.hpp"
#include "memhier/core/verify.hpp"
#include "memhier/model/text.hpp"

namespace memhier::core {
namespace {

constexpr int kThreads = 256;

struct Partial {
  unsigned long long checked, over, nonfinite, worst_index;
  double worst, err2, ref2;
};

__device__ double as_double(float v) {
  return static_cast<double>(v);
}
__device__ double as_double(unsigned int v) {
  return static_cast<double>(v);
}
__device__ double as_double(__nv_bfloat16 v) {
  return static_cast<double>(__bfloat162float(v));
}

/// The larger ratio wins; on a tie, the smaller index (the result does not depend on timing).
__device__ bool worse(double r, unsigned long long i, double r0, unsigned long long i0) {
  return r > r0 || (r == r0 && i < i0);
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    check_kernel(const T* __restrict__ out, const double* __restrict__ ref,
                 const float* __restrict__ scale, double factor, std::size_t n,
                 Partial* __restrict__ partials) {
  Partial p{0, 0, 0, ~0ull, 0.0, 0.0, 0.0};
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    ++p.checked;
    const double o = as_double(out[i]);
    if (!isfinite(o)) {
      ++p.nonfinite;
      continue;
    }
    const double r = ref[i];
    const double d = fabs(o - r);
    const double bound = factor * (scale ? static_cast<double>(scale[i]) : fabs(r));
    const double ratio = d == 0 ? 0.0 : (bound > 0 ? d / bound : INFINITY);
    if (!(d <= bound)) ++p.over;  // the definition itself, not the rounded ratio
    if (worse(ratio, i, p.worst, p.worst_index)) p.worst = ratio, p.worst_index = i;
    p.err2 += d * d;
    p.ref2 += r * r;
  }
  __shared__ Partial s[kThreads];
  s[threadIdx.x] = p;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half) {
      Partial& a = s[threadIdx.x];
      const Partial& b = s[threadIdx.x + half];
      a.checked += b.checked;
      a.over += b.over;
      a.nonfinite += b.nonfinite;
      a.err2 += b.err2;
      a.ref2 += b.ref2;
      if (worse(b.worst, b.worst_index, a.worst, a.worst_index))
        a.worst = b.worst, a.worst_index = b.worst_index;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = s[0];
}

}  // namespace

void ElementCheck::merge(const ElementCheck& o, std::size_t output) {
  if (o.checked > o.nonfinite && (checked == nonfinite || o.worst > worst)) {
    worst = o.worst;
    worst_index = o.worst_index;
    worst_output = output;
  }
  checked += o.checked;
  over += o.over;
  nonfinite += o.nonfinite;
  err2 += o.err2;
  ref2 += o.ref2;
}

ElementCheck check_output(const OutputSpec& spec, cudaStream_t stream) {
  ElementCheck c;
  if (spec.count == 0) return c;
  if (!spec.data || !spec.ref)
    throw std::logic_error("check_output: output '" + spec.name + "' has no data or reference");
  int dev = 0, sms = 0;
  MEMHIER_CUDA(cudaGetDevice(&dev));
  MEMHIER_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const std::size_t want = (spec.count + kThreads - 1) / kThreads;
  const int blocks =
      static_cast<int>(std::min<std::size_t>(want, static_cast<std::size_t>(sms) * 8));
  DeviceBuffer<Partial> partials(static_cast<std::size_t>(blocks));
  const auto check = [&](const auto* data) {
    check_kernel<<<blocks, kThreads, 0, stream>>>(data, spec.ref, spec.scale, spec.factor,
                                                  spec.count, partials.data());
  };
  if (spec.type == ElemType::f32)
    check(static_cast<const float*>(spec.data));
  else if (spec.type == ElemType::u32)
    check(static_cast<const unsigned int*>(spec.data));
  else
    check(static_cast<const __nv_bfloat16*>(spec.data));
  MEMHIER_CHECK_LAUNCH();
  MEMHIER_CUDA(cudaStreamSynchronize(stream));
  bool have_worst = false;  // a block with a finite element has a worst ratio
  for (const Partial& p : partials.download()) {
    c.checked += p.checked;
    c.over += p.over;
    c.nonfinite += p.nonfinite;
    c.err2 += p.err2;
    c.ref2 += p.ref2;
    if (p.checked == p.nonfinite) continue;
    if (!have_worst || p.worst > c.worst || (p.worst == c.worst && p.worst_index < c.worst_index))
      c.worst = p.worst, c.worst_index = p.worst_index;
    have_worst = true;
  }
  return c;
}

ElementCheck check_outputs(const std::vector<OutputSpec>& specs, cudaStream_t stream) {
  ElementCheck all;
  for (std::size_t k = 0; k < specs.size(); ++k) all.merge(check_output(specs[k], stream), k);
  return all;
}

std::string describe_failure(const ElementCheck& c, const std::vector<OutputSpec>& specs) {
  const std::string where =
      c.worst_output < specs.size() ? specs[c.worst_output].name : std::string("output");
  return model::strf(
      "%llu of %llu elements over their bound (worst %.3g x the bound, at %s[%llu]), "
      "%llu not finite",
      static_cast<unsigned long long>(c.over), static_cast<unsigned long long>(c.checked), c.worst,
      where.c_str(), static_cast<unsigned long long>(c.worst_index),
      static_cast<unsigned long long>(c.nonfinite));
}

void require_device_memory(double bytes, const std::string& what) {
  std::size_t free = 0, total = 0;
  MEMHIER_CUDA(cudaMemGetInfo(&free, &total));
  if (bytes <= static_cast<double>(free)) return;
  throw std::invalid_argument(model::strf(
      "%s needs %.0f bytes (%.2f GiB) of device memory for its inputs, outputs, "
      "float64 reference and scratch, but %zu bytes (%.2f GiB) are free.",
      what.c_str(), bytes, bytes / 1073741824.0, free, static_cast<double>(free) / 1073741824.0));
}

}  // namespace memhier::core
