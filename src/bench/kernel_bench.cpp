#include "memhier/bench/kernel_bench.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <stdexcept>

#include "memhier/bench/guard.hpp"
#include "memhier/bench/torch_reference.hpp"
#include "memhier/core/buffer.hpp"
#include "memhier/core/ceilings.hpp"
#include "memhier/core/timing.hpp"
#include "memhier/core/verify.hpp"
#include "memhier/model/arch.hpp"
#include "memhier/report/document.hpp"

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

namespace {

// The variants of `family` that `opt` selects, in rung order, from `from` on ("" all: a
// resumed run starts at its variant).
std::vector<const Variant*> selected(const Family& family, const BenchOptions& opt,
                                     const std::string& from = "") {
  std::vector<const Variant*> out;
  bool reached = from.empty();
  for (const Variant& v : family.variants) {
    reached = reached || v.name == from;
    if (reached && (opt.variants.empty() || std::find(opt.variants.begin(), opt.variants.end(),
                                                      v.name) != opt.variants.end()))
      out.push_back(&v);
  }
  return out;
}

// A row with no figures: the failure that left it unmeasured, for the reader and as data.
BenchRecord unmeasured(const Family& family, const std::string& variant, int rung,
                       const std::string& shape, const Failure& failure) {
  BenchRecord r;
  r.family = family.name;
  r.number_type = family.number_type;
  r.bound = family.bound;
  r.sets_peak = family.sets_peak;
  r.variant = variant;
  r.rung = rung;
  r.shape = shape;
  r.not_measured = failure.why;
  r.note = failure.not_measured();
  return r;
}

// What a variant is measured against at one shape: the case, its ceilings and vendor.
struct AtShape {
  const Family& family;
  Case& c;
  Ceilings& ceilings;
  const Launch& baseline;
  bool vendor;
  registry::Work w;
  Peak peak;
  std::string tag;
  bool quick;
};

// Verifies `v` at the shape, then times it paired with its references; a variant that
// declines the shape keeps its reason in r->declined. Throws what a CUDA call throws.
void measure_variant(const AtShape& at, const Variant& v, double* prev_ms, BenchRecord* r) {
  const Family& family = at.family;
  Case& c = at.c;
  Ceilings& ceilings = at.ceilings;
  const Launch& baseline = at.baseline;
  const bool vendor = at.vendor, quick = at.quick;
  const registry::Work& w = at.w;
  const Peak& peak = at.peak;
  const std::string& tag = at.tag;
  try {
    c.poison(nullptr);
    c.run(v.name, nullptr);
    MEMHIER_CUDA(cudaDeviceSynchronize());
  } catch (const std::invalid_argument& e) {
    fill_resources(dispatched(family, v, r->shape), r);
    r->declined = e.what();
    return;
  }
  // After the first run: a tuned variant knows only now which kernel it runs.
  const Variant* runs = dispatched(family, v, r->shape);
  fill_resources(runs, r);
  if (v.runs && runs) r->config = runs->name;
  record_verification(c, r);
  if (!r->verified) {
    r->note += "; not timed";
    return;
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
  paired.push_back([&](cudaStream_t s) { c.run(v.name, s); });
  const core::PairedTiming t =
      core::time_paired(paired, timing(tag + " " + v.name, quick, paired.size()));
  verify_last_repetition(c, paired[self], r);
  set_time(r, t.each[self], w, peak);
  set_ratios(r, t, self, refs);
  r->x_prev = *prev_ms / r->ms;
  *prev_ms = r->ms;
}

}  // namespace

std::vector<BenchRecord> run_family(const Family& family, const BenchOptions& opt) {
  registry::check_variants(family, opt.variants);
  const std::vector<std::string>& shapes =
      !opt.shapes.empty() ? opt.shapes : (opt.quick ? family.quick_shapes : family.bench_shapes);
  // Build every case first: a bad shape is bad input, answered before any measurement. A
  // case that cannot be built (out of GPU memory) leaves its shape's rows unmeasured.
  std::vector<std::unique_ptr<Case>> cases(shapes.size());
  std::vector<Failure> unbuilt(shapes.size());
  const auto build = [&](std::size_t i) {
    try {
      cases[i] = family.make_case(shapes[i], opt.seed);
    } catch (const std::invalid_argument& e) {
      // The user's shape is bad input; the family's own one that does not fit the memory
      // free now (another process holds some) is this shape's rows, not measured.
      if (!opt.shapes.empty()) throw;
      unbuilt[i] = {e.what(), false};
    } catch (const std::exception& e) {
      unbuilt[i] = describe_failure(e);
    }
  };
  // A resumed run starts at its shape (none of the family's: after its last).
  std::size_t first = 0;
  if (!opt.from_shape.empty())
    first = static_cast<std::size_t>(std::find(shapes.begin(), shapes.end(), opt.from_shape) -
                                     shapes.begin());
  for (std::size_t i = first; i < shapes.size(); ++i) build(i);

  std::vector<BenchRecord> out;
  // With opt.stop, the run ends at the item that lost the GPU; the rest starts at (shape,
  // variant).
  const auto stop_at = [&](std::size_t shape, const std::string& variant, std::size_t faulty) {
    *opt.stop = {true, shape < shapes.size() ? shapes[shape] : "", variant, faulty};
    return out;
  };
  if (opt.stop && !gpu_lost().empty()) return stop_at(first, opt.from_variant, kNone);
  // Where the GPU is lost (a resumed run that no child took over), the rows say so.
  Peak peak;
  if (gpu_lost().empty()) peak = device_peak(family.number_type);
  bool rebuild = false;  // a device reset invalidated the cases built before it
  for (std::size_t i = first; i < shapes.size(); ++i) {
    // A case that could not be built may have lost the GPU (describe_failure).
    if (opt.stop && !gpu_lost().empty())
      return stop_at(i, i == first ? opt.from_variant : "", kNone);
    if (rebuild) build(i);
    // At the resumed shape the ceilings and the vendor are timed for pairing; the parent has
    // their rows.
    const std::string resume_variant = i == first ? opt.from_variant : "";
    if (!cases[i]) {
      for (const Variant* v : selected(family, opt, resume_variant))
        out.push_back(unmeasured(family, v->name, v->rung, shapes[i], unbuilt[i]));
      continue;
    }
    // After a reset the buffers of this and the later cases belong to a context that is
    // gone: drop them before anything is allocated in the new one, and build afresh.
    const auto after_reset = [&] {
      for (std::size_t j = i; j < shapes.size(); ++j) cases[j].reset();
      cudaGetLastError();
      rebuild = true;
    };
    Case* c = cases[i].get();
    const registry::Work w = c->work();
    const std::string tag = family.name + " " + c->shape();
    const bool vendor = !c->baseline_name().empty();
    auto record = [&](const std::string& variant) {
      BenchRecord r;
      r.family = family.name;
      r.number_type = family.number_type;
      r.bound = family.bound;
      r.sets_peak = family.sets_peak;
      r.variant = variant;
      r.shape = c->shape();
      return r;
    };
    std::unique_ptr<Ceilings> held;
    const Launch baseline = [&](cudaStream_t s) { c->run_baseline(s); };

    // The ceilings and the vendor, paired with one another: their rows of the ladder.
    opt.progress(tag + ": ceilings" + (vendor ? " and " + c->baseline_name() : ""));
    BenchRecord vr = record(c->baseline_name());
    core::PairedTiming ref;
    Failure failure;
    const bool refs_ok = guarded(
        [&] {
          held = std::make_unique<Ceilings>(w.bytes);
          if (vendor) {
            c->poison(nullptr);
            c->run_baseline(nullptr);
            record_verification(*c, &vr);
          }
          std::vector<Launch> group{held->copy(), held->read(), held->store(), held->fill()};
          if (vendor) group.push_back(baseline);
          ref = core::time_paired(group, timing(tag + " ceilings", opt.quick, group.size()));
          // The vendor ran last in each round: its outputs are its last timed repetition's.
          if (vendor && vr.verified) verify_last_repetition(*c, baseline, &vr);
        },
        &failure);
    if (!refs_ok) {  // nothing to pair the variants with: the shape's rows say why
      held.reset();
      if (failure.reset) after_reset();
      const std::size_t faulty = out.size();
      for (const Variant* v : selected(family, opt, resume_variant))
        out.push_back(unmeasured(family, v->name, v->rung, c->shape(), failure));
      if (opt.stop && failure.lost) return stop_at(i + 1, "", faulty);
      continue;
    }
    Ceilings& ceilings = *held;
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
    std::vector<CeilingRow> ceiling_rows{
        {"cudaMemcpy D2D", 0, ""},
        {"read-only ceiling", 1,
         "a kernel reading the same bytes with 16-byte loads, summed into one word"},
        {"write-only ceiling", write,
         store_faster ? "a kernel writing the same bytes with 16-byte stores (" + store_ms +
                            "; cudaMemsetAsync " + memset_ms + ")"
                      : "cudaMemsetAsync of the same bytes (" + memset_ms +
                            "; a 16-byte store kernel " + store_ms + ")"}};
    if (!resume_variant.empty()) ceiling_rows.clear();
    for (const CeilingRow& cr : ceiling_rows) {
      BenchRecord r = record(cr.name);
      r.ceiling = true;
      r.verified = true;
      r.note = cr.note;
      set_time(&r, ref.each[cr.index], w, peak);
      set_ratios(&r, ref, cr.index, {at.memcpy, kNone, at.read});
      out.push_back(r);
    }
    if (vendor && resume_variant.empty()) {
      if (!vr.verified) vr.note = "the vendor baseline failed verification: " + vr.note;
      set_time(&vr, ref.each[at.vendor], w, peak);
      set_ratios(&vr, ref, at.vendor, at);
      out.push_back(vr);
    }

    const AtShape here{family, *c, ceilings, baseline, vendor, w, peak, tag, opt.quick};
    double prev_ms = NAN;
    const std::vector<const Variant*> variants = selected(family, opt, resume_variant);
    for (std::size_t vi = 0; vi < variants.size(); ++vi) {
      const Variant& v = *variants[vi];
      opt.progress(tag + ": " + v.name);
      BenchRecord r = record(v.name);
      r.rung = v.rung;
      if (!guarded([&] { measure_variant(here, v, &prev_ms, &r); }, &failure)) {
        r = unmeasured(family, v.name, v.rung, c->shape(), failure);
        if (opt.stop && failure.lost) {
          out.push_back(r);
          return vi + 1 < variants.size() ? stop_at(i, variants[vi + 1]->name, out.size() - 1)
                                          : stop_at(i + 1, "", out.size() - 1);
        }
        if (failure.reset) {  // the case is gone with the context: its other rows say so
          out.push_back(r);
          held.reset();
          after_reset();
          Failure gone{"the device was reset after " + v.name + " failed at this shape", false};
          for (std::size_t rest = vi + 1; rest < variants.size(); ++rest)
            out.push_back(
                unmeasured(family, variants[rest]->name, variants[rest]->rung, shapes[i], gone));
          break;
        }
      }
      out.push_back(r);
    }
  }
  return out;
}

// PyTorch's timings take seconds (import, inputs, about 25 ms per shape); a hung one must
// not hold the report.
constexpr int kTorchTimeoutS = 180;

std::string add_torch_reference(std::vector<std::vector<BenchRecord>>& records,
                                const BenchOptions& opt) {
  if (!opt.torch_reference) return {};
  std::vector<std::pair<std::string, std::string>> cases;
  for (const std::vector<BenchRecord>& family_records : records)
    for (const BenchRecord& r : family_records)
      if (cases.empty() || cases.back() != std::make_pair(r.family, r.shape))
        cases.emplace_back(r.family, r.shape);
  if (cases.empty()) return {};
  // One PyTorch subprocess for every shape, after the ladders (their GPU memory freed).
  opt.progress("PyTorch's calls at " + std::to_string(cases.size()) + " shapes");
  const TorchRun torch = run_torch_reference(cases, opt.quick, kTorchTimeoutS, opt.torch_python);
  for (auto& family_records : records) add_torch_rows(torch, &family_records);
  return torch.error;
}

std::vector<std::vector<BenchRecord>> run_families(const std::vector<const Family*>& families,
                                                   const BenchOptions& opt,
                                                   std::string* torch_not_run) {
  std::vector<std::vector<BenchRecord>> records;
  for (const Family* f : families) records.push_back(run_family(*f, opt));
  const std::string why = add_torch_reference(records, opt);
  if (torch_not_run) *torch_not_run = why;
  return records;
}

std::vector<std::string> verify_family(const Family& family, std::uint32_t seed) {
  std::vector<std::string> failures;
  // Per variant: shapes run, and the reasons it declined the others.
  std::vector<int> ran(family.variants.size(), 0);
  std::vector<std::set<std::string>> declines(family.variants.size());
  for (const std::string& shape : family.test_shapes) {
    std::unique_ptr<Case> c = family.make_case(shape, seed++);
    for (std::size_t i = 0; i < family.variants.size(); ++i) {
      const Variant& v = family.variants[i];
      try {
        c->poison(nullptr);
        c->run(v.name, nullptr);
        MEMHIER_CUDA(cudaDeviceSynchronize());
      } catch (const std::invalid_argument& e) {
        declines[i].insert(e.what());  // a documented decline: not a failure by itself
        continue;
      }
      ++ran[i];
      BenchRecord r;
      record_verification(*c, &r);
      if (!r.verified)
        failures.push_back(family.name + " " + v.name + " at " + shape + ": " + r.note);
    }
  }
  // Declining every shape for one reason is the device's lack (an architecture), not the
  // shapes'; for several reasons, the variant runs none of the shapes it should.
  for (std::size_t i = 0; i < family.variants.size(); ++i)
    if (ran[i] == 0 && declines[i].size() != 1) {
      std::string why;
      for (const std::string& d : declines[i]) why += (why.empty() ? "" : "; ") + d;
      failures.push_back(family.name + " " + family.variants[i].name +
                         " ran none of the test shapes" + (why.empty() ? "" : ": " + why));
    }
  return failures;
}

}  // namespace memhier::bench
