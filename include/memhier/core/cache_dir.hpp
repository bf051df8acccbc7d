// memhier's per-user cache folder, where the GEMM tuning cache and the card records live.
#pragma once

#include <string>

namespace memhier::core {

/// $MEMHIER_CACHE_DIR (the tests point it at their own folder), else $XDG_CACHE_HOME/memhier,
/// else ~/.cache/memhier; empty when none can be named.
std::string cache_dir();

}  // namespace memhier::core
