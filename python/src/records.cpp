// memhier.probe, bench, tune, report and explain: the run library's probe, bench, tune,
// report and explain runs
// (memhier/run/pipeline.hpp) called in this process, each answer the JSON text the CLI's
// --json prints from the same function; python/memhier/records.py parses it.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "memhier/model/input.hpp"
#include "memhier/report/writers.hpp"
#include "memhier/run/explain.hpp"
#include "memhier/run/pipeline.hpp"

namespace nb = nanobind;

namespace memhier::python {
namespace {

// Runs `f` with the GIL released (a run takes seconds to minutes; other threads go on).
// The CLI's exit statuses become exceptions: bad input (2) ValueError (InputError for text
// that does not read), no usable GPU (3)
// NoDeviceError (registered below), anything else (1) RuntimeError, each with its sentence.
template <class F>
decltype(auto) released(F&& f) {
  try {
    nb::gil_scoped_release unlocked;
    return f();
  } catch (const model::InputError&) {
    throw;  // memhier.InputError (models.cpp registers it), a ValueError
  } catch (const std::invalid_argument& e) {
    throw nb::value_error(e.what());
  } catch (const run::DeviceUnavailable&) {
    throw;
  } catch (const std::exception& e) {  // nanobind would make some of these IndexError or ValueError
    throw std::runtime_error(e.what());
  }
}

std::pair<std::string, std::string> probe(const std::vector<std::string>& only, bool quick,
                                          const std::string& command) {
  return released([&] {
    run::ProbeOptions o;
    o.only = only;
    o.quick = quick;
    o.meta = run::make_meta(command, true);
    const run::ProbeResult r = run::run_probe(o);
    return std::make_pair(run::probe_json(r).dump(), r.record_not_saved);
  });
}

std::string bench(const std::string& family, const std::vector<std::string>& variants,
                  const std::vector<std::string>& sizes, bool quick, bool torch, bool sweep,
                  const std::string& python, const std::string& isolate_with,
                  const std::string& command) {
  return released([&] {
    run::BenchOptions o;
    o.family = family;
    o.variants = variants;
    o.shapes = sizes;
    o.quick = quick;
    o.torch = torch;
    o.sweep = sweep;
    o.torch_python = python;
    o.isolate_with = isolate_with;
    o.meta = run::make_meta(command, true);
    return report::to_json(run::run_bench(o)).dump();
  });
}

std::string report_run(const std::string& out, bool quick, bool no_gpu, bool no_profile,
                       bool no_torch, const std::string& python, const std::string& profile_target,
                       const std::string& isolate_with, const std::string& command, bool full,
                       bool no_sweep) {
  return released([&] {
    run::Options o;
    o.out = out;
    o.quick = quick;
    o.no_gpu = no_gpu;
    o.no_profile = no_profile;
    o.no_sweep = no_sweep;
    o.no_torch = no_torch;
    o.torch_python = python;
    o.profile_target = profile_target;
    o.isolate_with = isolate_with;
    o.full = full;
    o.meta = run::make_meta(command, true);
    return report::to_json(run::run_report(o)).dump();
  });
}

std::string explain(const std::vector<std::string>& program, const std::string& kernel,
                    long launch_skip, long launch_count, bool every_launch, int timeout,
                    double footprint, const std::string& record, bool measure,
                    const std::string& command) {
  return released([&] {
    run::ExplainOptions o;
    o.explain.program = program;
    o.explain.kernel_regex = kernel;
    o.explain.launch_skip = launch_skip;
    o.explain.launch_count = launch_count;
    o.explain.every_launch = every_launch;
    o.explain.timeout_s = timeout;
    o.explain.footprint_bytes = footprint;
    o.record = record;
    o.measure = measure;
    o.meta = run::make_meta(command, true);
    return run::run_explain(o).json.dump();
  });
}

std::string tune(const std::string& family, const std::vector<std::string>& shapes, bool retune,
                 const std::string& command) {
  return released([&] {
    run::TuneOptions o;
    o.family = family;
    o.shapes = shapes;
    o.retune = retune;
    o.meta = run::make_meta(command, true);
    return report::to_json(run::run_tune(o)).dump();
  });
}

}  // namespace

void bind_records(nb::module_& m) {
  using namespace nb::literals;
  nb::exception<run::DeviceUnavailable>(m, "NoDeviceError", PyExc_RuntimeError);
  m.def("probe", &probe, "only"_a, "quick"_a, "command"_a,
        "memhier probe --json's record as JSON text, and why the card record was not saved.");
  m.def("bench", &bench, "family"_a, "variants"_a, "sizes"_a, "quick"_a, "torch"_a, "sweep"_a,
        "python"_a, "isolate_with"_a, "command"_a,
        "memhier bench FAMILY --json's record as JSON text.");
  m.def("tune", &tune, "family"_a, "shapes"_a, "retune"_a, "command"_a,
        "memhier tune FAMILY --json's record as JSON text.");
  m.def("report", &report_run, "out"_a, "quick"_a, "no_gpu"_a, "no_profile"_a, "no_torch"_a,
        "python"_a, "profile_target"_a, "isolate_with"_a, "command"_a, "full"_a, "no_sweep"_a,
        "memhier report --json's record as JSON text; with `out`, its files there (every table "
        "open with `full`).");
  m.def("explain", &explain, "program"_a, "kernel"_a, "launch_skip"_a, "launch_count"_a,
        "every_launch"_a, "timeout"_a, "footprint"_a, "record"_a, "measure"_a, "command"_a,
        "memhier explain --json -- PROGRAM's record as JSON text.");
}

}  // namespace memhier::python
