// Probe "layout": how data layout decides bandwidth. AoS against SoA for a particle
// update, a 12-byte struct against a float4-padded one, the load width of a copy,
// and an aligned against a misaligned base address. Buffers are many times the L2,
// so every figure is DRAM-bound, and each is shown beside the sector model's
// prediction (model::global_cost over the same index functions the kernels use).

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "common.cuh"
#include "families.hpp"
#include "memhier/model/access.hpp"
#include "memhier/probe/layout.hpp"

namespace memhier::probe {
namespace {

constexpr int kBlock = 256;

// ---- index math shared by the kernels and the model ------------------------------

/// The AoS particle, as CPU code would write it: 32 bytes, alignment 4 (so the
/// compiler cannot merge field loads into vector loads).
struct Particle {
  float x, y, z, vx, vy, vz, m, pad;
};
static_assert(sizeof(Particle) == 32, "the particle is 8 floats");
constexpr int kParticleFloats = 8;
enum Field { kX = 0, kVx = 3 };

/// Word of field `f` of particle `i` in the AoS array.
__host__ __device__ inline std::size_t aos_word(std::size_t i, int f) {
  return i * kParticleFloats + static_cast<std::size_t>(f);
}
/// Word of field `f` of particle `i` in SoA: one array of `count` floats per field.
__host__ __device__ inline std::size_t soa_word(std::size_t i, int f, std::size_t count) {
  return static_cast<std::size_t>(f) * count + i;
}
/// Word `k` (0..2) of the packed 12-byte struct {x, y, z} number `i`.
__host__ __device__ inline std::size_t vec3_word(std::size_t i, int k) {
  return 3 * i + static_cast<std::size_t>(k);
}

__device__ inline std::size_t thread_index() {
  return blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
}

// ---- kernels: one item per thread, as the seed writes them ------------------------

/// x += vx*dt for the first kFields coordinates (3: x, y, z; 1: x only, 001's kernel).
template <int kFields>
__global__ void aos_update(float* p, std::size_t count, float dt) {
  const std::size_t i = thread_index();
  if (i >= count) return;
#pragma unroll
  for (int f = 0; f < kFields; ++f) p[aos_word(i, kX + f)] += p[aos_word(i, kVx + f)] * dt;
}

template <int kFields>
__global__ void soa_update(float* s, std::size_t count, float dt) {
  const std::size_t i = thread_index();
  if (i >= count) return;
#pragma unroll
  for (int f = 0; f < kFields; ++f)
    s[soa_word(i, kX + f, count)] += s[soa_word(i, kVx + f, count)] * dt;
}

/// Reads a packed {x, y, z}: three 4-byte loads at a 12-byte stride.
__global__ void vec3_sum(const float* in, float* out, std::size_t count) {
  const std::size_t i = thread_index();
  if (i >= count) return;
  out[i] = in[vec3_word(i, 0)] + in[vec3_word(i, 1)] + in[vec3_word(i, 2)];
}

/// Reads {x, y, z, pad} as one 16-byte load.
__global__ void vec4_sum(const float4* in, float* out, std::size_t count) {
  const std::size_t i = thread_index();
  if (i >= count) return;
  const float4 v = in[i];
  out[i] = v.x + v.y + v.z;
}

/// Reads x, y, z from three arrays (004's fix).
__global__ void soa3_sum(const float* in, float* out, std::size_t count) {
  const std::size_t i = thread_index();
  if (i >= count) return;
  out[i] = in[soa_word(i, 0, count)] + in[soa_word(i, 1, count)] + in[soa_word(i, 2, count)];
}

template <typename T>
__global__ void copy_kernel(const T* in, T* out, std::size_t count) {
  const std::size_t i = thread_index();
  if (i < count) out[i] = in[i];
}

/// Copies `count` floats whose base is 4-byte but not 16-byte aligned: `head` scalars
/// reach a 16-byte boundary (in and out share the misalignment), then float4s, then a
/// scalar tail. The fix a float4 kernel needs, since a misaligned 16-byte load faults.
__global__ void copy_float4_peeled(const float* in, float* out, std::size_t count, int head) {
  const std::size_t i = thread_index();
  const std::size_t body = (count - static_cast<std::size_t>(head)) / 4;
  const std::size_t tail = (count - static_cast<std::size_t>(head)) % 4;
  if (i < body)
    reinterpret_cast<float4*>(out + head)[i] = reinterpret_cast<const float4*>(in + head)[i];
  if (i < static_cast<std::size_t>(head)) out[i] = in[i];
  if (i < tail) out[head + 4 * body + i] = in[head + 4 * body + i];
}

// ---- host side --------------------------------------------------------------------

unsigned blocks_for(std::size_t items) {
  const std::size_t b = (items + kBlock - 1) / kBlock;
  if (b == 0 || b > static_cast<std::size_t>(INT_MAX))
    throw core::CudaError(cudaErrorInvalidConfiguration, "layout: grid size out of range");
  return static_cast<unsigned>(b);
}

/// One memory instruction of a kernel: the byte address of item i, its width.
struct Access {
  std::function<std::uint64_t(std::uint64_t)> byte;
  int width;
  bool store;
};

struct ModelFigures {
  double sectors_per_request = NAN;  ///< average over the kernel's load instructions
  double moved_per_item = NAN;       ///< distinct sectors a block touches, bytes per item
};

/// Applies model::global_cost to every warp load instruction of one 256-thread block and
/// counts the distinct 32-byte sectors the block's loads and stores touch (what DRAM
/// moves when the caches catch the reuse between instructions).
ModelFigures model_of(const std::vector<Access>& accesses) {
  std::set<std::uint64_t> loaded, stored;
  long sectors = 0, requests = 0;
  for (const Access& a : accesses)
    for (int w = 0; w < kBlock / model::kWarpSize; ++w) {
      model::WarpAccess wa;
      wa.width_bytes = a.width;
      wa.is_store = a.store;
      for (int lane = 0; lane < model::kWarpSize; ++lane) {
        const std::uint64_t addr = a.byte(static_cast<std::uint64_t>(w * model::kWarpSize + lane));
        wa.address[lane] = addr;
        for (std::uint64_t s = addr / 32;
             s <= (addr + static_cast<std::uint64_t>(a.width) - 1) / 32; ++s)
          (a.store ? stored : loaded).insert(s);
      }
      if (a.store) continue;
      const model::GlobalCost c = model::global_cost(wa);
      sectors += c.sectors;
      requests += c.requests;
    }
  ModelFigures m;
  if (requests > 0)
    m.sectors_per_request = static_cast<double>(sectors) / static_cast<double>(requests);
  m.moved_per_item = static_cast<double>((loaded.size() + stored.size()) * 32) / kBlock;
  return m;
}

struct Variant {
  std::string experiment, variant, description;
  double useful_bytes = 0;  ///< bytes the computation needs, over the whole launch
  double useful_per_item = 0;
  std::vector<Access> model;
  std::function<void(cudaStream_t)> launch;
  /// Filled in by the run (kept apart so the specs above stay one brace-list each).
  struct Measured {
    double ms = NAN, gbps = NAN, relative = NAN, predicted = NAN;
    ModelFigures figures;
  } r{};
};

// Output lives in another buffer: offset it far past the inputs in model space.
constexpr std::uint64_t kOutBase = std::uint64_t(1) << 40;

// A copy's load and store of `width` bytes from `offset`.
std::vector<Access> copy_model(std::uint64_t offset, int width) {
  return std::vector<Access>{
      {[offset, width](std::uint64_t i) { return offset + i * static_cast<std::uint64_t>(width); },
       width, false},
      {[offset, width](std::uint64_t i) {
         return kOutBase + offset + i * static_cast<std::uint64_t>(width);
       },
       width, true}};
}

// (1) AoS against SoA: the x,y,z update and GPU Memory Hierarchy's x-only kernel.
void aos_soa_variants(std::vector<Variant>& vs, float* pa, float* pb, std::size_t n) {
  const float dt = 1e-3f;
  const std::size_t particles = n / kParticleFloats;  // AoS in a; SoA's 7 arrays in b
  for (int fields : {3, 1}) {
    const std::string exp = fields == 3 ? "aos-soa-xyz" : "aos-soa-x";
    const std::string what =
        fields == 3 ? "x,y,z += v*dt" : "x += vx*dt (GPU Memory Hierarchy's kernel)";
    std::vector<Access> aos_model, soa_model;
    for (int f = 0; f < fields; ++f) {
      aos_model.push_back({[f](std::uint64_t i) { return aos_word(i, kVx + f) * 4; }, 4, false});
      aos_model.push_back({[f](std::uint64_t i) { return aos_word(i, kX + f) * 4; }, 4, false});
      aos_model.push_back({[f](std::uint64_t i) { return aos_word(i, kX + f) * 4; }, 4, true});
      soa_model.push_back(
          {[f, particles](std::uint64_t i) { return soa_word(i, kVx + f, particles) * 4; }, 4,
           false});
      soa_model.push_back(
          {[f, particles](std::uint64_t i) { return soa_word(i, kX + f, particles) * 4; }, 4,
           false});
      soa_model.push_back(
          {[f, particles](std::uint64_t i) { return soa_word(i, kX + f, particles) * 4; }, 4,
           true});
    }
    const double useful = 12.0 * fields;  // read x and vx, write x: 12 bytes per coordinate
    auto aos = [=](cudaStream_t st) {
      if (fields == 3)
        aos_update<3><<<blocks_for(particles), kBlock, 0, st>>>(pa, particles, dt);
      else
        aos_update<1><<<blocks_for(particles), kBlock, 0, st>>>(pa, particles, dt);
      MEMHIER_CHECK_LAUNCH();
    };
    auto soa = [=](cudaStream_t st) {
      if (fields == 3)
        soa_update<3><<<blocks_for(particles), kBlock, 0, st>>>(pb, particles, dt);
      else
        soa_update<1><<<blocks_for(particles), kBlock, 0, st>>>(pb, particles, dt);
      MEMHIER_CHECK_LAUNCH();
    };
    vs.push_back({exp, "aos", "AoS, 32-byte struct: " + what,
                  useful * static_cast<double>(particles), useful, aos_model, aos});
    vs.push_back({exp, "soa", "SoA, one array per field: " + what,
                  useful * static_cast<double>(particles), useful, soa_model, soa});
  }
}

// (2) A 12-byte struct per thread: three 4-byte loads, against float4 padding and SoA.
void struct12_variants(std::vector<Variant>& vs, float* pa, float* pb, std::size_t n) {
  const std::size_t count = n / 4;  // the padded array fills a; out in b
  const float* in = pa;
  float* out = pb;
  const double useful = 16.0;  // 12 bytes read, 4 written
  std::vector<Access> m12, m16, m3;
  for (int k = 0; k < 3; ++k) {
    m12.push_back({[k](std::uint64_t i) { return vec3_word(i, k) * 4; }, 4, false});
    m3.push_back({[k, count](std::uint64_t i) { return soa_word(i, k, count) * 4; }, 4, false});
  }
  m16.push_back({[](std::uint64_t i) { return i * 16; }, 16, false});
  for (auto* m : {&m12, &m16, &m3})
    m->push_back({[](std::uint64_t i) { return kOutBase + i * 4; }, 4, true});
  vs.push_back({"struct12", "struct12", "struct {x,y,z}: three 4-byte loads",
                useful * static_cast<double>(count), useful, m12, [=](cudaStream_t st) {
                  vec3_sum<<<blocks_for(count), kBlock, 0, st>>>(in, out, count);
                  MEMHIER_CHECK_LAUNCH();
                }});
  vs.push_back({"struct12", "float4-padded", "struct padded to float4: one 16-byte load",
                useful * static_cast<double>(count), useful, m16, [=](cudaStream_t st) {
                  vec4_sum<<<blocks_for(count), kBlock, 0, st>>>(
                      reinterpret_cast<const float4*>(in), out, count);
                  MEMHIER_CHECK_LAUNCH();
                }});
  vs.push_back({"struct12", "soa3", "SoA: three float arrays", useful * static_cast<double>(count),
                useful, m3, [=](cudaStream_t st) {
                  soa3_sum<<<blocks_for(count), kBlock, 0, st>>>(in, out, count);
                  MEMHIER_CHECK_LAUNCH();
                }});
}

// (3) The same copy with 4-, 8- and 16-byte loads and stores.
void copy_width_variants(std::vector<Variant>& vs, float* pa, float* pb, std::size_t n) {
  const double total = 2.0 * 4.0 * static_cast<double>(n);  // bytes read + written
  const float* in = pa;
  float* out = pb;
  vs.push_back({"copy-width", "float", "copy, 4-byte loads and stores", total, 8.0,
                copy_model(0, 4), [=](cudaStream_t st) {
                  copy_kernel<float><<<blocks_for(n), kBlock, 0, st>>>(in, out, n);
                  MEMHIER_CHECK_LAUNCH();
                }});
  vs.push_back({"copy-width", "float2", "copy, 8-byte loads and stores", total, 16.0,
                copy_model(0, 8), [=](cudaStream_t st) {
                  copy_kernel<float2><<<blocks_for(n / 2), kBlock, 0, st>>>(
                      reinterpret_cast<const float2*>(in), reinterpret_cast<float2*>(out), n / 2);
                  MEMHIER_CHECK_LAUNCH();
                }});
  vs.push_back({"copy-width", "float4", "copy, 16-byte loads and stores", total, 32.0,
                copy_model(0, 16), [=](cudaStream_t st) {
                  copy_kernel<float4><<<blocks_for(n / 4), kBlock, 0, st>>>(
                      reinterpret_cast<const float4*>(in), reinterpret_cast<float4*>(out), n / 4);
                  MEMHIER_CHECK_LAUNCH();
                }});
}

// (4) Aligned against misaligned base (cudaMalloc gives 256-byte alignment; +1 float
// breaks it). Every variant copies the same m floats.
void alignment_variants(std::vector<Variant>& vs, float* pa, float* pb, std::size_t n) {
  const std::size_t m = n - 64;  // multiple of 4, leaves room for the +1 offset
  const double total = 2.0 * 4.0 * static_cast<double>(m);
  const float* in = pa;
  float* out = pb;
  const auto addr = reinterpret_cast<std::uintptr_t>(in + 1);
  const int head = static_cast<int>(((16 - (addr & 15)) & 15) / 4);
  if ((addr & 3) != 0 || ((addr ^ reinterpret_cast<std::uintptr_t>(out + 1)) & 15) != 0)
    throw core::CudaError(cudaErrorMisalignedAddress,
                          "layout: buffers lack the expected alignment");
  vs.push_back({"alignment", "aligned", "float copy, 256-byte aligned base", total, 8.0,
                copy_model(0, 4), [=](cudaStream_t st) {
                  copy_kernel<float><<<blocks_for(m), kBlock, 0, st>>>(in, out, m);
                  MEMHIER_CHECK_LAUNCH();
                }});
  vs.push_back({"alignment", "misaligned", "float copy, base + 4 bytes", total, 8.0,
                copy_model(4, 4), [=](cudaStream_t st) {
                  copy_kernel<float><<<blocks_for(m), kBlock, 0, st>>>(in + 1, out + 1, m);
                  MEMHIER_CHECK_LAUNCH();
                }});
  vs.push_back({"alignment", "float4-aligned", "float4 copy, aligned base", total, 32.0,
                copy_model(0, 16), [=](cudaStream_t st) {
                  copy_kernel<float4><<<blocks_for(m / 4), kBlock, 0, st>>>(
                      reinterpret_cast<const float4*>(in), reinterpret_cast<float4*>(out), m / 4);
                  MEMHIER_CHECK_LAUNCH();
                }});
  vs.push_back({"alignment", "float4-peeled",
                "float4 copy, base + 4 bytes: " + std::to_string(head) +
                    " scalars peeled to reach 16-byte alignment",
                total, 32.0, copy_model(static_cast<std::uint64_t>(4 + 4 * head), 16),
                [=](cudaStream_t st) {
                  copy_float4_peeled<<<blocks_for(std::max<std::size_t>((m - head) / 4, 4)), kBlock,
                                       0, st>>>(in + 1, out + 1, m, head);
                  MEMHIER_CHECK_LAUNCH();
                }});
}

// Times every variant, then relative speed and model prediction against each
// experiment's first row.
std::vector<LayoutRow> time_variants(std::vector<Variant>& vs, Context& ctx) {
  std::string last_exp;
  for (Variant& v : vs) {
    if (v.experiment != last_exp) ctx.progress("layout: " + v.experiment);
    last_exp = v.experiment;
    v.r.ms = core::time_it(v.launch, probe_timing(ctx, "layout/" + v.experiment + "/" + v.variant))
                 .median_ms;
    v.r.gbps = gbps(v.useful_bytes, v.r.ms);
    v.r.figures = model_of(v.model);
  }
  std::vector<LayoutRow> rows;
  for (Variant& v : vs) {
    const Variant* base = nullptr;
    for (const Variant& u : vs)
      if (u.experiment == v.experiment) {
        base = &u;
        break;
      }
    v.r.relative = base->r.ms / v.r.ms;
    // DRAM-bound prediction: time goes with bytes moved per useful byte.
    v.r.predicted = (base->r.figures.moved_per_item / base->useful_per_item) /
                    (v.r.figures.moved_per_item / v.useful_per_item);
    rows.push_back({v.experiment, v.variant, v.description, v.r.ms, v.r.gbps, v.r.relative,
                    v.r.figures.sectors_per_request, v.r.predicted});
  }
  return rows;
}

Result run_layout(Context& ctx) {
  return present_layout(measure_layout(ctx));
}

}  // namespace

LayoutResult measure_layout(Context& ctx) {
  // Buffers many times the L2, so DRAM serves every figure; capped by free memory.
  const std::size_t l2 = static_cast<std::size_t>(std::max(ctx.device.l2_bytes, 1 << 20));
  const std::size_t mib = std::size_t(1) << 20;
  std::size_t bytes = ctx.quick ? std::clamp(4 * l2, 64 * mib, 256 * mib)
                                : std::clamp(8 * l2, 256 * mib, 1024 * mib);
  const std::size_t free_b = free_device_bytes();
  while (2 * bytes > free_b / 10 * 7 && bytes > 16 * mib) bytes /= 2;
  const std::size_t n = bytes / 4 / 2048 * 2048;  // floats; keeps every sub-array 1 KiB aligned
  if (n < 2048)
    throw core::CudaError(cudaErrorMemoryAllocation, "layout: not enough free device memory");

  ctx.progress("layout: allocating and filling buffers");
  core::DeviceBuffer<float> a(n), b(n);
  fill_random(a.data(), n, 0x1a7001u);
  fill_random(b.data(), n, 0x1a7002u);
  MEMHIER_CUDA(cudaDeviceSynchronize());

  std::vector<Variant> vs;
  aos_soa_variants(vs, a.data(), b.data(), n);
  struct12_variants(vs, a.data(), b.data(), n);
  copy_width_variants(vs, a.data(), b.data(), n);
  alignment_variants(vs, a.data(), b.data(), n);
  LayoutResult m;
  m.rows = time_variants(vs, ctx);
  m.buffer_bytes = 4 * n;
  m.l2_bytes = l2;
  return m;
}

std::vector<registry::Entry> layout_probes() {
  registry::Entry e;
  e.kind = "probe";
  e.family = "layout";
  e.name = "layout";
  e.technique =
      "AoS vs SoA particle update, 12-byte struct reads, float/float2/float4 copy, "
      "aligned vs misaligned base, over buffers many times the L2";
  e.claim = {"001 §AoS vs SoA; 001 §Anti-patterns; 004 §Structures of non-native size",
             "SoA ~4x over AoS; float4 ~1.25x over scalar; alignment ~1.25x"};
  e.run_probe = run_layout;
  return {std::move(e)};
}

}  // namespace memhier::probe
