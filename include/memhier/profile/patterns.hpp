// The access patterns whose hardware counters are checked against the model: one warp
// instruction each, with every lane's byte address given explicitly, so the kernel that
// runs it and the model that predicts it read the same addresses. Pure host C++.
#pragma once

#include <string>
#include <vector>

#include "memhier/model/access.hpp"

namespace memhier::profile {

/// One warp instruction to run under the profiler.
struct Pattern {
  std::string set;    ///< "shared-stride" or "global-stride" (the probe it belongs to)
  std::string name;   ///< "ld 8B stride 3", "ld 8B d[lane/2]", ...
  bool shared = true; ///< shared memory (else global)
  model::WarpAccess access;  ///< byte offsets from the buffer base, width, mask, store
};

/// The pattern sets, named after the probes whose patterns they check.
const std::vector<std::string>& pattern_sets();

/// Every pattern of `set` ("all" for both); throws std::invalid_argument otherwise.
std::vector<Pattern> patterns(const std::string& set);

/// Bytes of buffer the patterns of `shared`/global memory reach (the kernel allocates them).
std::size_t pattern_extent(const std::vector<Pattern>& ps, bool shared);

/// The model's counts for one pattern (one instruction).
model::AccessCounts predict(const Pattern& p);

}  // namespace memhier::profile
