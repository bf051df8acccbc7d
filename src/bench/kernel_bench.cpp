#include "memhier/bench/kernel_bench.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "memhier/claims/ladders.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/timing.hpp"
#include "memhier/core/verify.hpp"
#include "memhier/model/arch.hpp"
#include "memhier/report/summary.hpp"

namespace memhier::bench {
namespace {

using registry::BenchRecord;
using registry::Case;
using registry::Family;
using registry::Variant;

core::TimingOptions timing(const std::string& name, bool quick) {
  core::TimingOptions t;
  t.name = name;
  t.warmup = 2;
  t.min_reps = quick ? 3 : 7;
  t.max_reps = 200;
  t.min_total_ms = quick ? 5.0 : 25.0;
  t.flush_l2 = true;  // cold L2 for every repetition: what a kernel meets in a pipeline
  return t;
}

/// The rung whose kernel `v` runs at `shape`: v itself unless v dispatches on shape;
/// nullptr when it runs none of the ladder's kernels there.
const Variant* dispatched(const Family& f, const Variant& v, const std::string& shape) {
  if (!v.runs) return &v;
  std::string name;
  try {
    name = v.runs(shape);
  } catch (const std::invalid_argument&) {
    return nullptr;  // the run itself will say what is wrong with the shape
  }
  for (const Variant& w : f.variants)
    if (&w != &v && w.name == name) return &w;
  return nullptr;
}

void fill_resources(const Variant* pv, BenchRecord* r) {
  if (!pv || !pv->symbol) return;
  const Variant& v = *pv;
  cudaFuncAttributes a{};
  if (cudaFuncGetAttributes(&a, v.symbol) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  r->regs = a.numRegs;
  r->local_bytes = static_cast<int>(a.localSizeBytes);
  r->static_smem = static_cast<int>(a.sharedSizeBytes);
  r->dynamic_smem = v.dynamic_smem;
  if (v.block_threads <= 0) return;
  int blocks = 0, dev = 0, threads_per_sm = 0;
  MEMHIER_CUDA(cudaGetDevice(&dev));
  MEMHIER_CUDA(
      cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, v.symbol, v.block_threads,
                                                    static_cast<std::size_t>(v.dynamic_smem)) !=
      cudaSuccess) {
    cudaGetLastError();
    return;
  }
  if (v.max_blocks_per_sm > 0) blocks = std::min(blocks, v.max_blocks_per_sm);
  r->blocks_per_sm = blocks;
  r->occupancy =
      static_cast<double>(blocks * ((v.block_threads + 31) / 32)) / (threads_per_sm / 32);
}

// The fp32 FMA peak of the current device, GFLOP/s: SMs x fp32 lanes x 2 x max SM clock
// (lanes from the architecture table); NaN for an architecture the table lacks.
double fp32_peak_gflops() {
  int dev = 0, sms = 0, khz = 0, major = 0, minor = 0;
  MEMHIER_CUDA(cudaGetDevice(&dev));
  MEMHIER_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  MEMHIER_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
  MEMHIER_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  MEMHIER_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  const model::ArchSpec* a = model::find_arch(major, minor);
  if (!a || khz <= 0) return NAN;
  return static_cast<double>(sms) * a->cuda_cores_per_sm * 2.0 * khz * 1e3 / 1e9;
}

/// Checks every output element of `c` as its last run left them and fills r's verification:
/// the relative L2 error, the elements beyond their bound, and whether it passed.
void record_verification(Case& c, BenchRecord* r) {
  const core::ElementCheck chk = c.verify();
  r->rel_error = chk.rel_l2();
  r->tolerance = c.tolerance();
  r->bad_elements = chk.bad();
  r->worst_ratio = chk.worst;
  r->verified = chk.bad() == 0 && std::isfinite(r->rel_error) && r->rel_error <= r->tolerance;
  if (!r->verified)
    r->note = "wrong result: " + core::describe_failure(chk, c.outputs()) + "; relative error " +
              std::to_string(r->rel_error) + " (tolerance " + std::to_string(r->tolerance) + ")";
}

}  // namespace

void verify_last_repetition(Case& c, const std::function<void(cudaStream_t)>& run, BenchRecord* r) {
  if (c.in_place()) {  // the timed runs compounded: restore the outputs and run once more
    c.poison(nullptr);
    run(nullptr);
  }
  BenchRecord after = *r;
  record_verification(c, &after);
  if (after.verified) return;
  r->verified = false;
  r->bad_elements = after.bad_elements;
  r->note = "the last timed repetition's output failed verification (" + after.note + ")";
}

std::vector<BenchRecord> run_family(const Family& family, const BenchOptions& opt) {
  registry::check_variants(family, opt.variants);
  const std::vector<std::string>& shapes =
      !opt.shapes.empty() ? opt.shapes : (opt.quick ? family.quick_shapes : family.bench_shapes);
  // Build every case first: a bad shape is bad input, answered before any measurement.
  std::vector<std::unique_ptr<Case>> cases;
  for (const std::string& shape : shapes) cases.push_back(family.make_case(shape, opt.seed));

  std::vector<BenchRecord> out;
  const double peak = fp32_peak_gflops();
  for (auto& c : cases) {
    const registry::Work w = c->work();
    const std::string tag = family.name + " " + c->shape();

    // The ceiling: cudaMemcpy device-to-device moving the same bytes (half read, half written).
    opt.progress(tag + ": cudaMemcpy ceiling");
    BenchRecord mc;
    mc.family = family.name;
    mc.variant = "cudaMemcpy D2D";
    mc.shape = c->shape();
    {
      const std::size_t half = std::max<std::size_t>(static_cast<std::size_t>(w.bytes / 2), 4);
      core::DeviceBuffer<char> a(half), b(half);
      MEMHIER_CUDA(cudaMemset(a.data(), 1, half));
      const core::Timing t = core::time_it(
          [&](cudaStream_t s) {
            MEMHIER_CUDA(cudaMemcpyAsync(b.data(), a.data(), half, cudaMemcpyDeviceToDevice, s));
          },
          timing(tag + " memcpy", opt.quick));
      mc.ms = t.median_ms;
      mc.spread = t.spread();
    }
    mc.verified = true;
    mc.gbps = w.bytes / (mc.ms * 1e6);
    mc.frac_memcpy = 1.0;
    const double memcpy_ms = mc.ms;

    double vendor_ms = NAN;
    std::vector<BenchRecord> rows;
    if (!c->baseline_name().empty()) {
      opt.progress(tag + ": " + c->baseline_name());
      BenchRecord r;
      r.family = family.name;
      r.variant = c->baseline_name();
      r.shape = c->shape();
      c->poison(nullptr);
      c->run_baseline(nullptr);
      record_verification(*c, &r);
      const auto vendor = [&](cudaStream_t s) { c->run_baseline(s); };
      const core::Timing t = core::time_it(vendor, timing(tag + " vendor", opt.quick));
      if (r.verified) verify_last_repetition(*c, vendor, &r);
      r.ms = t.median_ms;
      r.spread = t.spread();
      vendor_ms = r.ms;
      if (!r.verified) r.note = "the vendor baseline failed verification: " + r.note;
      rows.push_back(r);
    }

    double prev_ms = NAN;
    for (const Variant& v : family.variants) {
      if (!opt.variants.empty() &&
          std::find(opt.variants.begin(), opt.variants.end(), v.name) == opt.variants.end())
        continue;
      opt.progress(tag + ": " + v.name);
      BenchRecord r;
      r.family = family.name;
      r.variant = v.name;
      r.rung = v.rung;
      r.shape = c->shape();
      try {
        c->poison(nullptr);
        c->run(v.name, nullptr);
        MEMHIER_CUDA(cudaDeviceSynchronize());
      } catch (const std::invalid_argument& e) {
        fill_resources(dispatched(family, v, r.shape), &r);
        r.note = e.what();
        rows.push_back(r);
        continue;
      }
      // After the first run: a tuned variant knows only now which kernel it runs.
      fill_resources(dispatched(family, v, r.shape), &r);
      record_verification(*c, &r);
      if (!r.verified) {
        r.note += "; not timed";
        rows.push_back(r);
        continue;
      }
      const auto variant = [&](cudaStream_t s) { c->run(v.name, s); };
      const core::Timing t = core::time_it(variant, timing(tag + " " + v.name, opt.quick));
      verify_last_repetition(*c, variant, &r);
      r.ms = t.median_ms;
      r.spread = t.spread();
      r.x_prev = prev_ms / r.ms;
      prev_ms = r.ms;
      rows.push_back(r);
    }
    out.push_back(mc);
    for (BenchRecord& r : rows) {
      if (std::isfinite(r.ms)) {
        r.gbps = w.bytes / (r.ms * 1e6);
        r.gflops = w.flops > 0 ? w.flops / (r.ms * 1e6) : NAN;
        r.peak_pct = 100.0 * r.gflops / peak;
        r.frac_memcpy = memcpy_ms / r.ms;
        r.x_vendor = vendor_ms / r.ms;
      }
      out.push_back(r);
    }
  }
  return out;
}

std::vector<std::string> verify_family(const Family& family, std::uint32_t seed) {
  std::vector<std::string> failures;
  for (const std::string& shape : family.test_shapes) {
    std::unique_ptr<Case> c = family.make_case(shape, seed++);
    for (const Variant& v : family.variants) {
      try {
        c->poison(nullptr);
        c->run(v.name, nullptr);
        MEMHIER_CUDA(cudaDeviceSynchronize());
      } catch (const std::invalid_argument&) {
        continue;  // the variant declines this shape, with a reason: not a failure
      }
      BenchRecord r;
      record_verification(*c, &r);
      if (!r.verified)
        failures.push_back(family.name + " " + v.name + " at " + shape + ": " + r.note);
    }
  }
  return failures;
}

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
      "then timed (median of repeated launches, L2 flushed before each), and the output of "
      "the last timed repetition (of one more run where the problem updates its output in "
      "place) verified again. "
      "GB/s counts the fewest bytes the problem must move; x memcpy is cudaMemcpy "
      "device-to-device moving the same bytes, timed in the same run, over the variant's time; "
      "x vendor and x prev compare with the vendor library and the previous rung the same way. "
      "Where the problem has flops, fp32 peak is GFLOP/s over SMs x fp32 lanes per SM x 2 x "
      "the maximum SM clock (tensor-core reference lines can exceed it).");
  const bool flops = std::any_of(records.begin(), records.end(),
                                 [](const BenchRecord& r) { return std::isfinite(r.gflops); });
  report::Table t;
  t.id = "bench-" + family.name;
  t.title = family.title + ": the ladder";
  t.columns = {{"variant", "", "variant"},
               {"rung", "", "rung"},
               {"shape", "", "shape"},
               {"time", "ms", "ms"},
               {"bandwidth", "GB/s", "gbps"}};
  if (flops) {
    t.columns.push_back({"throughput", "GFLOP/s", "gflops"});
    t.columns.push_back({"fp32 peak", "%", "peak_pct"});
  }
  // A problem bound by arithmetic (GEMM): the copy ceiling says nothing about it.
  const bool copy = report::copy_ceiling_applies(records);
  if (copy) t.columns.push_back({"x memcpy", "", "x_memcpy"});
  for (report::Column c : std::vector<report::Column>{{"x vendor", "", "x_vendor"},
                                                      {"x prev", "", "x_prev"},
                                                      {"registers", "", "regs"},
                                                      {"local", "B", "local_bytes"},
                                                      {"shared", "B", "smem_bytes"},
                                                      {"blocks/SM", "", "blocks_per_sm"},
                                                      {"occupancy", "%", "occupancy_pct"},
                                                      {"rel. error", "", "rel_error"},
                                                      {"verified", "", "verified"},
                                                      {"note", "", "note"}})
    t.columns.push_back(c);
  for (const BenchRecord& r : records) {
    std::vector<Value> row{Value::str(r.variant), r.rung ? Value::integer(r.rung) : Value::none(),
                           Value::str(r.shape), Value::num_or_none(r.ms, 4),
                           Value::num_or_none(r.gbps, 0)};
    if (flops) {
      row.push_back(Value::num_or_none(r.gflops, 0));
      row.push_back(Value::num_or_none(r.peak_pct, 1));
    }
    const bool kernel = r.rung > 0;
    if (copy) row.push_back(Value::num_or_none(r.frac_memcpy, 2));
    row.push_back(Value::num_or_none(r.x_vendor, 2));
    row.push_back(Value::num_or_none(r.x_prev, 2));
    row.push_back(kernel && r.regs ? Value::integer(r.regs) : Value::none());
    row.push_back(kernel && r.regs ? Value::integer(r.local_bytes) : Value::none());
    row.push_back(kernel && r.regs ? Value::integer(r.static_smem + r.dynamic_smem)
                                   : Value::none());
    row.push_back(kernel && r.blocks_per_sm ? Value::integer(r.blocks_per_sm) : Value::none());
    row.push_back(Value::num_or_none(r.occupancy * 100.0, 0));
    row.push_back(Value::num_or_none(r.rel_error, 9));
    row.push_back(Value::str(r.verified ? "yes" : "no"));
    row.push_back(Value::str(r.note));
    t.rows.push_back(std::move(row));
  }
  s.tables.push_back(std::move(t));
  // The claims this ladder tests, judged from these records (GEMM: the source's table too).
  for (report::Table& extra : claims::ladder_tables(family.name, family.claims, records))
    s.tables.push_back(std::move(extra));

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
        if (r.shape == shape && r.variant == v) y = flops ? r.gflops : r.gbps;
      ser.y.push_back(y);
    }
    c.series.push_back(ser);
  }
  s.charts.push_back(std::move(c));
  return s;
}

}  // namespace memhier::bench
