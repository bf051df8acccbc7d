// Where and how a document was made. Its own file: the commit it names changes with every
// commit, and only this file need rebuild then.
#include <unistd.h>

#include <chrono>
#include <ctime>

#include "memhier/run/pipeline.hpp"

#ifndef MEMHIER_VERSION
#define MEMHIER_VERSION "0.0.0"
#endif
#ifndef MEMHIER_CUDA_TOOLKIT
#define MEMHIER_CUDA_TOOLKIT "unknown"
#endif
#ifndef MEMHIER_GIT_COMMIT
#define MEMHIER_GIT_COMMIT "unknown"
#endif

namespace memhier::run {

report::Meta make_meta(const std::string& command, bool with_device) {
  report::Meta m;
  m.version = MEMHIER_VERSION;
  m.command = command;
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char buf[32];
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  m.date_utc = buf;
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) == 0) m.host = host;
  m.toolkit = std::string("CUDA ") + MEMHIER_CUDA_TOOLKIT;
  m.git_commit = MEMHIER_GIT_COMMIT;
  if (with_device) {
    const core::Versions v = core::cuda_versions();
    m.driver = v.driver;
    if (v.driver_release != "?") m.driver_release = v.driver_release;
    std::string why;
    if (auto d = core::query_device(0, &why))
      m.device =
          d->name + " (cc " + std::to_string(d->cc_major) + "." + std::to_string(d->cc_minor) + ")";
    else
      m.device = "none";
  }
  return m;
}

}  // namespace memhier::run
