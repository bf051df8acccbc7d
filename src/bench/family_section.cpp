// The ladder's report section: one row per bench record, the claims it tests and a chart.
#include <algorithm>
#include <cmath>

#include "memhier/bench/kernel_bench.hpp"
#include "memhier/claims/ladders.hpp"
#include "memhier/report/summary.hpp"

namespace memhier::bench {
namespace {

using registry::BenchRecord;
using registry::Family;

// What the section says of PyTorch's rows: how they were timed, or in one sentence why
// there are none; "" where PyTorch was not asked (--no-torch, bench without --torch).
std::string torch_paragraph(const std::vector<BenchRecord>& records) {
  const BenchRecord* any = nullptr;
  bool timed = false;
  for (const BenchRecord& r : records) {
    if (r.reference != "pytorch") continue;
    if (!any) any = &r;
    timed = timed || r.verified;
  }
  if (!any) return {};
  if (!timed) return "No PyTorch line: " + any->declined + ".";
  return "The PyTorch rows time PyTorch's own call for the problem (python3 -m "
         "memhier.torch_reference, the note names its version) with the same method, checked "
         "against a float64 computation first, but in another process: their x memcpy and x "
         "vendor, and every row's x torch (PyTorch's median time over the row's), are ratios of "
         "medians, not paired. fp32 matmul and conv2d run with TF32 off.";
}

}  // namespace

report::Section family_section(const Family& family, const std::vector<BenchRecord>& records) {
  using report::Value;
  report::Section s;
  s.id = "bench-" + family.name;
  s.title = family.title;
  if (!family.story.empty()) s.paragraphs.push_back(family.story);
  s.paragraphs.push_back(
      "Each variant is verified on random inputs with NaN-poisoned outputs: every output "
      "element against a float64 reference computed on the GPU, within a bound derived from "
      "the operation, and the relative L2 error (rel. error) within the family's tolerance; "
      "then timed (median of repeated launches, L2 flushed before each by reading a buffer "
      "twice its size that nothing writes, so no launch pays to write back lines another "
      "left dirty), and the output of "
      "the last timed repetition (of one more run where the problem updates its output in "
      "place) verified again. GB/s counts the fewest bytes the problem must move. The ceilings "
      "move the same bytes: "
      "cudaMemcpy device-to-device (half read, half written), a kernel that only reads them "
      "and one that only writes them (a store kernel or cudaMemsetAsync, the faster). x memcpy "
      "and x vendor are paired: the reference's repetitions alternate with the variant's, each "
      "after the same L2 flush, and the figure is the median of the per-pair ratios (the "
      "reference's time over the variant's; above 1: faster) with their 10th-90th percentiles "
      "in brackets, so a drift of the card between measurements cancels instead of entering "
      "the ratio. " +
      std::string(family.read_dominated
                      ? "The problem reads nearly all its bytes: x read-only is paired the same "
                        "way with the read-only ceiling. "
                      : "") +
      "The time column is each variant's own median, taken at its turn in the run: the card's "
      "clocks drift over a long bench, so two rows' times need not stand in the ratio of their "
      "paired figures, which are what compares them. "
      "x prev is the previous rung's median time over this one's. Where the problem has flops, "
      "the datasheet peak column is GFLOP/s over the peak of the family's number type at the maximum SM "
      "clock the device reports: fp32 peak = SMs x fp32 lanes per SM x 2 x clock (tensor-core "
      "reference lines can exceed it); bf16 peak = SMs x dense bf16 tensor-core FLOP per clock "
      "per SM with fp32 accumulation (the architecture table's, from NVIDIA's whitepapers: "
      "2048 on 8.0, 4096 on 9.0; none where the table has no confirmed figure) x clock. "
      "NVIDIA quotes tensor peaks at a lower clock (an H100 SXM: 1830 MHz, 989 TFLOP/s; the "
      "device reports 1980 MHz), so a bf16 peak here is the higher figure. A variant that "
      "cannot run at a shape is shown as declined, with its reason.");
  s.paragraphs.push_back(torch_paragraph(records));
  if (s.paragraphs.back().empty()) s.paragraphs.pop_back();
  const bool flops = std::any_of(records.begin(), records.end(),
                                 [](const BenchRecord& r) { return std::isfinite(r.gflops); });
  const bool torch = std::any_of(records.begin(), records.end(),
                                 [](const BenchRecord& r) { return std::isfinite(r.x_torch); });
  // The rung a per-shape variant (`best`) ran, beside it.
  const bool configs = std::any_of(records.begin(), records.end(),
                                   [](const BenchRecord& r) { return !r.config.empty(); });
  report::Table t;
  t.id = "bench-" + family.name;
  t.title = family.title + ": the ladder";
  t.columns = {{"variant", "", "variant"}};
  if (configs) t.columns.push_back({"runs", "", "config"});
  t.columns.insert(t.columns.end(), {{"rung", "", "rung"},
                                     {"shape", "", "shape"},
                                     {"time", "ms", "ms"},
                                     {"bandwidth", "GB/s", "gbps"}});
  if (flops) {
    t.columns.push_back({"throughput", "GFLOP/s", "gflops"});
    // The key stays peak_pct for every family; the column's name says which peak.
    t.columns.push_back(
        {"of datasheet " + std::string(model::to_string(family.number_type)) + " peak", "%",
         "peak_pct"});
  }
  // A problem bound by arithmetic (GEMM): the copy ceiling says nothing about it.
  const bool copy = report::copy_ceiling_applies(records);
  if (copy) t.columns.push_back({"x memcpy", "", "x_memcpy"});
  if (family.read_dominated) t.columns.push_back({"x read-only", "", "x_read_only"});
  for (report::Column c : std::vector<report::Column>{{"x vendor", "", "x_vendor"},
                                                      {"x torch", "", "x_torch"},
                                                      {"x prev", "", "x_prev"},
                                                      {"registers", "", "regs"},
                                                      {"local", "B", "local_bytes"},
                                                      {"shared", "B", "smem_bytes"},
                                                      {"blocks/SM", "", "blocks_per_sm"},
                                                      {"occupancy", "%", "occupancy_pct"},
                                                      {"rel. error", "", "rel_error"},
                                                      {"verified", "", "verified"},
                                                      {"note", "", "note"}})
    if (torch || c.key != "x_torch") t.columns.push_back(c);
  for (const BenchRecord& r : records) {
    std::vector<Value> row{Value::str(r.variant)};
    if (configs) row.push_back(r.config.empty() ? Value::none() : Value::str(r.config));
    row.insert(row.end(), {r.rung ? Value::integer(r.rung) : Value::none(), Value::str(r.shape),
                           Value::num_or_none(r.ms, 4), Value::num_or_none(r.gbps, 0)});
    if (flops) {
      row.push_back(Value::num_or_none(r.gflops, 0));
      row.push_back(Value::num_or_none(r.peak_pct, 1));
    }
    const bool kernel = r.rung > 0;
    if (copy)
      row.push_back(Value::median_or_none(r.frac_memcpy, r.frac_memcpy_spread.p10,
                                          r.frac_memcpy_spread.p90, 2));
    if (family.read_dominated)
      row.push_back(Value::median_or_none(r.x_read_only, r.x_read_only_spread.p10,
                                          r.x_read_only_spread.p90, 2));
    row.push_back(
        Value::median_or_none(r.x_vendor, r.x_vendor_spread.p10, r.x_vendor_spread.p90, 2));
    if (torch) row.push_back(Value::num_or_none(r.x_torch, 2));
    row.push_back(Value::num_or_none(r.x_prev, 2));
    row.push_back(kernel && r.regs ? Value::integer(r.regs) : Value::none());
    row.push_back(kernel && r.regs ? Value::integer(r.local_bytes) : Value::none());
    row.push_back(kernel && r.regs ? Value::integer(r.static_smem + r.dynamic_smem)
                                   : Value::none());
    row.push_back(kernel && r.blocks_per_sm ? Value::integer(r.blocks_per_sm) : Value::none());
    row.push_back(Value::num_or_none(r.occupancy * 100.0, 0));
    row.push_back(Value::num_or_none(r.rel_error, 9));
    row.push_back(Value::str(!r.declined.empty()       ? "declined: " + r.declined
                             : !r.not_measured.empty() ? "not measured"
                             : r.verified              ? "yes"
                                                       : "no"));
    row.push_back(Value::str(r.note));
    t.rows.push_back(std::move(row));
  }
  s.tables.push_back(std::move(t));
  // The claims this ladder tests, judged from these records (GEMM: the source's table too).
  claims::add_ladder_claims(s, family.name, family.claims, records);

  report::Chart c;
  c.id = "bench-" + family.name + "-chart";
  c.title = family.title + (flops ? ": GFLOP/s per variant" : ": GB/s per variant");
  c.kind = report::Chart::Kind::bar;
  c.x_label = "variant";
  c.y_label = flops ? "throughput" : "bandwidth";
  c.y_unit = flops ? "GFLOP/s" : "GB/s";
  c.log_y = true;
  std::vector<std::string> shapes;
  for (const BenchRecord& r : records) {
    if (std::find(c.categories.begin(), c.categories.end(), r.variant) == c.categories.end())
      c.categories.push_back(r.variant);
    if (std::find(shapes.begin(), shapes.end(), r.shape) == shapes.end()) shapes.push_back(r.shape);
  }
  for (const std::string& shape : shapes) {
    report::Series ser;
    ser.name = shape;
    for (const std::string& v : c.categories) {
      double y = NAN;
      for (const BenchRecord& r : records)
        if (r.shape == shape && r.variant == v && r.declined.empty()) y = flops ? r.gflops : r.gbps;
      ser.y.push_back(y);
    }
    c.series.push_back(ser);
  }
  s.charts.push_back(std::move(c));
  return s;
}

}  // namespace memhier::bench
