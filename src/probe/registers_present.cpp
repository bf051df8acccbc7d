// The registers probe's section from its measurement: the builds table, the chart and
// the claims judged against the builds. No CUDA.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "claim_rows.hpp"
#include "memhier/probe/registers.hpp"

namespace memhier::probe {
namespace {

using report::Value;

// Builds where memhier's model and the CUDA occupancy API disagree, in words.
std::vector<std::string> model_mismatches(const RegistersResult& m) {
  std::vector<std::string> mismatches;
  for (const RegisterBuild& r : m.builds)
    if (m.has_model && r.model_blocks != r.cuda_blocks)
      mismatches.push_back(r.name + " (model " + std::to_string(r.model_blocks) + ", CUDA " +
                           std::to_string(r.cuda_blocks) + ")");
  return mismatches;
}

report::Table builds_table(const RegistersResult& m) {
  const double base_ms = m.builds.front().ms;
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
  const std::vector<std::string> mismatches = model_mismatches(m);
  std::vector<std::string> wrong_outputs;
  for (const RegisterBuild& r : m.builds) {
    t.rows.push_back({Value::str(r.name), Value::integer(r.regs), Value::integer(r.local_bytes),
                      r.model_blocks >= 0 ? Value::integer(r.model_blocks) : Value::num(NAN),
                      Value::integer(r.cuda_blocks), Value::num(r.occupancy_pct, 1),
                      Value::num(r.ms, 3), Value::num(base_ms > 0 ? r.ms / base_ms : NAN, 2),
                      Value::str(r.model_limiter.empty() ? "n/a" : r.model_limiter),
                      Value::num(r.rel_err, 8)});
    if (!(r.rel_err <= 1e-5)) wrong_outputs.push_back(r.name);
  }
  t.notes.push_back(
      "Spills show as local memory here, but localSizeBytes is the whole per-thread stack "
      "frame; the compiler's own report (nvcc -Xptxas -v: \"N bytes spill stores, N bytes "
      "spill loads\") is the authoritative spill figure.");
  if (!m.has_model)
    t.notes.push_back("memhier's model has no table for compute capability " +
                      std::to_string(m.device.cc_major) + "." + std::to_string(m.device.cc_minor) +
                      ", so the model column is n/a.");
  if (!m.model_note.empty()) t.notes.push_back(m.model_note);
  if (!mismatches.empty()) {
    std::string note = "MODEL MISMATCH: the CPU model and the CUDA occupancy API disagree for ";
    for (std::size_t i = 0; i < mismatches.size(); ++i) note += (i ? ", " : "") + mismatches[i];
    t.notes.push_back(note + ".");
  }
  if (!wrong_outputs.empty()) {
    std::string note = "OUTPUT MISMATCH (rel. L2 error above 1e-5 against the unbounded build): ";
    for (std::size_t i = 0; i < wrong_outputs.size(); ++i)
      note += (i ? ", " : "") + wrong_outputs[i];
    t.notes.push_back(note + "; their times are not comparable.");
  }
  if (!m.has_maxnreg)
    t.notes.push_back("This nvcc has no __maxnreg__ (CUDA 12.4+); only launch bounds are shown.");
  return t;
}

report::Chart builds_chart(const RegistersResult& m) {
  report::Chart c;
  c.id = "registers-time";
  c.title = "Time per register cap";
  c.kind = report::Chart::Kind::bar;
  c.x_label = "variant";
  c.y_label = "time";
  c.y_unit = "ms";
  report::Series ser;
  ser.name = "median time";
  for (const RegisterBuild& r : m.builds) {
    c.categories.push_back(r.name + " (" + std::to_string(r.regs) + " regs, " +
                           strf("%.0f", r.occupancy_pct) + "%)");
    ser.y.push_back(r.ms);
  }
  c.series.push_back(ser);
  return c;
}

// Spills against the fastest spill-free build, and occupancy against speed.
void spill_claims(const RegistersResult& m, std::vector<ClaimRow>& claims) {
  // The fastest build without local memory and with the right output.
  const RegisterBuild* fastest_clean = nullptr;
  const RegisterBuild* least_spill = nullptr;
  const RegisterBuild* most_spill = nullptr;
  const RegisterBuild* fastest = nullptr;
  const RegisterBuild* most_occupied = nullptr;
  for (const RegisterBuild& r : m.builds) {
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
    ClaimRow c0{ClaimId::spill_few_bytes_halve, "", {}};
    if (!fastest_clean || !least_spill) {
      c0.measured = "no build both spilled and ran correctly";
      c0.set(not_measurable("no spilling and no spill-free build to compare"));
    } else {
      const double ratio = least_spill->ms / fastest_clean->ms;
      c0.measured = least_spill->name + ": " + std::to_string(least_spill->local_bytes) +
                    " B local/thread, " + strf("%.2fx", ratio) + " the time of " +
                    fastest_clean->name + " (no local memory)";
      // Tolerance: at least 1.8x the time counts as "halved".
      c0.set(judged(ratio, Claimed::value(2, "x the time"),
                    claims::band(ClaimId::spill_few_bytes_halve)));
    }
    claims.push_back(c0);
  }
  {  // 001: 3-5x slowdowns from spilling.
    ClaimRow c1{ClaimId::spill_3_5x, "", {}};
    if (!fastest_clean || !most_spill) {
      c1.measured = "no build both spilled and ran correctly";
      c1.set(not_measurable("no spilling and no spill-free build to compare"));
    } else {
      const double ratio = most_spill->ms / fastest_clean->ms;
      c1.measured = most_spill->name + " (" + std::to_string(most_spill->local_bytes) +
                    " B local/thread): " + strf("%.2fx", ratio) + " the time of " +
                    fastest_clean->name;
      // Tolerance: 3-5x widened by 20% either side.
      c1.set(judged(ratio, Claimed::range(3, 5, "x the time"), claims::band(ClaimId::spill_3_5x)));
    }
    claims.push_back(c1);
  }
  {  // 001: more occupancy is not always faster.
    ClaimRow c2{ClaimId::launch_bounds_occupancy_not_always_faster, "", {}};
    if (!fastest || !most_occupied) {
      c2.measured = "no build ran correctly";
      c2.set(not_measurable("no valid timing"));
    } else {
      const double ratio = most_occupied->ms / fastest->ms;
      c2.measured = "highest occupancy: " + most_occupied->name + " " +
                    strf("%.1f%%", most_occupied->occupancy_pct) + " at " +
                    strf("%.3f ms", most_occupied->ms) + "; fastest: " + fastest->name + " " +
                    strf("%.1f%%", fastest->occupancy_pct) + " at " + strf("%.3f ms", fastest->ms);
      // Tolerance: the most occupied build must be more than 5% slower than a less occupied one.
      c2.set(judged_all({{"the most occupied build's time", ratio,
                          Claimed::value(1, "x the fastest's"), Tolerance::above(1.05)},
                         {"its occupancy over the fastest's",
                          most_occupied->occupancy_pct - fastest->occupancy_pct,
                          Claimed::value(0, "points"), Tolerance::above(0)}}));
    }
    claims.push_back(c2);
  }
}

// Occupancy from the register count, launch bounds, and the model against CUDA.
void occupancy_claims(const RegistersResult& m, std::vector<ClaimRow>& claims) {
  {  // 000: 65536 / regs threads per SM (64 regs -> 50%, 32 -> 100%).
    ClaimRow c3{ClaimId::regs_per_thread_occupancy, "", {}};
    std::vector<Figure> figures;
    bool off = false;
    std::string text;
    std::vector<int> seen;  // several builds share a register count: list each count once
    for (const RegisterBuild& r : m.builds) {
      if (r.regs <= 0 || std::find(seen.begin(), seen.end(), r.regs) != seen.end()) continue;
      seen.push_back(r.regs);
      const int napkin_threads = std::min(m.max_threads_per_sm, m.device.regs_per_sm / r.regs);
      const int napkin_blocks = napkin_threads / m.block_threads;
      text += (text.empty() ? "" : "; ") + std::to_string(r.regs) +
              " regs: " + std::to_string(r.cuda_blocks * m.block_threads) + " threads";
      off = off || napkin_blocks != r.cuda_blocks;
      figures.push_back({std::to_string(r.regs) + " regs", double(r.cuda_blocks * m.block_threads),
                         Claimed::value(napkin_blocks * m.block_threads, "threads"),
                         Tolerance::inside_range()});
    }
    // The formula counted in whole blocks of the build; it ignores the allocation granularity.
    c3.measured = text + strf(" (formula in whole %d-thread blocks", m.block_threads) +
                  (off ? "; registers are allocated in granules the formula ignores)" : ")");
    c3.set(judged_all(figures));
    claims.push_back(c3);
  }
  {  // 000/001: __launch_bounds__(256, m) makes m blocks fit.
    ClaimRow c4{ClaimId::launch_bounds_min_blocks, "", {}};
    std::string text;
    std::vector<Figure> figures;
    for (const RegisterBuild& r : m.builds) {
      if (r.min_blocks <= 0) continue;
      text += (text.empty() ? "" : "; ") + std::string("m=") + std::to_string(r.min_blocks) + ": " +
              std::to_string(r.regs) + " regs, " + std::to_string(r.cuda_blocks) + " blocks/SM";
      figures.push_back({"m=" + std::to_string(r.min_blocks), double(r.cuda_blocks),
                         Claimed::range(r.min_blocks, INFINITY, "blocks/SM"),
                         Tolerance::inside_range()});
    }
    c4.measured = text;
    c4.set(judged_all(figures, "no launch-bounds build"));
    claims.push_back(c4);
  }
  {  // memhier's own model against the CUDA occupancy API.
    ClaimRow c5{ClaimId::memhier_occupancy_model, "", {}};
    c5.measured = std::to_string(m.builds.size() - model_mismatches(m).size()) + " of " +
                  std::to_string(m.builds.size()) + " builds agree";
    // Every build must agree; the mismatch note under the table names those that do not.
    c5.set(judged(m.has_model ? double(model_mismatches(m).size()) : NAN,
                  Claimed::value(0, "builds that disagree"),
                  claims::band(ClaimId::memhier_occupancy_model),
                  "no model table for this compute capability"));
    claims.push_back(c5);
  }
}

}  // namespace

Result present_registers(const RegistersResult& m) {
  Result res;
  report::Section& s = res.section;
  s.id = "registers";
  s.title = "Registers: caps, launch bounds, spills and occupancy";
  s.paragraphs.push_back(
      "One kernel body (each thread keeps " + std::to_string(m.live_floats) +
      " floats live across a loop that reads one value from an L2-resident table per "
      "iteration and updates every accumulator from its neighbour) compiled under different "
      "register caps: no bound, __launch_bounds__(256, m) and, where nvcc supports it, "
      "__maxnreg__(n). Registers and local memory per thread come from "
      "cudaFuncGetAttributes; blocks per SM from memhier's occupancy model and from "
      "cudaOccupancyMaxActiveBlocksPerMultiprocessor (they must agree); time is the median of "
      "CUDA-event-timed launches of " +
      std::to_string(m.threads) + " threads (" + std::to_string(m.iters) +
      " iterations each), 256 per block. Every build computes the same "
      "arithmetic in the same order, so each output is checked against the unbounded build.");

  s.tables.push_back(builds_table(m));
  s.charts.push_back(builds_chart(m));
  std::vector<ClaimRow> claims;
  spill_claims(m, claims);
  occupancy_claims(m, claims);
  add_claims(s, "registers", claims);

  TierFigure reg;
  reg.tier = "registers";
  reg.size = std::to_string(m.device.regs_per_sm * 4 / 1024) + " KiB/SM";
  res.tiers.push_back(reg);
  return res;
}

}  // namespace memhier::probe
