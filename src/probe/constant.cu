// Probe "constant": the constant cache's broadcast. A 16 KiB __constant__ table read
// by every thread in a loop with a warp-uniform index (one address per warp: a
// broadcast) and with a divergent index (32 addresses per warp: serialized), against
// the same table in global memory through the read-only path (__ldg), and against a
// loop that makes the value in registers. Plus the latency of a dependent chain
// through constant memory, for the summary's "constant" tier.

#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "common.cuh"
#include "families.hpp"
#include "memhier/model/access.hpp"
#include "memhier/probe/constant.hpp"

namespace memhier::probe {
namespace {

constexpr int kTableWords = 4096;      // 16 KiB of floats
constexpr int kDivergentStride = 129;  // words between lanes: 32 distinct addresses, distinct lines
constexpr int kRingSlots = 256;        // 1 KiB ring: stays in the constant cache
constexpr int kBlock = 256;

__constant__ float c_table[kTableWords];
__constant__ std::uint32_t c_ring[kRingSlots];  // byte offsets of the next slot

enum class Memory { constant_bank, global_ldg, registers };

/// The word a lane reads in iteration `iter`: the same for all lanes (uniform) or
/// 129 words apart per lane (divergent). Shared by the kernel and the model.
__host__ __device__ inline int table_index(int iter, int lane, bool divergent, int base) {
  return (iter + base + (divergent ? lane * kDivergentStride : 0)) & (kTableWords - 1);
}

template <Memory M, bool Divergent>
__global__ void table_read(const float* __restrict__ gtable, float* out, int iters, int base) {
  const int lane = static_cast<int>(threadIdx.x & 31);
  float acc0 = 0.f, acc1 = 0.f;  // two chains so the FADD latency never limits the loop
#pragma unroll 4
  for (int it = 0; it < iters; it += 2) {
    const int i0 = table_index(it, lane, Divergent, base);
    const int i1 = table_index(it + 1, lane, Divergent, base);
    if constexpr (M == Memory::constant_bank) {
      acc0 += c_table[i0];
      acc1 += c_table[i1];
    } else if constexpr (M == Memory::global_ldg) {
      acc0 += __ldg(gtable + i0);
      acc1 += __ldg(gtable + i1);
    } else {
      // The value made from the index in registers: the loop with no memory access.
      acc0 += __int_as_float((i0 & 0x7fff) | 0x3f800000);
      acc1 += __int_as_float((i1 & 0x7fff) | 0x3f800000);
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc0 + acc1;  // every thread writes: no load is dead
}

/// One thread walks the ring: each load's address is the previous load's value.
__global__ void constant_chase(int steps, std::uint32_t* out) {
  std::uint32_t off = 0;
  for (int s = 0; s < steps; ++s)
    off = *reinterpret_cast<const std::uint32_t*>(reinterpret_cast<const char*>(c_ring) + off);
  out[0] = off;
}

/// Distinct 4-byte words one warp instruction reads: what the constant cache serializes on.
int distinct_words(bool divergent) {
  model::WarpAccess w;
  for (int lane = 0; lane < model::kWarpSize; ++lane)
    w.address[lane] = static_cast<std::uint64_t>(table_index(0, lane, divergent, 0)) * 4;
  return model::global_cost(w).bytes_needed / 4;
}

template <Memory M, bool D>
void launch_read(unsigned grid, const float* g, float* out, int iters, cudaStream_t s) {
  table_read<M, D><<<grid, kBlock, 0, s>>>(g, out, iters, 7);
  MEMHIER_CHECK_LAUNCH();
}

// One (memory, pattern) row: its launch, timed.
template <Memory M, bool D>
ConstantRead time_read(const std::string& memory, const std::string& pattern, unsigned grid,
                       const float* g, float* o, int iters, double loads, Context& ctx) {
  ctx.progress("constant: " + memory + " " + pattern);
  ConstantRead r;
  r.memory = memory;
  r.pattern = pattern;
  r.distinct_per_warp = M == Memory::registers ? -1 : distinct_words(D);
  r.ms = core::time_it([=](cudaStream_t st) { launch_read<M, D>(grid, g, o, iters, st); },
                       probe_timing(ctx, "constant/" + memory + "/" + pattern))
             .median_ms;
  r.gloads_per_s = loads / (r.ms * 1e6);
  r.gbps = gbps(4.0 * loads, r.ms);
  return r;
}

// Latency: a dependent chain through a 1 KiB ring in constant memory.
void time_chain(ConstantResult& m, Context& ctx) {
  ctx.progress("constant: latency chain");
  const std::vector<std::uint32_t> ring = make_ring(kRingSlots, 4, 0xc0de5u);
  MEMHIER_CUDA(cudaMemcpyToSymbol(c_ring, ring.data(), sizeof(std::uint32_t) * kRingSlots));
  core::DeviceBuffer<std::uint32_t> sink(1);
  const int steps = ctx.quick ? 20000 : 100000;
  std::uint32_t* sp = sink.data();
  const double chase_ms = core::time_it(
                              [=](cudaStream_t st) {
                                constant_chase<<<1, 1, 0, st>>>(steps, sp);
                                MEMHIER_CHECK_LAUNCH();
                              },
                              probe_timing(ctx, "constant/latency"))
                              .median_ms;
  m.chase_steps = steps;
  m.ring_slots = kRingSlots;
  m.latency_cycles = ctx.sm_clock_mhz > 0 ? chase_ms * 1e3 * ctx.sm_clock_mhz / steps : NAN;
}

Result run_constant(Context& ctx) {
  return present_constant(measure_constant(ctx));
}

}  // namespace

ConstantResult measure_constant(Context& ctx) {
  ctx.progress("constant: filling the table");
  std::vector<float> host(kTableWords);
  std::mt19937 rng(0xc0457u);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  for (float& v : host) v = dist(rng);
  MEMHIER_CUDA(cudaMemcpyToSymbol(c_table, host.data(), sizeof(float) * kTableWords));
  core::DeviceBuffer<float> gtable(kTableWords);
  gtable.upload(host);

  int per_sm = 0;
  MEMHIER_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, table_read<Memory::constant_bank, true>, kBlock, 0));
  ConstantResult m;
  m.grid = static_cast<unsigned>((per_sm > 0 ? per_sm : 1) * ctx.device.sm_count);
  m.block_threads = kBlock;
  m.table_bytes = kTableWords * 4;
  m.iters = ctx.quick ? 4096 : 16384;  // even: the kernel reads two per step
  m.divergent_stride = kDivergentStride;
  m.sm_clock_mhz = ctx.sm_clock_mhz;
  const unsigned grid = m.grid;
  const int iters = m.iters;
  core::DeviceBuffer<float> out(static_cast<std::size_t>(grid) * kBlock);
  const double loads = static_cast<double>(grid) * kBlock * iters;
  const float* g = gtable.data();
  float* o = out.data();
  m.reads.push_back(time_read<Memory::constant_bank, false>("constant", "uniform", grid, g, o,
                                                            iters, loads, ctx));
  m.reads.push_back(time_read<Memory::constant_bank, true>("constant", "divergent", grid, g, o,
                                                           iters, loads, ctx));
  m.reads.push_back(time_read<Memory::global_ldg, false>("global (__ldg)", "uniform", grid, g, o,
                                                         iters, loads, ctx));
  m.reads.push_back(time_read<Memory::global_ldg, true>("global (__ldg)", "divergent", grid, g, o,
                                                        iters, loads, ctx));
  m.reads.push_back(time_read<Memory::registers, false>("registers (no load)", "uniform", grid, g,
                                                        o, iters, loads, ctx));
  for (ConstantRead& r : m.reads) r.relative = m.reads[0].ms / r.ms;

  time_chain(m, ctx);
  MEMHIER_CUDA(cudaDeviceGetAttribute(&m.constant_bytes, cudaDevAttrTotalConstantMemory,
                                      ctx.device.ordinal));
  return m;
}

std::vector<registry::Entry> constant_probes() {
  registry::Entry e;
  e.kind = "probe";
  e.family = "constant";
  e.name = "constant";
  e.technique =
      "__constant__ table read with warp-uniform and divergent indices, against __ldg "
      "from global memory; dependent chain for latency";
  e.claim = {"000 §Constant memory; 001 §Constant memory",
             "broadcast reads are essentially free; divergent reads serialize (up to 32x)"};
  e.run_probe = run_constant;
  return {std::move(e)};
}

}  // namespace memhier::probe
