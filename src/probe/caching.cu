// Probe "caching": the load cache operators and the texture path. ld.global.ca /
// .cg / .cs / .nc (inline PTX) on three patterns: a per-block window re-read many
// times (L1 hits pay off), a once-through stream (.cs should cost nothing), and
// scattered 4-byte reads (where the seeds say non-caching and read-only loads win).
// Then a 5x5 box filter over a 2D image read through a texture object against the
// same arithmetic on plain global loads, with the outputs checked to agree.

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "common.cuh"
#include "families.hpp"
#include "memhier/core/hash.cuh"
#include "memhier/model/access.hpp"
#include "memhier/probe/caching.hpp"

namespace memhier::probe {
namespace {

constexpr int kBlock = 256;
constexpr int kWindowPerThread = 8;                       // floats each thread re-reads
constexpr int kWindowFloats = kBlock * kWindowPerThread;  // 8 KiB window per block
constexpr int kScatterPerThread = 32;  // random loads per thread (quick: fewer reps)
constexpr int kRadius = 2;             // 5x5 box
constexpr int kTileX = 32, kTileY = 8;

enum class Op { ca, cg, cs, nc };
const char* op_name(Op op) {
  switch (op) {
    case Op::ca:
      return "ld.ca";
    case Op::cg:
      return "ld.cg";
    case Op::cs:
      return "ld.cs";
    case Op::nc:
      return "ld.nc";
  }
  return "?";
}

/// One 4-byte load with an explicit cache operator. asm volatile: the load is issued
/// every time, even when its address does not change between iterations.
template <Op kOp>
__device__ __forceinline__ float load(const float* p) {
  float v;
  if constexpr (kOp == Op::ca)
    asm volatile("ld.global.ca.f32 %0, [%1];" : "=f"(v) : "l"(p));
  else if constexpr (kOp == Op::cg)
    asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(p));
  else if constexpr (kOp == Op::cs)
    asm volatile("ld.global.cs.f32 %0, [%1];" : "=f"(v) : "l"(p));
  else
    asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
}

// ---- index math shared by the kernels and the model ------------------------------

/// Reuse pattern: word `k` of thread `tid` in block `block`'s private 8 KiB window.
__host__ __device__ inline std::size_t window_word(unsigned block, int k, unsigned tid) {
  return static_cast<std::size_t>(block) * kWindowFloats + static_cast<std::size_t>(k) * kBlock +
         tid;
}

/// Scatter pattern: load `k` of global thread `t` reads a random word of a 2^m-word buffer.
__host__ __device__ inline std::size_t scatter_word(std::uint32_t t, int k, std::uint32_t mask) {
  return core::hash32(t * kScatterPerThread + static_cast<std::uint32_t>(k)) & mask;
}

__host__ __device__ inline int clamp_coord(int v, int hi) {
  return v < 0 ? 0 : (v > hi ? hi : v);
}

// ---- kernels ----------------------------------------------------------------------

template <Op kOp>
__global__ void reuse_kernel(const float* buf, float* out, int reps, int zero) {
  float acc[kWindowPerThread] = {};
  for (int r = 0; r < reps; ++r) {
    // `zero` is 0 at run time, but ptxas cannot know it: without it, ptxas hoists the
    // loop-invariant loads out of the loop and the "re-reads" never reach the cache.
    const float* base = buf + static_cast<std::size_t>(r) * zero;
#pragma unroll
    for (int k = 0; k < kWindowPerThread; ++k)
      acc[k] += load<kOp>(base + window_word(blockIdx.x, k, threadIdx.x));
  }
  float sum = 0.f;
#pragma unroll
  for (int k = 0; k < kWindowPerThread; ++k) sum += acc[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

template <Op kOp>
__global__ void stream_kernel(const float* buf, std::size_t n, float* out) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f;  // four loads in flight per thread
  for (; i + 3 * stride < n; i += 4 * stride) {
    a0 += load<kOp>(buf + i);
    a1 += load<kOp>(buf + i + stride);
    a2 += load<kOp>(buf + i + 2 * stride);
    a3 += load<kOp>(buf + i + 3 * stride);
  }
  for (; i < n; i += stride) a0 += load<kOp>(buf + i);
  out[blockIdx.x * blockDim.x + threadIdx.x] = (a0 + a1) + (a2 + a3);
}

template <Op kOp>
__global__ void scatter_kernel(const float* buf, std::uint32_t mask, float* out) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  float acc[4] = {};
#pragma unroll
  for (int k = 0; k < kScatterPerThread; ++k)
    acc[k & 3] += load<kOp>(buf + scatter_word(t, k, mask));
  out[t] = (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

/// 5x5 box average with clamped borders through plain global loads.
__global__ void box_global(const float* in, float* out, int w, int h) {
  const int x = static_cast<int>(blockIdx.x) * kTileX + static_cast<int>(threadIdx.x);
  const int y = static_cast<int>(blockIdx.y) * kTileY + static_cast<int>(threadIdx.y);
  if (x >= w || y >= h) return;
  float acc = 0.f;
  for (int dy = -kRadius; dy <= kRadius; ++dy) {
    const std::size_t row =
        static_cast<std::size_t>(clamp_coord(y + dy, h - 1)) * static_cast<std::size_t>(w);
    for (int dx = -kRadius; dx <= kRadius; ++dx) acc += in[row + clamp_coord(x + dx, w - 1)];
  }
  out[static_cast<std::size_t>(y) * w + x] = acc * (1.f / 25.f);
}

/// The same sum in the same order through a texture (point filtering, clamp addressing).
__global__ void box_texture(cudaTextureObject_t tex, float* out, int w, int h) {
  const int x = static_cast<int>(blockIdx.x) * kTileX + static_cast<int>(threadIdx.x);
  const int y = static_cast<int>(blockIdx.y) * kTileY + static_cast<int>(threadIdx.y);
  if (x >= w || y >= h) return;
  float acc = 0.f;
  for (int dy = -kRadius; dy <= kRadius; ++dy)
    for (int dx = -kRadius; dx <= kRadius; ++dx)
      acc +=
          tex2D<float>(tex, static_cast<float>(x + dx) + 0.5f, static_cast<float>(y + dy) + 0.5f);
  out[static_cast<std::size_t>(y) * w + x] = acc * (1.f / 25.f);
}

/// Largest |a - b| / |b| over the image, as float bits (non-negative floats order
/// like their bits). A NaN anywhere (an unwritten, poisoned pixel) wins the max.
__global__ void max_rel_diff_kernel(const float* a, const float* b, std::size_t n, unsigned* out) {
  float worst = 0.f;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const float d = fabsf(a[i] - b[i]) / fabsf(b[i]);
    worst = (d > worst || d != d) ? d : worst;
  }
  atomicMax(out, __float_as_uint(fabsf(worst)));  // a NaN's bits exceed every finite float's
}

// ---- host side --------------------------------------------------------------------

/// The texture object over a cudaArray, destroyed (object, then array) on every path.
struct Texture2D {
  cudaArray_t array = nullptr;
  cudaTextureObject_t object = 0;
  Texture2D(const float* src, int w, int h) {
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    MEMHIER_CUDA(
        cudaMallocArray(&array, &desc, static_cast<std::size_t>(w), static_cast<std::size_t>(h)));
    try {
      const std::size_t pitch = sizeof(float) * static_cast<std::size_t>(w);
      MEMHIER_CUDA(cudaMemcpy2DToArray(array, 0, 0, src, pitch, pitch, static_cast<std::size_t>(h),
                                       cudaMemcpyDeviceToDevice));
      cudaResourceDesc res{};
      res.resType = cudaResourceTypeArray;
      res.res.array.array = array;
      cudaTextureDesc td{};
      td.addressMode[0] = cudaAddressModeClamp;
      td.addressMode[1] = cudaAddressModeClamp;
      td.filterMode = cudaFilterModePoint;
      td.readMode = cudaReadModeElementType;
      td.normalizedCoords = 0;
      MEMHIER_CUDA(cudaCreateTextureObject(&object, &res, &td, nullptr));
    } catch (...) {
      cudaFreeArray(array);
      throw;
    }
  }
  ~Texture2D() {
    if (object) cudaDestroyTextureObject(object);
    if (array) cudaFreeArray(array);
  }
  Texture2D(const Texture2D&) = delete;
  Texture2D& operator=(const Texture2D&) = delete;
};

/// Sectors one warp instruction of a pattern touches (model::global_cost).
double sectors_of(const std::function<std::uint64_t(int lane)>& byte_of_lane) {
  model::WarpAccess w;
  for (int lane = 0; lane < model::kWarpSize; ++lane) w.address[lane] = byte_of_lane(lane);
  return model::global_cost(w).sectors_per_request;
}

/// Scatter pattern's bus utilization under the 128-byte-line (caching) and 32-byte-sector
/// (non-caching) rules of 004, averaged over the first warps.
void scatter_utilization(std::uint32_t mask, double* caching, double* noncaching) {
  double c = 0, nc = 0;
  const int warps = 64;
  for (int wi = 0; wi < warps; ++wi) {
    model::WarpAccess w;
    for (int lane = 0; lane < model::kWarpSize; ++lane)
      w.address[lane] =
          scatter_word(static_cast<std::uint32_t>(wi * model::kWarpSize + lane), 0, mask) * 4;
    const model::GlobalCost g = model::global_cost(w);
    c += g.caching_utilization;
    nc += g.noncaching_utilization;
  }
  *caching = c / warps;
  *noncaching = nc / warps;
}

// What the pattern experiments share: the buffer, the output, the grids and the rows.
struct CachingRun {
  Context& ctx;
  CachingResult& m;
  const float* b;
  float* o;
  std::size_t n;
  std::uint32_t mask;
  unsigned grid, sgrid;
};

void time_op(const CachingRun& run, const std::string& exp, Op op, double bytes_counted,
             const std::function<void(cudaStream_t)>& launch, double sectors) {
  CachingRow r;
  r.experiment = exp;
  r.variant = op_name(op);
  r.ms = core::time_it(launch, probe_timing(run.ctx, "caching/" + exp + "/" + r.variant)).median_ms;
  r.gbps = gbps(bytes_counted, r.ms);
  r.sectors_per_request = sectors;
  run.m.rows.push_back(r);
}

// (1) Reuse: each block re-reads its own 8 KiB window `reps` times.
template <Op kOp>
void reuse_op(const CachingRun& run) {
  const double counted = 4.0 * run.grid * static_cast<double>(kWindowFloats) * run.m.reps;
  const double sectors =
      sectors_of([](int lane) { return window_word(0, 0, static_cast<unsigned>(lane)) * 4; });
  const float* b = run.b;
  float* o = run.o;
  const unsigned grid = run.grid;
  const int reps = run.m.reps;
  time_op(
      run, "reuse", kOp, counted,
      [=](cudaStream_t st) {
        reuse_kernel<kOp><<<grid, kBlock, 0, st>>>(b, o, reps, 0);
        MEMHIER_CHECK_LAUNCH();
      },
      sectors);
}

// (2) Stream: every word read once, grid-stride.
template <Op kOp>
void stream_op(const CachingRun& run) {
  const double counted = 4.0 * static_cast<double>(run.n);
  const double sectors = sectors_of([](int lane) { return static_cast<std::uint64_t>(lane) * 4; });
  const float* b = run.b;
  float* o = run.o;
  const unsigned grid = run.grid;
  const std::size_t n = run.n;
  time_op(
      run, "stream", kOp, counted,
      [=](cudaStream_t st) {
        stream_kernel<kOp><<<grid, kBlock, 0, st>>>(b, n, o);
        MEMHIER_CHECK_LAUNCH();
      },
      sectors);
}

// (3) Scatter: random 4-byte words over the whole buffer (useful bytes counted).
template <Op kOp>
void scatter_op(const CachingRun& run) {
  const double counted = 4.0 * run.sgrid * static_cast<double>(kBlock) * kScatterPerThread;
  const std::uint32_t mask = run.mask;
  const double sectors = sectors_of(
      [mask](int lane) { return scatter_word(static_cast<std::uint32_t>(lane), 0, mask) * 4; });
  const float* b = run.b;
  float* o = run.o;
  const unsigned sgrid = run.sgrid;
  time_op(
      run, "scatter", kOp, counted,
      [=](cudaStream_t st) {
        scatter_kernel<kOp><<<sgrid, kBlock, 0, st>>>(b, mask, o);
        MEMHIER_CHECK_LAUNCH();
      },
      sectors);
}

// (4) Texture against global loads: 5x5 box filter over an img x img image, the outputs
// compared pixel by pixel before timing.
void texture_experiment(const CachingRun& run, int img) {
  Context& ctx = run.ctx;
  const std::size_t pixels = static_cast<std::size_t>(img) * img;
  core::DeviceBuffer<float> in(pixels), out_g(pixels), out_t(pixels);
  fill_random(in.data(), pixels, 0x7e47u, 1.f,
              2.f);  // away from zero: relative error is well defined
  Texture2D tex(in.data(), img, img);
  const dim3 block(kTileX, kTileY);
  const dim3 tgrid((img + kTileX - 1) / kTileX, (img + kTileY - 1) / kTileY);
  const float* pin = in.data();
  float* pg = out_g.data();
  float* pt = out_t.data();
  const cudaTextureObject_t tobj = tex.object;
  auto global_launch = [=](cudaStream_t st) {
    box_global<<<tgrid, block, 0, st>>>(pin, pg, img, img);
    MEMHIER_CHECK_LAUNCH();
  };
  auto texture_launch = [=](cudaStream_t st) {
    box_texture<<<tgrid, block, 0, st>>>(tobj, pt, img, img);
    MEMHIER_CHECK_LAUNCH();
  };
  // Verify first: poisoned outputs, one run each, every pixel compared.
  out_g.poison();
  out_t.poison();
  global_launch(nullptr);
  texture_launch(nullptr);
  core::DeviceBuffer<unsigned> worst(1);
  MEMHIER_CUDA(cudaMemset(worst.data(), 0, sizeof(unsigned)));
  max_rel_diff_kernel<<<1024, 256>>>(pt, pg, pixels, worst.data());
  MEMHIER_CHECK_LAUNCH();
  const unsigned bits = worst.download()[0];
  float f = 0.f;
  static_assert(sizeof f == sizeof bits, "float is 32 bits");
  std::memcpy(&f, &bits, sizeof f);
  run.m.max_rel_diff = static_cast<double>(f);

  const double counted = 8.0 * static_cast<double>(pixels);  // each input and output pixel once
  const double sectors = sectors_of([](int lane) { return static_cast<std::uint64_t>(lane) * 4; });
  CachingRow g;
  g.experiment = "stencil-5x5";
  g.variant = "global";
  g.ms = core::time_it(global_launch, probe_timing(ctx, "caching/stencil/global")).median_ms;
  g.gbps = gbps(counted, g.ms);
  g.sectors_per_request = sectors;
  run.m.rows.push_back(g);
  CachingRow t = g;
  t.variant = "texture";
  t.ms = core::time_it(texture_launch, probe_timing(ctx, "caching/stencil/texture")).median_ms;
  t.gbps = gbps(counted, t.ms);
  t.sectors_per_request = NAN;  // texture fetches are not global-memory requests
  t.max_rel_diff = run.m.max_rel_diff;
  run.m.rows.push_back(t);
}  // texture object and array destroyed here

Result run_caching(Context& ctx) {
  return present_caching(measure_caching(ctx));
}

}  // namespace

CachingResult measure_caching(Context& ctx) {
  CachingResult m;
  // One buffer many times the L2 for the stream and scatter patterns (its head serves
  // the reuse windows); capped by free memory.
  const std::size_t mib = std::size_t(1) << 20;
  const std::size_t l2 = static_cast<std::size_t>(std::max(ctx.device.l2_bytes, 1 << 20));
  const std::size_t free_b = free_device_bytes();
  // Power of two (the scatter index is a mask), at least 256 MiB and 4x (quick) or 8x the L2.
  std::size_t bytes = std::size_t(1) << 28;
  while (bytes < (ctx.quick ? 4 : 8) * l2 && bytes < (std::size_t(1) << 30)) bytes <<= 1;
  const int img = 4096;
  const std::size_t img_bytes =
      3 * sizeof(float) * static_cast<std::size_t>(img) * img;  // in, 2 outs (+array)
  while (bytes + 2 * img_bytes > free_b / 10 * 7 && bytes > 16 * mib) bytes >>= 1;
  const std::size_t n = bytes / 4;
  const auto mask = static_cast<std::uint32_t>(n - 1);

  int per_sm = 0;
  MEMHIER_CUDA(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reuse_kernel<Op::ca>, kBlock, 0));
  const unsigned grid = static_cast<unsigned>((per_sm > 0 ? per_sm : 1) * ctx.device.sm_count);
  if (static_cast<std::size_t>(grid) * kWindowFloats > n)
    throw core::CudaError(cudaErrorMemoryAllocation,
                          "caching: buffer smaller than the reuse windows");
  m.grid = grid;
  m.window_bytes = kWindowFloats * 4;
  m.reps = ctx.quick ? 64 : 256;
  m.buffer_bytes = bytes;
  m.l2_bytes = l2;
  m.scatter_per_thread = kScatterPerThread;
  m.image_side = img;

  ctx.progress("caching: allocating and filling buffers");
  const unsigned sgrid = grid * (ctx.quick ? 1u : 4u);  // scatter: more threads, more loads
  core::DeviceBuffer<float> buf(n),
      out(static_cast<std::size_t>(sgrid) * kBlock);  // one float per thread
  fill_random(buf.data(), n, 0xcac4e1u);
  MEMHIER_CUDA(cudaDeviceSynchronize());
  const CachingRun run{ctx, m, buf.data(), out.data(), n, mask, grid, sgrid};

  ctx.progress("caching: reuse window");
  reuse_op<Op::ca>(run);
  reuse_op<Op::cg>(run);
  reuse_op<Op::cs>(run);
  reuse_op<Op::nc>(run);
  ctx.progress("caching: stream");
  stream_op<Op::ca>(run);
  stream_op<Op::cg>(run);
  stream_op<Op::cs>(run);
  stream_op<Op::nc>(run);
  ctx.progress("caching: scatter");
  scatter_utilization(mask, &m.util_caching, &m.util_noncaching);
  scatter_op<Op::ca>(run);
  scatter_op<Op::cg>(run);
  scatter_op<Op::cs>(run);
  scatter_op<Op::nc>(run);
  ctx.progress("caching: texture vs global");
  texture_experiment(run, img);

  for (CachingRow& r : m.rows) {
    for (const CachingRow& base : m.rows)
      if (base.experiment == r.experiment) {
        r.relative = base.ms / r.ms;
        break;
      }
  }
  return m;
}

std::vector<registry::Entry> caching_probes() {
  registry::Entry e;
  e.kind = "probe";
  e.family = "caching";
  e.name = "caching";
  e.technique =
      "ld.global.ca/.cg/.cs/.nc on reuse, stream and scatter patterns; 5x5 box filter "
      "through a texture object against plain global loads";
  e.claim = {"004 §Caching vs non-caching loads; 004 §Read-only cache; 001 §Texture memory",
             "caching loads win on hits, non-caching and read-only loads on scattered reads; "
             "texture suits 2D locality"};
  e.run_probe = run_caching;
  return {std::move(e)};
}

}  // namespace memhier::probe
