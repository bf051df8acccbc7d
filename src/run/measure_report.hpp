// The report's measurements on the device (probes, ladders, profiles) into one value that can
// cross to a child process, and the child that takes over when the GPU is lost to this one.
// Internal to the run library.
#pragma once

#include <functional>
#include <string>

#include "memhier/bench/continuation.hpp"
#include "memhier/core/device.hpp"
#include "memhier/run/pipeline.hpp"

namespace memhier::run::detail {

/// Measures from `at` on into `m`, each item under its guard; `saved` after each section.
/// With `stop`, ends at the item that loses the GPU to this process (m.stopped: where the
/// rest begins, m.fault: that item); without, every item after it says the GPU was lost.
/// PyTorch's rows are not added here (the report adds them over every family at the end).
void measure_from(const Options& o, const core::DeviceInfo& dev, const bench::ResumePoint& at,
                  bool stop, bench::Measured& m,
                  const std::function<void(const bench::Measured&)>& saved);

/// Runs Options::isolate_with to measure from `at` on: true with `*rest`, else false with
/// why, in a sentence (it could not start, exited with a status, wrote nothing readable).
bool measure_in_child(const Options& o, const bench::ResumePoint& at, bench::Measured* rest,
                      std::string* why);

}  // namespace memhier::run::detail
