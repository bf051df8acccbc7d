// The report's measurements on the device (probes, ladders, the sweep, profiles) into one
// value that can cross to a child process, and the child that takes over when the GPU is lost
// to this one. Internal to the run library.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "memhier/bench/continuation.hpp"
#include "memhier/bench/sweep_section.hpp"
#include "memhier/core/device.hpp"
#include "memhier/registry/family.hpp"
#include "memhier/run/pipeline.hpp"

namespace memhier::run::detail {

/// Which ladders a run measures: the families named (every registered one when empty), with
/// these variants and shapes (bench::BenchOptions': empty for all, or the family's own).
struct Scope {
  std::vector<std::string> families, variants, shapes;
};

/// The shapes the sweep stage times `f`'s best at: its sweep (Family::sweep_shapes), or with
/// `quick` three of them, the first, the middle and the last (the lists run from squares to
/// odd extents).
std::vector<std::string> sweep_shapes(const registry::Family& f, bool quick);

/// The sweep's families of `m` as the sweep section takes them, in run order: each with its
/// title and the size of its whole sweep from the registry.
std::vector<bench::SweepPart> sweep_parts(const bench::Measured& m);

/// Measures from `at` on into `m` (the stages in order: probes, ladders, the sweep unless
/// o.no_sweep, profiles unless o.no_profile), each item under its guard; `saved` after each
/// section.
/// With `stop`, ends at the item that loses the GPU to this process (m.stopped: where the
/// rest begins, m.fault: that item); without, every item after it says the GPU was lost.
/// PyTorch's rows are not added here (add_torch adds them over every family at the end).
void measure_from(const Options& o, const core::DeviceInfo& dev, const bench::ResumePoint& at,
                  bool stop, bench::Measured& m,
                  const std::function<void(const bench::Measured&)>& saved,
                  const Scope& scope = {});

/// measure_from `at` on, and where a fault loses the GPU to this process, the rest in a
/// child process (Options::isolate_with, when named), and in another after a fault there,
/// up to eight; where none can take over, the items after the fault say the GPU was lost.
/// The faulty item says which. Returns a sentence on the child processes ("" when none ran).
std::string measure_isolated(const Options& o, const core::DeviceInfo& dev,
                             const bench::ResumePoint& at, const Scope& scope, bench::Measured& m,
                             const std::function<void(const bench::Measured&)>& saved);

/// Runs Options::isolate_with to measure from `at` on: true with `*rest`, else false with
/// why, in a sentence (it could not start, exited with a status, wrote nothing readable).
bool measure_in_child(const Options& o, const bench::ResumePoint& at, const Scope& scope,
                      bench::Measured* rest, std::string* why);

/// PyTorch's rows over every measured family (unless o.no_torch), in this process: PyTorch
/// runs in a process of its own, so a GPU lost to this one does not stop it. Returns why
/// they did not run, or "".
std::string add_torch(const Options& o, bench::Measured& m);

}  // namespace memhier::run::detail
