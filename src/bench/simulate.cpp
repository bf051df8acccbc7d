// `memhier simulate` (see simulate.hpp): walks the registry's stream models.
#include "memhier/bench/simulate.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <stdexcept>
#include <thread>

#include "memhier/core/kernel_code.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/registry/registry.hpp"

namespace memhier::bench {
namespace {

using report::Column;
using report::Table;
using report::Value;

bool has_stream(const registry::Family& f) {
  for (const registry::Variant& v : f.variants)
    if (v.stream) return true;
  return false;
}

}  // namespace

std::vector<std::string> simulate_targets() {
  kernels::register_families();
  std::vector<std::string> out;
  for (const registry::Family& f : registry::families())
    if (has_stream(f)) out.push_back(f.name);
  return out;
}

SimulateItem simulate_one(const std::string& family, const std::string& variant,
                          const std::string& shape, const model::Card& card, bool fetch_code) {
  kernels::register_families();
  SimulateItem it;
  it.family = family;
  it.variant = variant;
  it.shape = shape;
  const registry::Family* f = registry::find_family(family);
  if (!f) throw std::invalid_argument("there is no family '" + family + "'.");
  for (const registry::Variant& v : f->variants) {
    if (v.name != variant || !v.stream) continue;
    it.modeled = true;
    const auto t0 = std::chrono::steady_clock::now();
    model::LaunchSimulator sim(card);
    v.stream(shape, sim);
    // The kernel's machine code this card would load, read once after the cold start.
    if (fetch_code && sim.resident_blocks() > 0)
      if (const auto code =
              core::kernel_code_bytes(v.symbol, card.arch().cc_major, card.arch().cc_minor))
        sim.instruction_fetch(*code);
    it.result = sim.finish();
    it.cpu_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    it.runs = it.result.instructions > 0;
  }
  return it;
}

void replay_each(std::size_t n, const std::function<void(std::size_t)>& replay) {
  kernels::register_families();  // once, before the workers look families up
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(n);
  auto work = [&] {
    for (std::size_t i = next++; i < n; i = next++) try {
        replay(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
  };
  const unsigned workers =
      std::max(1u, std::min(std::thread::hardware_concurrency(), static_cast<unsigned>(n)));
  std::vector<std::thread> pool;
  for (unsigned w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

std::vector<SimulateItem> simulate(const std::string& target,
                                   const std::vector<std::string>& variants,
                                   const std::string& shape, const model::Card& card) {
  kernels::register_families();
  std::vector<std::string> fams;
  if (target == "all") {
    if (!variants.empty() || !shape.empty())
      throw std::invalid_argument(
          "--variant and --size apply to one family; name it instead of 'all'.");
    fams = simulate_targets();
  } else {
    const registry::Family* f = registry::find_family(target);
    if (!f || !has_stream(*f)) {
      std::string list;
      for (const std::string& t : simulate_targets()) list += (list.empty() ? "" : ", ") + t;
      throw std::invalid_argument("cannot simulate '" + target +
                                  "': it is not a family with a stream model yet; choose one of " +
                                  list + ", or all.");
    }
    registry::check_variants(*f, variants);
    fams = {target};
  }
  std::vector<SimulateItem> items;
  for (const std::string& name : fams) {
    const registry::Family& f = *registry::find_family(name);
    std::vector<std::string> shapes =
        shape.empty() ? f.comparison_shapes : std::vector<std::string>{shape};
    if (shapes.empty()) shapes = {f.profile_shape};
    for (const std::string& s : shapes)
      for (const registry::Variant& v : f.variants) {
        if (!variants.empty() &&
            std::find(variants.begin(), variants.end(), v.name) == variants.end())
          continue;
        SimulateItem it;
        it.family = name;
        it.variant = v.name;
        it.shape = s;
        items.push_back(std::move(it));
      }
  }
  replay_each(items.size(), [&](std::size_t i) {
    items[i] = simulate_one(items[i].family, items[i].variant, items[i].shape, card);
  });
  return items;
}

report::Section simulate_section(const std::vector<SimulateItem>& items, const model::Card& card) {
  report::Section s;
  s.id = "simulate";
  s.title = "Simulated memory traffic on " + card.name + " (cc " + card.arch().cc() + ")";
  const model::ArchSpec& a = card.arch();
  // The lookups beside the accesses, as far as this card's figures say.
  std::string fences = "Fences cost no L2 lookup: the card's slice count is not known.";
  if (card.l2_slices > 0)
    fences = report::strf("A GPU-scope fence costs a lookup hit at each of the card's %d L2 "
                          "slices and one at the requester (membar lookups in Nsight Compute)",
                          card.l2_slices) +
             (card.fences_merge_per_sm
                  ? "; an SM's fences within one wave of blocks count once, as Nsight Compute "
                    "counted on the " + card.name + "."
                  : std::string("."));
  std::string dirty_end;
  if (a.l2_end_lookups_per_dirty_sector > 0)
    dirty_end = report::strf(
        " Each dirty sector left in L2 at the end adds %.1f lookup hits, as Nsight Compute "
        "counted on cc %s (fabric operations neither read nor write, and lookups of no source "
        "unit).",
        a.l2_end_lookups_per_dirty_sector, a.cc().c_str());
  s.paragraphs.push_back(report::strf(
      "Each kernel's global accesses, from the same index math as the kernel, replayed on the "
      "CPU through %d per-SM L1s (128-byte lines, 32-byte sectors, %d-way, random replacement, "
      "capacity left by the shared-memory carveout, write-through with write-allocate: a store "
      "hits a sector an earlier load or store put there; a warp's stores of one run into a "
      "sector L1 holds whole merge into one write) and a %.0f MiB L2 in %d partition(s) "
      "(%d-way LRU, "
      "hashed sets, write-back with at most %d dirty lines a set; a store or atomic counts as an "
      "L2 hit, as Nsight Compute counts it; with two partitions an SM's access to the other "
      "partition's memory also keeps a copy in its own); caches start cold, as under Nsight "
      "Compute. Blocks go to SMs round-robin in waves of SMs x resident blocks, warps "
      "interleaved one instruction at a time (a run of stores at once); no sampling. %s The "
      "kernel's own machine code (its .text for this card, read from this program's file) is "
      "fetched once from DRAM, 7 L2 lookups a sector, a quarter of them misses (measured on the "
      "H100 SXM after a flush; not measured on other cards).%s",
      card.sms, a.l1_ways, static_cast<double>(card.l2_bytes) / (1 << 20), a.l2_partitions,
      a.l2_ways, a.l2_dirty_ways,
      fences.c_str(), dirty_end.c_str()));
  s.paragraphs.push_back(report::strf(
      "Time bound: DRAM bytes at %.0f GB/s (%s)%s.", card.dram_gbps, card.dram_source.c_str(),
      card.l2_gbps > 0 ? report::strf(", or L2<->SM sectors at %.0f GB/s (%s) when larger",
                                      card.l2_gbps, card.l2_source.c_str())
                             .c_str()
                       : report::strf("; %s", card.l2_source.c_str()).c_str()));
  Table t;
  t.id = "simulate-traffic";
  t.title = "Predicted L1, L2 and DRAM traffic per kernel";
  t.columns = {{"family", "", "family"},
               {"variant", "", "variant"},
               {"shape", "", "shape"},
               {"blocks/SM", "", "blocks_per_sm"},
               {"L1 per SM", "KiB", "l1_kib"},
               {"L1 hit rate", "%", "l1_hit_rate"},
               {"L2 hit rate", "%", "l2_hit_rate"},
               {"L2<->SM sectors", "", "l2_sm_sectors"},
               {"DRAM read", "B", "dram_read_bytes"},
               {"of it code", "B", "code_bytes"},
               {"DRAM written", "B", "dram_write_bytes"},
               {"dirty in L2 at end", "B", "l2_dirty_end_bytes"},
               {"time bound", "us", "time_bound_us"},
               {"bound by", "", "bound_by"},
               {"replay", "s", "cpu_seconds"}};
  std::vector<std::string> unmodeled;
  int declined = 0;
  for (const SimulateItem& it : items) {
    if (!it.modeled) {
      unmodeled.push_back(it.family + "/" + it.variant);
      continue;
    }
    if (!it.runs) {  // declines the shape (a particles rung at an axpy shape): no kernel
      ++declined;
      continue;
    }
    std::vector<Value> row = {Value::str(it.family), Value::str(it.variant), Value::str(it.shape)};
    const model::SimResult& r = it.result;
    const model::Traffic& x = r.traffic;
    row.push_back(Value::integer(r.blocks_per_sm));
    row.push_back(Value::num(static_cast<double>(r.l1_bytes) / 1024.0));
    row.push_back(Value::num_or_none(x.l1_hit_rate(), 1));
    row.push_back(Value::num_or_none(x.l2_hit_rate(), 1));
    row.push_back(Value::integer(x.l2_sm_sectors()));
    row.push_back(Value::num(x.dram_read_bytes()));
    row.push_back(Value::num(static_cast<double>(r.code_bytes)));
    row.push_back(Value::num(x.dram_write_bytes()));
    row.push_back(Value::num(static_cast<double>(x.l2_dirty_end_sectors) * x.sector_bytes));
    row.push_back(Value::num(r.time_bound_s * 1e6, 2));
    row.push_back(Value::str(r.l2_bound ? "L2" : "DRAM"));
    row.push_back(Value::num(it.cpu_seconds, 2));
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back(
      "DRAM written counts dirty sectors evicted during the kernel; dirty sectors still in L2 "
      "at its end are shown apart (they reach DRAM later, outside the kernel's counters).");
  t.notes.push_back(
      "DRAM read includes the kernel's machine code (\"of it code\"), fetched once after "
      "the cold start.");
  if (declined > 0)
    t.notes.push_back(
        std::to_string(declined) +
        " variant-shape pairs left out: the variant launches no kernel at that "
        "shape (the particle rungs decline arrays, the array rungs particles, softmax "
        "warp_per_row rows over 1024 columns).");
  if (!unmodeled.empty()) {
    std::string list;
    for (const std::string& u : unmodeled) {
      if (list.find(u) != std::string::npos) continue;
      list += (list.empty() ? "" : ", ") + u;
    }
    t.notes.push_back("No stream model yet: " + list + ".");
  }
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace memhier::bench
