// A probe that needs what this machine lacks (a second GPU, NCCL) throws Unavailable with one
// sentence: a full run shows it as the probe's "not measured" section, and a run of only such
// probes (memhier probe peer on one GPU) ends as a missing capability (exit 3).
#pragma once

#include <stdexcept>

namespace memhier::probe {

struct Unavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace memhier::probe
