// explain's diagnosis: one kernel's counters -> standings against the card's ceilings and
// findings, each with the models' ideal (model::global_cost, shared_cost, occupancy: the code
// `memhier analyze` and `memhier occupancy` run) and an estimated gain. Host-only and pure.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "memhier/bench/explain.hpp"
#include "memhier/claims/catalogue.hpp"
#include "memhier/model/access.hpp"
#include "memhier/report/document.hpp"

namespace memhier::bench {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// A memory ceiling within 15 % is one memory can no longer raise the kernel toward.
constexpr double kNearCeiling = 0.85;
// A per-instruction cost this far above the model's ideal is worth a finding.
constexpr double kExcessFactor = 1.25;
constexpr double kMinGain = 1.02;  // below this a finding tells the user nothing to do

bool finite(double v) {
  return std::isfinite(v);
}

// Sum of the counters that are present; NaN when none is.
double total(const profile::KernelCounters& k, std::initializer_list<const char*> keys) {
  double s = 0;
  bool any = false;
  for (const char* key : keys) {
    const double v = k.get(key);
    if (finite(v)) {
      s += v;
      any = true;
    }
  }
  return any ? s : kNaN;
}

double or_zero(double v) {
  return finite(v) ? v : 0.0;
}

std::string metric_of(const std::string& key) {
  for (const profile::Metric& m : profile::explain_metrics())
    if (m.key == key) return m.metric;
  return key;
}

Evidence counter(const profile::KernelCounters& k, const std::string& key,
                 const std::string& name) {
  return {name, metric_of(key), k.get(key)};
}


// The largest standing fraction, and the largest of those not named in `skip`.
double largest(const std::vector<Standing>& s, std::initializer_list<const char*> skip = {}) {
  double m = 0;
  for (const Standing& x : s) {
    bool skipped = false;
    for (const char* name : skip) skipped = skipped || x.what == name;
    const double f = x.fraction();
    if (!skipped && finite(f)) m = std::max(m, f);
  }
  return m;
}

double fraction_of(const std::vector<Standing>& s, const std::string& what) {
  for (const Standing& x : s)
    if (x.what == what) return x.fraction();
  return kNaN;
}

// The gain if `removed` (0..1) of the work on resources `on` went away: that work's share of
// the time shrinks, and the kernel runs no faster than its next-busiest resource allows.
double gain_of(const std::vector<Standing>& s, double removed, double share,
               std::initializer_list<const char*> on) {
  const double rest = largest(s, on);
  const double t = std::max({1.0 - removed * std::clamp(share, 0.0, 1.0), rest, 0.05});
  return std::max(1.0, 1.0 / t);
}

// The share of the kernel's time a resource's work explains: its fraction of the busiest.
double share_of(const std::vector<Standing>& s, std::initializer_list<const char*> on) {
  double mine = 0;
  for (const char* name : on) {
    const double f = fraction_of(s, name);
    if (finite(f)) mine = std::max(mine, f);
  }
  const double busiest = largest(s);
  return busiest > 0 ? mine / busiest : 1.0;
}

// A warp's contiguous access of `bytes` (the bytes one instruction asks for): the narrowest
// native width whose 32 lanes hold them, with as many lanes active as carry them.
model::WarpAccess contiguous_warp(double bytes) {
  model::WarpAccess w;
  int width = 16;
  for (int c : {1, 2, 4, 8, 16})
    if (bytes / c <= model::kWarpSize + 1e-9) {
      width = c;
      break;
    }
  const int lanes = std::clamp(static_cast<int>(std::lround(bytes / width)), 1, model::kWarpSize);
  w.width_bytes = width;
  w.active_mask = lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1u);
  for (int l = 0; l < model::kWarpSize; ++l) w.address[l] = static_cast<std::uint64_t>(l) * width;
  return w;
}

std::string fmt(double v, int digits) {
  return report::strf("%.*f", digits, v);
}

std::string gbps_text(double v) {
  return fmt(v, 0) + " GB/s";
}

std::string bytes_text(double b) {
  if (b >= 1e9) return fmt(b / 1e9, 2) + " GB";
  if (b >= 1e6) return fmt(b / 1e6, 2) + " MB";
  if (b >= 1e3) return fmt(b / 1e3, 1) + " kB";
  return fmt(b, 0) + " B";
}

// The block's thread count from ncu's "(x, y, z)" or launch__block_size.
int block_threads(const profile::KernelCounters& k) {
  const double b = k.get("block_size");
  if (finite(b) && b > 0) return static_cast<int>(b);
  int prod = 1;
  bool any = false;
  std::size_t i = 0;
  while ((i = k.block.find_first_of("0123456789", i)) != std::string::npos) {
    std::size_t end = 0;
    prod *= std::stoi(k.block.substr(i), &end);
    i += end;
    any = true;
  }
  return any ? prod : 0;
}

void finish(Finding& f, const DiagnosisContext& c) {
  if (f.technique.empty()) f.technique = finding_technique(f.kind);
  f.source = finding_source(f.kind);
  if (const auto it = c.rungs.find(f.kind); it != c.rungs.end()) f.rung = it->second;
}

// The DRAM ceiling of a kernel by its mix of bytes read and written: the best one-way figure
// for a kernel that only reads (or writes), the card's copy figure for one that moves as much
// each way (the bus turns around: on the H200 a copy at cudaMemcpy's rate reads 0.83-0.85 of
// the best stream under Nsight Compute), linear between.
Ceiling dram_ceiling(const profile::KernelCounters& k, const Ceilings& c) {
  const double rd = or_zero(k.get("dram_read_bytes")), wr = or_zero(k.get("dram_write_bytes"));
  if (!(c.dram_copy.value > 0) || !(c.dram_copy.value < c.dram.value) || rd + wr <= 0)
    return c.dram;
  const double both = std::min(1.0, 2 * std::min(rd, wr) / (rd + wr));  // 0 one way, 1 copy
  if (both <= 0) return c.dram;
  Ceiling out = c.dram_copy;
  out.value = c.dram.value + (c.dram_copy.value - c.dram.value) * both;
  if (both < 1)
    out.source = fmt(100 * both, 0) + " % of the way from " + c.dram.source + " to " +
                 c.dram_copy.source + ", by this kernel's bytes read and written";
  return out;
}

}  // namespace


double Standing::fraction() const {
  return finite(ceiling.value) && ceiling.value > 0 ? achieved / ceiling.value : kNaN;
}

Ceilings ceilings_of(const model::Card& card, const model::CardRecord* record,
                     double sm_clock_mhz) {
  Ceilings c;
  c.card = card.name;
  c.sms = card.sms;
  c.dram = {card.dram_gbps > 0 ? card.dram_gbps : kNaN, card.dram_from, card.dram_source};
  c.l2 = {card.l2_gbps > 0 ? card.l2_gbps : kNaN, card.l2_from, card.l2_source};
  c.dram_copy = {kNaN, model::Provenance::measured, "not measured"};
  if (record && record->dram_copy_gbps > 0)
    c.dram_copy = {record->dram_copy_gbps, model::Provenance::measured,
                   "measured: memhier probe's fastest DRAM copy on this card (" + record->when +
                       ")"};
  const double clock = sm_clock_mhz > 0 ? sm_clock_mhz : (record ? record->sm_clock_mhz : 0);
  const model::ArchSpec& arch = card.arch();
  const double clock_text = clock;
  const std::string at = " x " + std::to_string(card.sms) + " SMs x " + fmt(clock_text, 0) + " MHz";
  c.shared = {clock > 0 ? arch.shared_banks * arch.bank_width_bytes * card.sms * clock / 1e3 : kNaN,
              model::Provenance::datasheet,
              "datasheet: " + std::to_string(arch.shared_banks) + " banks x " +
                  std::to_string(arch.bank_width_bytes) + " B per clock per SM" + at};
  if (record && record->shared_gbps > 0)
    c.shared = {
        record->shared_gbps, model::Provenance::measured,
        "measured: memhier probe's conflict-free shared loads on this card (" + record->when + ")"};
  c.fp32 = {model::peak_gflops(arch, model::NumberType::fp32, card.sms, clock),
            model::Provenance::datasheet,
            "datasheet: " + std::to_string(arch.cuda_cores_per_sm) + " fp32 lanes x 2 per SM" + at};
  c.tensor = {model::peak_gflops(arch, model::NumberType::bf16, card.sms, clock),
              model::Provenance::datasheet,
              "datasheet: " + std::to_string(arch.bf16_tensor_flops_per_clk) +
                  " dense bf16 FLOP per clock per SM" + at};
  if (record && record->dram_latency_cycles > 0 && record->sm_clock_mhz > 0) {
    c.dram_latency_ns = record->dram_latency_cycles / record->sm_clock_mhz * 1e3;
    c.latency_source = "measured: memhier probe latency on this card (" + record->when + ")";
  } else {
    c.latency_source = "not measured (run memhier probe to record this card's latencies)";
  }
  return c;
}


KernelDiagnosis diagnose(const profile::KernelCounters& k, const DiagnosisContext& c) {
  KernelDiagnosis d;
  d.counters = k;
  d.duration_ns = k.get("duration_ns");
  const Ceilings& ceil = c.ceilings;
  const double secs = finite(d.duration_ns) && d.duration_ns > 0 ? d.duration_ns * 1e-9 : kNaN;
  if (!finite(secs)) d.notes.push_back("no duration (gpu__time_duration): no rates, no standings");

  // Achieved rates against the ceilings.
  d.dram_bytes = total(k, {"dram_read_bytes", "dram_write_bytes"});
  const double l2_bytes = k.get("l2_bytes");
  double shared_wf = k.get("shared_wavefronts");
  if (!finite(shared_wf))
    shared_wf =
        total(k, {"shared_ld_wavefronts", "shared_st_wavefronts", "shared_ldsm_wavefronts"});
  const double l1_bytes = std::max(or_zero(k.get("l1_bytes")), or_zero(shared_wf) * 128.0);
  const double fp32 = 2 * or_zero(k.get("ffma")) + or_zero(k.get("fadd")) + or_zero(k.get("fmul"));
  const double fp16 = 2 * or_zero(k.get("hfma")) + or_zero(k.get("hadd")) + or_zero(k.get("hmul"));
  const double tensor = or_zero(
      total(k, {"tensor_bf16_ops", "tensor_fp16_ops", "tensor_fp16h_ops", "tensor_tf32_ops"}));
  d.flops = fp32 + fp16 + tensor;
  if (finite(secs)) {
    auto stand = [&](const char* what, const char* unit, double amount, const Ceiling& cl) {
      if (finite(amount)) d.standings.push_back({what, unit, amount / secs / 1e9, cl});
    };
    stand("DRAM", "GB/s", d.dram_bytes, dram_ceiling(k, ceil));
    stand("L2", "GB/s", l2_bytes, ceil.l2);
    stand("L1/shared", "GB/s", l1_bytes, ceil.shared);
    stand("fp32", "GFLOP/s", fp32 + fp16, ceil.fp32);
    if (tensor > 0 || finite(k.get("tensor_bf16_ops")))
      stand("tensor", "GFLOP/s", tensor, ceil.tensor);
  }
  d.intensity = finite(d.dram_bytes) && d.dram_bytes > 0 ? d.flops / d.dram_bytes : kNaN;
  {
    const double peak = tensor > fp32 + fp16 ? ceil.tensor.value : ceil.fp32.value;
    d.roof_gflops = finite(d.intensity) ? std::min(ceil.dram.value * d.intensity, peak) : kNaN;
  }
  const std::vector<Standing>& s = d.standings;
  const double busiest = largest(s);

  // Occupancy from the launch, by the occupancy model.
  d.launch.block_threads = block_threads(k);
  d.launch.regs_per_thread = static_cast<int>(or_zero(k.get("registers")));
  d.launch.static_smem_bytes = static_cast<int>(or_zero(k.get("smem_static")));
  d.launch.dynamic_smem_bytes = static_cast<int>(or_zero(k.get("smem_dynamic")));
  d.achieved_occupancy = k.get("achieved_occupancy_pct") / 100.0;
  if (c.arch && d.launch.block_threads > 0) {
    try {
      d.occupancy = model::occupancy(*c.arch, d.launch);
    } catch (const model::OccupancyError& e) {
      d.notes.push_back("the occupancy model declined the launch: " + e.message);
    }
  }

  std::vector<Finding> found;

  // uncoalesced-global: sectors per request against a contiguous access of the same bytes.
  for (const bool store : {false, true}) {
    const std::string op = store ? "st" : "ld";
    const double req = k.get("global_" + op + "_requests");
    const double sectors = k.get("global_" + op + "_sectors");
    if (!finite(req) || !finite(sectors) || req <= 0) continue;
    const double instr = k.get("global_" + op + "_instructions");
    const double asked = k.get("global_" + op + "_bytes");
    const bool known = finite(asked) && finite(instr) && instr > 0;
    const model::WarpAccess ideal_warp = contiguous_warp(known ? asked / instr : 128.0);
    const model::GlobalCost ideal = model::global_cost(ideal_warp);
    const double per_req = sectors / req;
    if (per_req <= kExcessFactor * ideal.sectors) continue;
    const double all_sectors = or_zero(total(
        k, {"global_ld_sectors", "global_st_sectors", "local_ld_sectors", "local_st_sectors"}));
    const double excess = sectors - req * ideal.sectors;
    const double removed = all_sectors > 0 ? excess / all_sectors : 0;
    Finding f;
    f.kind = FindingKind::uncoalesced_global;
    f.measured = per_req;
    f.ideal = ideal.sectors;
    f.ideal_from = "model::global_cost of a contiguous warp access of " +
                   std::to_string(__builtin_popcount(ideal_warp.active_mask)) + " lanes x " +
                   std::to_string(ideal_warp.width_bytes) + " B" +
                   (known ? " (the bytes each instruction asked for)"
                          : " (assumed: the bytes asked were not counted)");
    f.gain = gain_of(s, removed, share_of(s, {"DRAM", "L2"}), {"DRAM", "L2"});
    f.summary = "global " + std::string(store ? "stores" : "loads") + " move " + fmt(per_req, 1) +
                " sectors per request where " + std::to_string(ideal.sectors) +
                " would carry the same bytes: " + fmt(100 * removed, 0) +
                " % of the sectors are wasted";
    f.evidence = {counter(k, "global_" + op + "_requests", "global " + op + " requests"),
                  counter(k, "global_" + op + "_sectors", "global " + op + " sectors"),
                  counter(k, "global_" + op + "_bytes", "global " + op + " bytes asked"),
                  {"sectors per request", "sectors / requests", per_req}};
    found.push_back(f);
  }

  // shared-bank-conflicts: wavefronts per instruction against a conflict-free access.
  {
    const double instr = total(k, {"shared_ld_instructions", "shared_st_instructions"});
    const double wf = total(k, {"shared_ld_wavefronts", "shared_st_wavefronts"});
    const double asked = total(k, {"shared_ld_bytes", "shared_st_bytes"});
    if (finite(instr) && finite(wf) && instr > 0) {
      const bool known = finite(asked);
      const model::WarpAccess w = contiguous_warp(known ? asked / instr : 128.0);
      const model::SharedCost ideal = model::shared_cost(w);
      const double per = wf / instr;
      if (per > kExcessFactor * ideal.wavefronts) {
        const double removed = (wf - instr * ideal.wavefronts) / std::max(or_zero(shared_wf), wf);
        Finding f;
        f.kind = FindingKind::shared_bank_conflicts;
        f.measured = per;
        f.ideal = ideal.wavefronts;
        f.ideal_from = "model::shared_cost of a conflict-free warp access of " +
                       std::to_string(w.width_bytes) + " B per lane" +
                       (known ? " (the bytes each instruction asked for)"
                              : " (assumed: the bytes asked were not counted)");
        f.gain = gain_of(s, removed, share_of(s, {"L1/shared"}), {"L1/shared"});
        f.summary = "shared-memory instructions take " + fmt(per, 1) + " wavefronts each where " +
                    std::to_string(ideal.wavefronts) + " would do: bank conflicts replay " +
                    fmt(100 * removed, 0) + " % of the shared-memory passes";
        f.evidence = {counter(k, "shared_ld_instructions", "shared ld instructions"),
                      counter(k, "shared_ld_wavefronts", "shared ld wavefronts"),
                      counter(k, "shared_st_instructions", "shared st instructions"),
                      counter(k, "shared_st_wavefronts", "shared st wavefronts"),
                      {"wavefronts per instruction", "wavefronts / instructions", per}};
        found.push_back(f);
      }
    }
  }

  // register-spills: local-memory traffic, which the ideal kernel has none of.
  {
    const double local = total(k, {"local_ld_sectors", "local_st_sectors"});
    const double global = or_zero(total(k, {"global_ld_sectors", "global_st_sectors"}));
    if (finite(local) && local > 0 && local >= 0.02 * (local + global)) {
      const double removed = local / (local + global);
      Finding f;
      f.kind = FindingKind::register_spills;
      f.measured = local;
      f.ideal = 0;
      f.ideal_from = "no local memory: every value in a register";
      f.gain = gain_of(s, removed, 1.0, {"L1/shared", "L2"});
      f.summary = fmt(100 * removed, 0) + " % of the kernel's L1 sectors are local memory (" +
                  fmt(local, 0) + " sectors) at " + fmt(or_zero(k.get("registers")), 0) +
                  " registers per thread: spilled registers or a dynamically indexed array";
      f.evidence = {counter(k, "local_ld_sectors", "local ld sectors"),
                    counter(k, "local_st_sectors", "local st sectors"),
                    counter(k, "local_ld_requests", "local ld requests"),
                    counter(k, "registers", "registers per thread")};
      found.push_back(f);
    }
  }

  // Whether the FLOP rate or a compute pipe leads every memory ceiling: more warps or more
  // bytes in flight do not help such a kernel (a GEMM runs few warps by design).
  const double f32_frac = fraction_of(s, "fp32"), ten_frac = fraction_of(s, "tensor");
  const double pipe =
      std::max({or_zero(k.get("fma_pipe_pct")), or_zero(k.get("tensor_pipe_pct")),
                or_zero(k.get("tensor_hmma_pct")), or_zero(k.get("tensor_gmma_pct"))}) /
      100.0;
  const double rate =
      std::max(finite(f32_frac) ? f32_frac : 0.0, finite(ten_frac) ? ten_frac : 0.0);
  const double memory_lead = largest(s, {"fp32", "tensor"});
  const double compute_lead = std::max(rate, pipe);
  const bool compute_bound = compute_lead >= 0.5 && compute_lead >= memory_lead;

  // low-occupancy: the model's occupancy from the launch's resources, where no ceiling is near.
  if (d.occupancy && c.arch && d.occupancy->occupancy < 0.5 && busiest < 0.7 && !compute_bound) {
    const model::OccupancyResult& o = *d.occupancy;
    std::string advice;
    try {
      advice = model::occupancy_advice(*c.arch, d.launch, o);
    } catch (const model::OccupancyError& e) {
      advice = e.message;
    }
    const int warps_per_block = (d.launch.block_threads + 31) / 32;
    const double next =
        std::min(1.0, static_cast<double>((o.blocks_per_sm + 1) * warps_per_block) / o.max_warps);
    Finding f;
    f.kind = FindingKind::low_occupancy;
    f.measured = o.occupancy;
    f.ideal = next;
    f.ideal_from = "model::occupancy with one more block per SM";
    f.gain = std::max(
        1.0, std::min(next / std::max(o.occupancy, 1e-9), busiest > 0 ? 1.0 / busiest : 4.0));
    f.summary = std::to_string(o.active_warps) + " of " + std::to_string(o.max_warps) +
                " warps per SM (" + fmt(100 * o.occupancy, 0) + " %), limited by " +
                model::to_string(o.limiter) + " (" + std::to_string(d.launch.regs_per_thread) +
                " registers/thread, " + std::to_string(o.smem_per_block) + " B shared/block, " +
                std::to_string(d.launch.block_threads) + " threads/block), with no ceiling near";
    f.technique = advice.empty() ? "" : advice;
    f.evidence = {counter(k, "registers", "registers per thread"),
                  counter(k, "block_size", "block size"),
                  counter(k, "smem_static", "static shared B/block"),
                  counter(k, "smem_dynamic", "dynamic shared B/block"),
                  counter(k, "achieved_occupancy_pct", "achieved occupancy %"),
                  {"blocks per SM (model)", "model::occupancy", double(o.blocks_per_sm)}};
    found.push_back(f);
  }

  // dram-excess: DRAM bytes well above what the instructions needed (or the user's footprint).
  {
    const double asked = total(k, {"global_ld_bytes", "global_st_bytes"});
    const double from_l1 = or_zero(k.get("l2_sm_sectors")) * 32.0;
    const bool told = c.footprint_bytes > 0;
    const double needed = told ? c.footprint_bytes : std::max(or_zero(asked), from_l1);
    if (finite(d.dram_bytes) && needed > 0 && d.dram_bytes > 1.5 * needed &&
        (told || finite(asked))) {
      Finding f;
      f.kind = FindingKind::dram_excess;
      f.measured = d.dram_bytes;
      f.ideal = needed;
      f.ideal_from = told ? "the footprint given (--footprint)"
                          : "the larger of the bytes the instructions asked for and the bytes "
                            "the L1 asked of the L2";
      f.gain = gain_of(s, 1.0 - needed / d.dram_bytes, share_of(s, {"DRAM"}), {"DRAM"});
      f.summary = "DRAM moved " + bytes_text(d.dram_bytes) + " where " + bytes_text(needed) +
                  " would do (" + fmt(d.dram_bytes / needed, 1) +
                  "x): data fetched again after eviction, or fetched in larger blocks than used";
      f.evidence = {counter(k, "dram_read_bytes", "DRAM bytes read"),
                    counter(k, "dram_write_bytes", "DRAM bytes written"),
                    counter(k, "global_ld_bytes", "global ld bytes asked"),
                    counter(k, "l2_sm_sectors", "L2 sectors from L1"),
                    counter(k, "l2_hit_rate_pct", "L2 hit rate %")};
      found.push_back(f);
    }
  }

  // near-ceiling: a memory ceiling within 15 %, of a resource no finding above shows doing
  // wasted work (a ceiling reached with replays or overfetch still has room).
  {
    std::vector<std::string> wasted;
    for (const Finding& f : found) {
      if (f.kind == FindingKind::uncoalesced_global) wasted.insert(wasted.end(), {"DRAM", "L2"});
      if (f.kind == FindingKind::shared_bank_conflicts) wasted.push_back("L1/shared");
      if (f.kind == FindingKind::register_spills) wasted.insert(wasted.end(), {"L1/shared", "L2"});
      if (f.kind == FindingKind::dram_excess) wasted.push_back("DRAM");
    }
    const Standing* best = nullptr;
    for (const Standing& x : s)
      if ((x.what == "DRAM" || x.what == "L2" || x.what == "L1/shared") &&
          std::find(wasted.begin(), wasted.end(), x.what) == wasted.end() && finite(x.fraction()) &&
          x.fraction() >= kNearCeiling && (!best || x.fraction() > best->fraction()))
        best = &x;
    if (best) {
      Finding f;
      f.kind = FindingKind::near_ceiling;
      f.measured = best->achieved;
      f.ideal = best->ceiling.value;
      f.ideal_from = best->what + " ceiling, " + best->ceiling.source;
      f.gain = std::max(1.0, 1.0 / best->fraction());
      f.summary = best->what + " at " + gbps_text(best->achieved) + ", " +
                  fmt(100 * best->fraction(), 0) + " % of this card's " +
                  model::to_string(best->ceiling.from) + " " + gbps_text(best->ceiling.value);
      f.evidence = {{best->what + " GB/s", "bytes / gpu__time_duration", best->achieved}};
      found.push_back(f);
    }
  }

  // compute-bound: the FLOP rate or a compute pipe leads.
  if (compute_bound) {
    Finding f;
    f.kind = FindingKind::compute_bound;
    const bool tensor_led = finite(ten_frac) && ten_frac >= (finite(f32_frac) ? f32_frac : 0.0);
    f.measured = rate > 0 ? (tensor_led ? ten_frac : f32_frac) : pipe;
    f.ideal = 1.0;
    f.ideal_from = rate > 0 ? std::string(tensor_led ? "the tensor" : "the fp32") + " peak, " +
                                  (tensor_led ? ceil.tensor : ceil.fp32).source
                            : "a compute pipe busy every cycle";
    f.gain = std::max(1.0, 1.0 / std::max(compute_lead, 0.05));
    f.summary = rate > 0 ? std::string(tensor_led ? "tensor" : "fp32") + " operations at " +
                               fmt(100 * f.measured, 0) + " % of this card's peak (" +
                               fmt(d.flops / secs / 1e12, 1) +
                               " TFLOP/s), above every memory ceiling's share (" +
                               fmt(100 * memory_lead, 0) + " %)"
                         : "a compute pipe busy " + fmt(100 * pipe, 0) +
                               " % of the active cycles, above every memory ceiling's share (" +
                               fmt(100 * memory_lead, 0) + " %)";
    f.evidence = {counter(k, "ffma", "fp32 FMA (thread instructions)"),
                  counter(k, "tensor_bf16_ops", "tensor bf16 operations"),
                  counter(k, "fma_pipe_pct", "FMA pipe %"),
                  counter(k, "tensor_pipe_pct", "tensor pipe %"),
                  counter(k, "tensor_gmma_pct", "tensor pipe GMMA (wgmma) %")};
    found.push_back(f);
  }

  // latency-bound: too few bytes in flight for latency x bandwidth, nothing else to blame.
  // It is what is left when nothing above explains the kernel's pace.
  if (found.empty() && busiest < 0.6) {
    const double dram = fraction_of(s, "DRAM");
    if (ceil.dram_latency_ns <= 0) {
      d.notes.push_back("latency-bound not judged: " + ceil.latency_source);
    } else if (finite(dram) && finite(secs)) {
      const double in_flight = dram * ceil.dram.value * ceil.dram_latency_ns;  // GB/s x ns = B
      const double needed = ceil.dram.value * ceil.dram_latency_ns;
      const double stall = k.get("stall_long_scoreboard_pct");
      const bool waits_on_memory = !finite(stall) || stall >= 20;
      if (in_flight < 0.6 * needed && waits_on_memory && d.dram_bytes > 0) {
        Finding f;
        f.kind = FindingKind::latency_bound;
        f.measured = in_flight;
        f.ideal = needed;
        f.ideal_from = "this card's DRAM latency x bandwidth (" + fmt(ceil.dram_latency_ns, 0) +
                       " ns x " + gbps_text(ceil.dram.value) + ", Little's law)";
        f.gain = std::max(
            1.0, std::min(needed / std::max(in_flight, 1.0), busiest > 0 ? 1.0 / busiest : 4.0));
        f.summary = "about " + bytes_text(in_flight) + " in flight (" +
                    bytes_text(in_flight / std::max(1, ceil.sms)) + " per SM) where " +
                    bytes_text(needed) + " would keep DRAM busy; no ceiling is near";
        f.evidence = {{"DRAM GB/s", "dram__bytes / gpu__time_duration", dram * ceil.dram.value},
                      counter(k, "stall_long_scoreboard_pct", "stall long scoreboard %"),
                      counter(k, "achieved_occupancy_pct", "achieved occupancy %")};
        found.push_back(f);
      }
    }
  }

  for (Finding& f : found) finish(f, c);
  found.erase(std::remove_if(found.begin(), found.end(),
                             [](const Finding& f) {
                               return f.kind != FindingKind::near_ceiling &&
                                      f.kind != FindingKind::compute_bound && f.gain < kMinGain;
                             }),
              found.end());
  std::stable_sort(found.begin(), found.end(),
                   [](const Finding& a, const Finding& b) { return a.gain > b.gain; });
  d.findings = std::move(found);
  return d;
}

}  // namespace memhier::bench
