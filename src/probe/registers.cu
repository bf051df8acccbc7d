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


struct Row {
  Variant v;
  int regs = 0;
  int local_bytes = 0;
  int static_smem = 0;
  int model_blocks = -1;  ///< -1: the model has no table for this card or rejected the launch
  std::string model_limiter;
  int cuda_blocks = 0;
  double occupancy_pct = 0;
  double ms = NAN;
  double rel_err = NAN;
};

Result run_registers(Context& ctx) {
  using report::Value;
  const core::DeviceInfo& dev = ctx.device;
  ctx.progress("registers: compiling attributes");
  const model::ArchSpec* arch = model::find_arch(dev.cc_major, dev.cc_minor);

  // Several full waves at 100% occupancy, so the 37.5%-occupancy builds are not dominated
  // by a partial last wave; the same threads for every variant, so outputs compare 1:1.
  const int max_threads = dev.max_threads_per_sm > 0 ? dev.max_threads_per_sm : 2048;
  const std::size_t threads = static_cast<std::size_t>(std::max(dev.sm_count, 1)) * max_threads * 4;
  const int grid = static_cast<int>(threads / kBlock);
  const int iters = ctx.quick ? 32 : 64;

  core::DeviceBuffer<float> in(kInWords);
  core::DeviceBuffer<float> out(threads);
  fill_random(in.data(), in.size(), 0x5e9u);
  MEMHIER_CUDA(cudaDeviceSynchronize());

  std::vector<Row> rows;
  std::vector<float> reference;
  std::string model_note;
  for (const Variant& v : variants()) {
    ctx.progress("registers: " + v.name);
    Row r;
    r.v = v;
    cudaFuncAttributes attr{};
    MEMHIER_CUDA(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(v.kernel)));
    r.regs = attr.numRegs;
    r.local_bytes = static_cast<int>(attr.localSizeBytes);
    r.static_smem = static_cast<int>(attr.sharedSizeBytes);
    MEMHIER_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &r.cuda_blocks, reinterpret_cast<const void*>(v.kernel), kBlock, 0));
    r.occupancy_pct = 100.0 * r.cuda_blocks * kBlock / max_threads;
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
        model_note = "The model rejected " + v.name + ": " + e.message;
      }
    }

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
    const core::Timing t = core::time_it(
        [&](cudaStream_t s) {
          v.kernel<<<grid, kBlock, 0, s>>>(in.data(), kInWords - 1, out.data(), iters);
          MEMHIER_CHECK_LAUNCH();
        },
        opt);
    r.ms = t.median_ms;
    rows.push_back(r);
  }

  const double base_ms = rows.front().ms;
  Result res;
  report::Section& s = res.section;
  s.id = "registers";
  s.title = "Registers: caps, launch bounds, spills and occupancy";
  s.paragraphs.push_back(
      "One kernel body (each thread keeps " + std::to_string(kLive) +
      " floats live across a loop that reads one value from an L2-resident table per "
      "iteration and updates every accumulator from its neighbour) compiled under different "
      "register caps: no bound, __launch_bounds__(256, m) and, where nvcc supports it, "
      "__maxnreg__(n). Registers and local memory per thread come from "
      "cudaFuncGetAttributes; blocks per SM from memhier's occupancy model and from "
      "cudaOccupancyMaxActiveBlocksPerMultiprocessor (they must agree); time is the median of "
      "CUDA-event-timed launches of " +
      std::to_string(threads) + " threads (" + std::to_string(iters) +
      " iterations each), 256 per block. Every build computes the same "
      "arithmetic in the same order, so each output is checked against the unbounded build.");

  report::Table t;
  t.id = "registers";
  t.title = "Register caps: resources, occupancy and time";
  t.caption =
      "relative = time / time of the unbounded build (above 1 is slower). "
      "local = cudaFuncAttributes::localSizeBytes per thread (spill space).";
  t.columns = {{"variant", "", "variant"},
               {"registers", "per thread", "regs"},
               {"local memory", "B/thread", "local_bytes"},
               {"blocks/SM (model)", "", "model_blocks_per_sm"},
               {"blocks/SM (CUDA)", "", "cuda_blocks_per_sm"},
               {"occupancy", "%", "occupancy_pct"},
               {"time", "ms", "ms"},
               {"relative", "x", "relative"},
               {"model limiter", "", "limiter"},
               {"output error vs unbounded", "rel. L2", "max_rel_err"}};
  std::vector<std::string> mismatches, wrong_outputs;
  for (const Row& r : rows) {
    t.rows.push_back({Value::str(r.v.name), Value::integer(r.regs), Value::integer(r.local_bytes),
                      r.model_blocks >= 0 ? Value::integer(r.model_blocks) : Value::num(NAN),
                      Value::integer(r.cuda_blocks), Value::num(r.occupancy_pct, 1),
                      Value::num(r.ms, 3), Value::num(base_ms > 0 ? r.ms / base_ms : NAN, 2),
                      Value::str(r.model_limiter.empty() ? "n/a" : r.model_limiter),
                      Value::num(r.rel_err, 8)});
    if (arch && r.model_blocks != r.cuda_blocks)
      mismatches.push_back(r.v.name + " (model " + std::to_string(r.model_blocks) + ", CUDA " +
                           std::to_string(r.cuda_blocks) + ")");
    if (!(r.rel_err <= 1e-5)) wrong_outputs.push_back(r.v.name);
  }
  t.notes.push_back(
      "Spills show as local memory here, but localSizeBytes is the whole per-thread stack "
      "frame; the compiler's own report (nvcc -Xptxas -v: \"N bytes spill stores, N bytes "
      "spill loads\") is the authoritative spill figure.");
  if (!arch)
    t.notes.push_back("memhier's model has no table for compute capability " +
                      std::to_string(dev.cc_major) + "." + std::to_string(dev.cc_minor) +
                      ", so the model column is n/a.");
  if (!model_note.empty()) t.notes.push_back(model_note);
  if (!mismatches.empty()) {
    std::string m = "MODEL MISMATCH: the CPU model and the CUDA occupancy API disagree for ";
    for (std::size_t i = 0; i < mismatches.size(); ++i) m += (i ? ", " : "") + mismatches[i];
    t.notes.push_back(m + ".");
  }
  if (!wrong_outputs.empty()) {
    std::string m = "OUTPUT MISMATCH (rel. L2 error above 1e-5 against the unbounded build): ";
    for (std::size_t i = 0; i < wrong_outputs.size(); ++i) m += (i ? ", " : "") + wrong_outputs[i];
    t.notes.push_back(m + "; their times are not comparable.");
  }
#if !MEMHIER_HAS_MAXNREG
  t.notes.push_back("This nvcc has no __maxnreg__ (CUDA 12.4+); only launch bounds are shown.");
#endif
  s.tables.push_back(t);

  report::Chart c;
  c.id = "registers-time";
  c.title = "Time per register cap";
  c.kind = report::Chart::Kind::bar;
  c.x_label = "variant";
  c.y_label = "time";
  c.y_unit = "ms";
  report::Series ser;
  ser.name = "median time";
  for (const Row& r : rows) {
    c.categories.push_back(r.v.name + " (" + std::to_string(r.regs) + " regs, " +
                           strf("%.0f", r.occupancy_pct) + "%)");
    ser.y.push_back(r.ms);
  }
  c.series.push_back(ser);
  s.charts.push_back(c);

  // ---- Claims: verdicts from the rows above, with stated tolerances.
  std::vector<ClaimRow> claims;
  const Row* fastest_clean = nullptr;  // fastest build without local memory and with right output
  const Row* least_spill = nullptr;
  const Row* most_spill = nullptr;
  const Row* fastest = nullptr;
  const Row* most_occupied = nullptr;
  for (const Row& r : rows) {
    if (!(r.rel_err <= 1e-5) || !(r.ms > 0)) continue;
    if (!fastest || r.ms < fastest->ms) fastest = &r;
    if (!most_occupied || r.cuda_blocks > most_occupied->cuda_blocks ||
        (r.cuda_blocks == most_occupied->cuda_blocks && r.ms < most_occupied->ms))
      most_occupied = &r;
    if (r.local_bytes == 0) {
      if (!fastest_clean || r.ms < fastest_clean->ms) fastest_clean = &r;
    } else {
      if (!least_spill || r.local_bytes < least_spill->local_bytes) least_spill = &r;
      if (!most_spill || r.local_bytes > most_spill->local_bytes) most_spill = &r;
    }
  }

  {  // 000: a few bytes of spill can halve performance.
    ClaimRow c0{"spill-few-bytes-halve"_claim, "", ""};
    if (!fastest_clean || !least_spill) {
      c0.measured = "no build both spilled and ran correctly";
      c0.verdict = "not measurable here: no spilling and no spill-free build to compare";
    } else {
      const double ratio = least_spill->ms / fastest_clean->ms;
      c0.measured = least_spill->v.name + ": " + std::to_string(least_spill->local_bytes) +
                    " B local/thread, " + strf("%.2fx", ratio) + " the time of " +
                    fastest_clean->v.name + " (no local memory)";
      // Tolerance: at least 1.8x counts as "halved"; under 1.1x the spill did not matter.
      c0.verdict = ratio >= 1.8  ? "reproduced"
                   : ratio < 1.1 ? "refuted: the smallest spill cost under 10% here"
                                 : "differs: the smallest spill cost " +
                                       strf("%.0f%%", (ratio - 1) * 100) + ", not 2x";
    }
    claims.push_back(c0);
  }
  {  // 001: 3-5x slowdowns from spilling.
    ClaimRow c1{"spill-3-5x"_claim, "", ""};
    if (!fastest_clean || !most_spill) {
      c1.measured = "no build both spilled and ran correctly";
      c1.verdict = "not measurable here: no spilling and no spill-free build to compare";
    } else {
      const double ratio = most_spill->ms / fastest_clean->ms;
      c1.measured = most_spill->v.name + " (" + std::to_string(most_spill->local_bytes) +
                    " B local/thread): " + strf("%.2fx", ratio) + " the time of " +
                    fastest_clean->v.name;
      // Tolerance: 3-5x widened by 20% either side.
      c1.verdict = (ratio >= 2.4 && ratio <= 6.0) ? "reproduced"
                   : ratio < 1.1 ? "refuted: the heaviest spill cost under 10% here"
                                 : "differs: heaviest spill " + strf("%.1fx", ratio);
    }
    claims.push_back(c1);
  }
  {  // 001: more occupancy is not always faster.
    ClaimRow c2{"launch-bounds-occupancy-not-always-faster"_claim, "", ""};
    if (!fastest || !most_occupied) {
      c2.measured = "no build ran correctly";
      c2.verdict = "not measurable here: no valid timing";
    } else {
      const double ratio = most_occupied->ms / fastest->ms;
      c2.measured = "highest occupancy: " + most_occupied->v.name + " " +
                    strf("%.1f%%", most_occupied->occupancy_pct) + " at " +
                    strf("%.3f ms", most_occupied->ms) + "; fastest: " + fastest->v.name + " " +
                    strf("%.1f%%", fastest->occupancy_pct) + " at " + strf("%.3f ms", fastest->ms);
      // Tolerance: the most occupied build must be at least 5% slower than the fastest.
      c2.verdict = (ratio > 1.05 && fastest->occupancy_pct < most_occupied->occupancy_pct)
                       ? "reproduced"
                       : "refuted: the highest-occupancy build was within 5% of the fastest";
    }
    claims.push_back(c2);
  }
  {  // 000: 65536 / regs threads per SM (64 regs -> 50%, 32 -> 100%).
    ClaimRow c3{"regs-per-thread-occupancy"_claim, "", ""};
    std::vector<std::string> off;
    std::string m;
    std::vector<int> seen;  // several builds share a register count: list each count once
    for (const Row& r : rows) {
      if (r.regs <= 0 || std::find(seen.begin(), seen.end(), r.regs) != seen.end()) continue;
      seen.push_back(r.regs);
      const int napkin_threads = std::min(max_threads, dev.regs_per_sm / r.regs);
      const int napkin_blocks = napkin_threads / kBlock;
      m += (m.empty() ? "" : "; ") + std::to_string(r.regs) +
           " regs: " + std::to_string(r.cuda_blocks * kBlock) + " threads";
      if (napkin_blocks != r.cuda_blocks)
        off.push_back(std::to_string(r.regs) + " regs: formula " +
                      std::to_string(napkin_blocks * kBlock) + ", CUDA " +
                      std::to_string(r.cuda_blocks * kBlock));
    }
    c3.measured = m;
    if (off.empty()) {
      c3.verdict = "reproduced (whole 256-thread blocks)";
    } else {
      std::string d = "differs: register allocation granularity: ";
      for (std::size_t i = 0; i < off.size(); ++i) d += (i ? ", " : "") + off[i];
      c3.verdict = d;
    }
    claims.push_back(c3);
  }
  {  // 000/001: __launch_bounds__(256, m) makes m blocks fit.
    ClaimRow c4{"launch-bounds-min-blocks"_claim, "", ""};
    std::string m;
    bool all = true, any = false;
    for (const Row& r : rows) {
      if (r.v.min_blocks <= 0) continue;
      any = true;
      m += (m.empty() ? "" : "; ") + std::string("m=") + std::to_string(r.v.min_blocks) + ": " +
           std::to_string(r.regs) + " regs, " + std::to_string(r.cuda_blocks) + " blocks/SM";
      all = all && r.cuda_blocks >= r.v.min_blocks;
    }
    c4.measured = m;
    c4.verdict = !any  ? "not measurable here: no launch-bounds build"
                 : all ? "reproduced"
                       : "refuted: a bound was not met";
    claims.push_back(c4);
  }
  {  // memhier's own model against the CUDA occupancy API.
    ClaimRow c5{"memhier-occupancy-model"_claim, "", ""};
    c5.measured = std::to_string(rows.size() - mismatches.size()) + " of " +
                  std::to_string(rows.size()) + " builds agree";
    c5.verdict = !arch ? "not measurable here: no model table for this compute capability"
                 : mismatches.empty() ? "reproduced"
                                      : "refuted: see the mismatch note under the table";
    claims.push_back(c5);
  }
  s.tables.push_back(claims_table("registers", claims));

  TierFigure reg;
  reg.tier = "registers";
  reg.size = std::to_string(dev.regs_per_sm * 4 / 1024) + " KiB/SM";
  res.tiers.push_back(reg);
  return res;
}

}  // namespace

std::vector<registry::Entry> register_probes_family() {
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
