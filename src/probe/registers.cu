// Probe "registers": one register-hungry kernel body compiled under several register
// caps (no bound, __launch_bounds__(256, m), __maxnreg__(n)). For each build: registers
// and local memory per thread (cudaFuncGetAttributes), blocks per SM from the CPU model
// beside the CUDA occupancy API, the time, and an output check against the unbounded build.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "common.cuh"
#include "families.hpp"
#include "memhier/model/arch.hpp"
#include "memhier/model/occupancy.hpp"
#include "memhier/probe/registers.hpp"

// __maxnreg__ arrived in CUDA 12.4; older compilers get the launch-bounds variants only.
#if defined(__CUDACC_VER_MAJOR__) && (__CUDACC_VER_MAJOR__ * 100 + __CUDACC_VER_MINOR__ >= 1204)
#define MEMHIER_HAS_MAXNREG 1
#else
#define MEMHIER_HAS_MAXNREG 0
#endif

namespace memhier::probe {
namespace {

constexpr int kBlock = 256;              // every variant's block size (launch bounds say 256)
constexpr int kLive = 64;                // floats each thread keeps live across the whole loop
constexpr unsigned kInWords = 1u << 20;  // 4 MB input table: L2-resident, so compute dominates

// The one body every variant shares. kLive accumulators stay live across the loop (each
// update reads its neighbour), so the compiler needs about kLive + 10 registers; a cap
// below that forces spills to local memory. Same instructions in the same order in every
// build, so the outputs are bitwise equal whatever the register allocation.
__device__ __forceinline__ void register_hungry_body(const float* __restrict__ in, unsigned mask,
                                                     float* __restrict__ out, int iters) {
  const unsigned gtid = blockIdx.x * blockDim.x + threadIdx.x;
  float acc[kLive];
#pragma unroll
  for (int k = 0; k < kLive; ++k) acc[k] = in[(gtid + static_cast<unsigned>(k) * 1031u) & mask];
  for (int it = 0; it < iters; ++it) {
    // A fresh global value per iteration: the work depends on memory, not only on registers.
    const float x = in[(gtid + static_cast<unsigned>(it) * 4099u + 17u) & mask];
#pragma unroll
    for (int k = 0; k < kLive; ++k) {
      const float v = fmaf(acc[k], x, acc[(k + 1) % kLive]);
      acc[k] = v - rintf(v);  // keeps |acc| <= 0.5: no overflow, no denormal decay
    }
  }
  float sum = 0.f;
#pragma unroll
  for (int k = 0; k < kLive; ++k) sum += acc[k];
  out[gtid] = sum;  // one slot per thread: nothing can be optimized away
}

__global__ void regs_unbounded(const float* __restrict__ in, unsigned mask, float* __restrict__ out,
                               int iters) {
  register_hungry_body(in, mask, out, iters);
}

template <int MinBlocks>
__global__ void __launch_bounds__(kBlock, MinBlocks)
    regs_bounded(const float* __restrict__ in, unsigned mask, float* __restrict__ out, int iters) {
  register_hungry_body(in, mask, out, iters);
}

#if MEMHIER_HAS_MAXNREG
// __maxnreg__ cannot be combined with __launch_bounds__ on one kernel (nvcc rejects it).
template <int MaxRegs>
__global__ void __maxnreg__(MaxRegs)
    regs_capped(const float* __restrict__ in, unsigned mask, float* __restrict__ out, int iters) {
  register_hungry_body(in, mask, out, iters);
}
#endif

using RegKernel = void (*)(const float*, unsigned, float*, int);

struct Variant {
  std::string name;
  RegKernel kernel;
  int min_blocks;  ///< __launch_bounds__ minimum blocks per SM, 0 when none
  int max_regs;    ///< __maxnreg__ cap, 0 when none
};

std::vector<Variant> variants() {
  std::vector<Variant> v = {
      {"no bound", regs_unbounded, 0, 0},
      {"__launch_bounds__(256,1)", regs_bounded<1>, 1, 0},
      {"__launch_bounds__(256,2)", regs_bounded<2>, 2, 0},
      {"__launch_bounds__(256,4)", regs_bounded<4>, 4, 0},
      {"__launch_bounds__(256,8)", regs_bounded<8>, 8, 0},
  };
#if MEMHIER_HAS_MAXNREG
  v.push_back({"__maxnreg__(128)", regs_capped<128>, 0, 128});
  v.push_back({"__maxnreg__(64)", regs_capped<64>, 0, 64});
  v.push_back({"__maxnreg__(32)", regs_capped<32>, 0, 32});
#endif
  return v;
}

// ||a - b|| / ||b|| in float64; infinity when a holds a non-finite value (not written).
double rel_l2(const std::vector<float>& a, const std::vector<float>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!std::isfinite(a[i])) return INFINITY;
    const double d = static_cast<double>(a[i]) - b[i];
    num += d * d;
    den += static_cast<double>(b[i]) * b[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

// Attributes and occupancy (CUDA's and the model's) of one build.
RegisterBuild describe_build(const Variant& v, const model::ArchSpec* arch, RegistersResult& m) {
  RegisterBuild r;
  r.name = v.name;
  r.min_blocks = v.min_blocks;
  r.max_regs = v.max_regs;
  cudaFuncAttributes attr{};
  MEMHIER_CUDA(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(v.kernel)));
  r.regs = attr.numRegs;
  r.local_bytes = static_cast<int>(attr.localSizeBytes);
  r.static_smem = static_cast<int>(attr.sharedSizeBytes);
  MEMHIER_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &r.cuda_blocks, reinterpret_cast<const void*>(v.kernel), kBlock, 0));
  r.occupancy_pct = 100.0 * r.cuda_blocks * kBlock / m.max_threads_per_sm;
  if (arch) {
    model::LaunchResources lr;
    lr.block_threads = kBlock;
    lr.regs_per_thread = r.regs;
    lr.static_smem_bytes = r.static_smem;
    lr.dynamic_smem_bytes = 0;
    lr.uses_barriers = false;
    try {
      const model::OccupancyResult o = model::occupancy(*arch, lr);
      r.model_blocks = o.blocks_per_sm;
      r.model_limiter = model::to_string(o.limiter);
    } catch (const model::OccupancyError& e) {
      m.model_note = "The model rejected " + v.name + ": " + e.message;
    }
  }
  return r;
}

Result run_registers(Context& ctx) {
  return present_registers(measure_registers(ctx));
}

}  // namespace

RegistersResult measure_registers(Context& ctx) {
  const core::DeviceInfo& dev = ctx.device;
  ctx.progress("registers: compiling attributes");
  const model::ArchSpec* arch = model::find_arch(dev.cc_major, dev.cc_minor);
  RegistersResult m;
  m.device = dev;
  m.has_model = arch != nullptr;
  m.has_maxnreg = MEMHIER_HAS_MAXNREG != 0;
  m.live_floats = kLive;
  m.block_threads = kBlock;

  // Several full waves at 100% occupancy, so the 37.5%-occupancy builds are not dominated
  // by a partial last wave; the same threads for every variant, so outputs compare 1:1.
  m.max_threads_per_sm = dev.max_threads_per_sm > 0 ? dev.max_threads_per_sm : 2048;
  m.threads = static_cast<std::size_t>(std::max(dev.sm_count, 1)) * m.max_threads_per_sm * 4;
  const int grid = static_cast<int>(m.threads / kBlock);
  m.iters = ctx.quick ? 32 : 64;
  const int iters = m.iters;

  core::DeviceBuffer<float> in(kInWords);
  core::DeviceBuffer<float> out(m.threads);
  fill_random(in.data(), in.size(), 0x5e9u);
  MEMHIER_CUDA(cudaDeviceSynchronize());

  std::vector<float> reference;
  for (const Variant& v : variants()) {
    ctx.progress("registers: " + v.name);
    RegisterBuild r = describe_build(v, arch, m);

    // Correctness first: poison, run once, compare with the unbounded build's output.
    out.poison();
    v.kernel<<<grid, kBlock>>>(in.data(), kInWords - 1, out.data(), iters);
    MEMHIER_CHECK_LAUNCH();
    MEMHIER_CUDA(cudaDeviceSynchronize());
    std::vector<float> got = out.download();
    if (reference.empty()) {
      bool finite = true;
      for (float f : got) finite = finite && std::isfinite(f);
      r.rel_err = finite ? 0.0 : INFINITY;
      reference = std::move(got);
    } else {
      r.rel_err = rel_l2(got, reference);
    }

    core::TimingOptions opt;
    opt.name = "registers " + v.name;
    opt.warmup = 1;
    opt.min_reps = 5;
    opt.max_reps = 200;
    opt.min_total_ms = ctx.quick ? 3.0 : 10.0;
    opt = fewest_if_smallest(ctx, opt);
    const core::Timing t = core::time_it(
        [&](cudaStream_t s) {
          v.kernel<<<grid, kBlock, 0, s>>>(in.data(), kInWords - 1, out.data(), iters);
          MEMHIER_CHECK_LAUNCH();
        },
        opt);
    r.ms = t.median_ms;
    m.builds.push_back(r);
  }
  return m;
}

std::vector<registry::Entry> registers_probes() {
  registry::Entry e;
  e.kind = "probe";
  e.family = "registers";
  e.name = "registers";
  e.technique =
      "one register-hungry body under no bound, __launch_bounds__(256,m) and __maxnreg__(n): "
      "registers, spills, occupancy (model vs CUDA API) and time";
  e.claim = {"001 §Impact of __launch_bounds__ on a Real Kernel",
             "spills cost time, and more occupancy is not always faster"};
  e.run_probe = run_registers;
  return {e};
}

}  // namespace memhier::probe
