#include "memhier/bench/kernel_bench.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "memhier/bench/torch_reference.hpp"
#include "memhier/claims/ladders.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/ceilings.hpp"
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

// One group of paired callables keeps the budget one callable had alone: 25 ms of GPU time
// summed over the group (5 with --quick) and at most 200 repetitions in all, but at least 7
// rounds (3). So pairing a rung with its references splits the time its own measurement
// had instead of multiplying it (the report stays within its wall-time budget), a
// launch-bound shape still gets 50 pairs or more, and a slow rung (naive GEMM) its 7.
core::TimingOptions timing(const std::string& name, bool quick, std::size_t callables) {
  core::TimingOptions t;
  t.name = name;
  t.warmup = 2;
  t.min_reps = quick ? 3 : 7;
  t.max_reps = std::max(t.min_reps, 200 / static_cast<int>(callables));
  t.min_total_ms = quick ? 5.0 : 25.0;
  t.flush_l2 = true;  // cold L2 for every repetition: what a kernel meets in a pipeline
  return t;
}

using Launch = std::function<void(cudaStream_t)>;

// The ceilings at one shape, over one buffer of the problem's bytes: cudaMemcpy D2D from
// its first half to its second, a kernel that reads all of it, and writing all of it with a
// store kernel or with cudaMemsetAsync. Held while the shape's rungs run, to pair with each.
class Ceilings {
 public:
  explicit Ceilings(double bytes)
      : half_(std::max<std::size_t>(static_cast<std::size_t>(bytes / 2), 4)),
        // Each half 256-byte aligned, as cudaMalloc aligns a buffer of its own (and a whole
        // number of the kernels' 16-byte accesses): at most 511 bytes more than the problem's.
        whole_(2 * ((half_ + 255) / 256 * 256)),
        buf_(whole_),
        sum_(1),
        blocks_(core::ceiling_blocks()) {
    MEMHIER_CUDA(cudaMemset(buf_.data(), 1, whole_));
  }
  Launch copy() {
    return [this](cudaStream_t s) {
      MEMHIER_CUDA(cudaMemcpyAsync(buf_.data() + whole_ / 2, buf_.data(), half_,
                                   cudaMemcpyDeviceToDevice, s));
    };
  }
  Launch read() {
    return [this](cudaStream_t s) {
      core::launch_read_only(buf_.data(), whole_, sum_.data(), blocks_, s);
    };
  }
  Launch store() {
    return [this](cudaStream_t s) {
      core::launch_write_only(buf_.data(), whole_, 0x01010101u, blocks_, s);
    };
  }
  Launch fill() {
    return [this](cudaStream_t s) { MEMHIER_CUDA(cudaMemsetAsync(buf_.data(), 1, whole_, s)); };
  }

 private:
  std::size_t half_, whole_;
  core::DeviceBuffer<char> buf_;
  core::DeviceBuffer<unsigned> sum_;
  int blocks_;
};

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

// Where the references sit in a paired group (kNone: not in it).
struct Refs {
  std::size_t memcpy = kNone, vendor = kNone, read = kNone;
};

// A record's paired ratios: each reference's time over the record's own, per round.
void set_ratios(BenchRecord* r, const core::PairedTiming& p, std::size_t self, const Refs& refs) {
  auto put = [&](std::size_t ref, double* median, registry::Spread* spread) {
    if (ref == kNone) return;
    if (ref == self) {  // the reference itself: 1 by definition, no spread to show
      *median = 1.0;
      return;
    }
    const core::RatioStats s = p.ratio(ref, self);
    *median = s.median;
    *spread = {s.p10, s.p90};
  };
  put(refs.memcpy, &r->frac_memcpy, &r->frac_memcpy_spread);
  put(refs.vendor, &r->x_vendor, &r->x_vendor_spread);
  put(refs.read, &r->x_read_only, &r->x_read_only_spread);
}

// The peak a family's flops are quoted against: GFLOP/s and the number type's name.
struct Peak {
  double gflops = NAN;
  model::NumberType type = model::NumberType::fp32;
};

// A record's time and the figures derived from it.
void set_time(BenchRecord* r, const core::Timing& t, const registry::Work& w, const Peak& peak) {
  r->ms = t.median_ms;
  r->spread = t.spread();
  r->gbps = w.bytes / (r->ms * 1e6);
  if (r->ceiling) return;
  r->gflops = w.flops > 0 ? w.flops / (r->ms * 1e6) : NAN;
  if (!std::isfinite(r->gflops)) return;
  r->peak_pct = 100.0 * r->gflops / peak.gflops;
  r->peak_kind = model::to_string(peak.type);
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

// The current device's peak in `type`, GFLOP/s, at the maximum SM clock it reports (rates
// from the architecture table); NaN for an architecture or number type the table lacks.
Peak device_peak(model::NumberType type) {
  int dev = 0, sms = 0, khz = 0, major = 0, minor = 0;
  MEMHIER_CUDA(cudaGetDevice(&dev));
  MEMHIER_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  MEMHIER_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
  MEMHIER_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  MEMHIER_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  const model::ArchSpec* a = model::find_arch(major, minor);
  return {a ? model::peak_gflops(*a, type, sms, khz / 1e3) : NAN, type};
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

model::NumberType number_type(const Family& family) {
  // The one ladder on tensor cores; its table lives with its kernels, which others edit.
  return family.name == "gemm_bf16" ? model::NumberType::bf16 : model::NumberType::fp32;
}

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
  const Peak peak = device_peak(number_type(family));
  for (auto& c : cases) {
    const registry::Work w = c->work();
    const std::string tag = family.name + " " + c->shape();
    const bool vendor = !c->baseline_name().empty();
    auto record = [&](const std::string& variant) {
      BenchRecord r;
      r.family = family.name;
      r.variant = variant;
      r.shape = c->shape();
      return r;
    };
    Ceilings ceilings(w.bytes);
    const Launch baseline = [&](cudaStream_t s) { c->run_baseline(s); };

    // The ceilings and the vendor, paired with one another: their rows of the ladder.
    opt.progress(tag + ": ceilings" + (vendor ? " and " + c->baseline_name() : ""));
    BenchRecord vr = record(c->baseline_name());
    if (vendor) {
      c->poison(nullptr);
      c->run_baseline(nullptr);
      record_verification(*c, &vr);
    }
    std::vector<Launch> group{ceilings.copy(), ceilings.read(), ceilings.store(), ceilings.fill()};
    if (vendor) group.push_back(baseline);
    const core::PairedTiming ref =
        core::time_paired(group, timing(tag + " ceilings", opt.quick, group.size()));
    const Refs at{0, vendor ? std::size_t{4} : kNone,
                  family.read_dominated ? std::size_t{1} : kNone};
    // The write-only ceiling is the faster of the store kernel and cudaMemsetAsync.
    const bool store_faster = ref.each[2].median_ms < ref.each[3].median_ms;
    const std::size_t write = store_faster ? 2 : 3;
    const std::string store_ms = report::strf("%.4f ms", ref.each[2].median_ms);
    const std::string memset_ms = report::strf("%.4f ms", ref.each[3].median_ms);
    struct CeilingRow {
      const char* name;
      std::size_t index;
      std::string note;
    };
    for (const CeilingRow& cr : std::vector<CeilingRow>{
             {"cudaMemcpy D2D", 0, ""},
             {"read-only ceiling", 1,
              "a kernel reading the same bytes with 16-byte loads, summed into one word"},
             {"write-only ceiling", write,
              store_faster ? "a kernel writing the same bytes with 16-byte stores (" + store_ms +
                                 "; cudaMemsetAsync " + memset_ms + ")"
                           : "cudaMemsetAsync of the same bytes (" + memset_ms +
                                 "; a 16-byte store kernel " + store_ms + ")"}}) {
      BenchRecord r = record(cr.name);
      r.ceiling = true;
      r.verified = true;
      r.note = cr.note;
      set_time(&r, ref.each[cr.index], w, peak);
      set_ratios(&r, ref, cr.index, {at.memcpy, kNone, at.read});
      out.push_back(r);
    }
    if (vendor) {
      // The vendor ran last in each round: its outputs are its last timed repetition's.
      if (vr.verified) verify_last_repetition(*c, baseline, &vr);
      if (!vr.verified) vr.note = "the vendor baseline failed verification: " + vr.note;
      set_time(&vr, ref.each[at.vendor], w, peak);
      set_ratios(&vr, ref, at.vendor, at);
      out.push_back(vr);
    }

    double prev_ms = NAN;
    for (const Variant& v : family.variants) {
      if (!opt.variants.empty() &&
          std::find(opt.variants.begin(), opt.variants.end(), v.name) == opt.variants.end())
        continue;
      opt.progress(tag + ": " + v.name);
      BenchRecord r = record(v.name);
      r.rung = v.rung;
      try {
        c->poison(nullptr);
        c->run(v.name, nullptr);
        MEMHIER_CUDA(cudaDeviceSynchronize());
      } catch (const std::invalid_argument& e) {
        fill_resources(dispatched(family, v, r.shape), &r);
        r.declined = e.what();
        out.push_back(r);
        continue;
      }
      // After the first run: a tuned variant knows only now which kernel it runs.
      fill_resources(dispatched(family, v, r.shape), &r);
      record_verification(*c, &r);
      if (!r.verified) {
        r.note += "; not timed";
        out.push_back(r);
        continue;
      }
      // Paired with its references, the rung last in each round: the outputs hold its
      // last timed repetition afterwards.
      std::vector<Launch> paired{ceilings.copy()};
      Refs refs{0, kNone, kNone};
      if (vendor) {
        refs.vendor = paired.size();
        paired.push_back(baseline);
      }
      if (family.read_dominated) {
        refs.read = paired.size();
        paired.push_back(ceilings.read());
      }
      const std::size_t self = paired.size();
      paired.push_back([&](cudaStream_t s) { c->run(v.name, s); });
      const core::PairedTiming t =
          core::time_paired(paired, timing(tag + " " + v.name, opt.quick, paired.size()));
      verify_last_repetition(*c, paired[self], &r);
      set_time(&r, t.each[self], w, peak);
      set_ratios(&r, t, self, refs);
      r.x_prev = prev_ms / r.ms;
      prev_ms = r.ms;
      out.push_back(r);
    }
  }
  return out;
}

// PyTorch's timings take seconds (import, inputs, about 25 ms per shape); a hung one must
// not hold the report.
constexpr int kTorchTimeoutS = 180;

std::vector<std::vector<BenchRecord>> run_families(const std::vector<const Family*>& families,
                                                   const BenchOptions& opt) {
  std::vector<std::vector<BenchRecord>> records;
  std::vector<std::pair<std::string, std::string>> cases;
  for (const Family* f : families) {
    records.push_back(run_family(*f, opt));
    for (const BenchRecord& r : records.back())
      if (cases.empty() || cases.back() != std::make_pair(f->name, r.shape))
        cases.emplace_back(f->name, r.shape);
  }
  // One PyTorch subprocess for every shape, after the ladders (their GPU memory freed).
  if (opt.torch_reference && !cases.empty()) {
    opt.progress("PyTorch's calls at " + std::to_string(cases.size()) + " shapes");
    const TorchRun torch = run_torch_reference(cases, opt.quick, kTorchTimeoutS);
    for (auto& family_records : records) add_torch_rows(torch, &family_records);
  }
  return records;
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
      "x prev is the previous rung's median time over this one's. Where the problem has flops, "
      "the peak column is GFLOP/s over the peak of the family's number type at the maximum SM "
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
    // The key stays peak_pct for every family; the column's name says which peak.
    t.columns.push_back(
        {std::string(model::to_string(number_type(family))) + " peak", "%", "peak_pct"});
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
    std::vector<Value> row{Value::str(r.variant), r.rung ? Value::integer(r.rung) : Value::none(),
                           Value::str(r.shape), Value::num_or_none(r.ms, 4),
                           Value::num_or_none(r.gbps, 0)};
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
    row.push_back(Value::str(!r.declined.empty() ? "declined: " + r.declined
                             : r.verified        ? "yes"
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
