#include "memhier/core/cache_dir.hpp"

#include <cstdlib>

namespace memhier::core {

std::string cache_dir() {
  if (const char* own = std::getenv("MEMHIER_CACHE_DIR"); own && *own) return own;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/memhier";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/memhier";
  return {};
}

}  // namespace memhier::core
