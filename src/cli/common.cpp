#include "common.hpp"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <iostream>

#include "memhier/core/device.hpp"
#include "memhier/report/writers.hpp"

#ifndef MEMHIER_VERSION
#define MEMHIER_VERSION "0.0.0"
#endif
#ifndef MEMHIER_CUDA_TOOLKIT
#define MEMHIER_CUDA_TOOLKIT "unknown"
#endif
#ifndef MEMHIER_GIT_COMMIT
#define MEMHIER_GIT_COMMIT "unknown"
#endif

namespace memhier::cli {
namespace {
std::string g_command_line = "memhier";
}  // namespace

void set_command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    std::string a = i == 0 ? std::string("memhier") : std::string(argv[i]);
    const bool quote = a.find_first_of(" \t\"'[]*()|&^<>;") != std::string::npos;
    if (!s.empty()) s += ' ';
    s += quote ? "'" + a + "'" : a;
  }
  g_command_line = s;
}

report::Meta make_meta(bool with_device) {
  report::Meta m;
  m.version = MEMHIER_VERSION;
  m.command = g_command_line;
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
    m.driver = core::cuda_versions().driver;
    std::string why;
    if (auto d = core::query_device(0, &why))
      m.device = d->name + " (cc " + std::to_string(d->cc_major) + "." +
                 std::to_string(d->cc_minor) + ")";
    else
      m.device = "none";
  }
  return m;
}

nlohmann::json json_header(const std::string& schema, const report::Meta& meta) {
  nlohmann::json j;
  j["schema"] = schema;
  j["schema_version"] = report::kSchemaVersion;
  j["meta"] = report::to_json(meta);
  return j;
}

void print_json(const nlohmann::json& j) { std::cout << j.dump(2) << '\n'; }

void print_document(const report::Document& doc, bool json) {
  if (json)
    print_json(report::to_json(doc));
  else
    std::cout << report::to_terminal(doc);
}

}  // namespace memhier::cli
