// What `memhier tune` records of one decision of the tuner (tuning/tuner.hpp).
#pragma once

#include <string>

#include "memhier/kernels/tuning_budget.hpp"
#include "memhier/registry/record.hpp"

namespace memhier::tuning {

/// The record of `family`'s decision at `shape` (as the family writes shapes).
inline registry::TuneRecord tune_record(const std::string& family, const std::string& shape,
                                        const Outcome& o) {
  registry::TuneRecord r;
  r.family = family;
  r.shape = shape;
  r.config = o.config;
  r.cached = o.cached;
  r.tuned = o.tuned;
  r.candidates = o.cost.candidates;
  r.timed = o.cost.timed;
  r.launches = o.cost.launches;
  r.ms = o.cost.ms;
  r.gpu_ms = o.cost.gpu_ms;
  return r;
}

}  // namespace memhier::tuning
