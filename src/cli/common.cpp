#include "common.hpp"

#include <unistd.h>

#include <cctype>
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

std::string trim(const std::string& s) {
  std::size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}
}  // namespace

std::int64_t parse_integer(const std::string& text, const std::string& what) {
  const std::string t = trim(text);
  if (t.empty()) throw UsageError(what + " is empty; give an integer.");
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(t, &used, 0);
  } catch (const std::out_of_range&) {
    throw UsageError(what + " '" + t + "' is out of range.");
  } catch (const std::exception&) {
    throw UsageError(what + " '" + t + "' is not an integer.");
  }
  if (used != t.size()) throw UsageError(what + " '" + t + "' is not an integer.");
  return v;
}

std::int64_t parse_size(const std::string& text, const std::string& what) {
  std::string t = trim(text);
  std::int64_t mult = 1;
  auto strip = [&t](const std::string& suffix) {
    if (t.size() > suffix.size() &&
        std::equal(suffix.rbegin(), suffix.rend(), t.rbegin(),
                   [](char a, char b) { return std::toupper(a) == std::toupper(b); })) {
      t.resize(t.size() - suffix.size());
      return true;
    }
    return false;
  };
  if (strip("KiB") || strip("KB") || strip("K"))
    mult = 1024;
  else if (strip("MiB") || strip("MB") || strip("M"))
    mult = 1024 * 1024;
  else
    strip("B");
  const std::int64_t v = parse_integer(t, what);
  if (v < 0) throw UsageError(what + " '" + text + "' is negative.");
  if (v > (std::int64_t{1} << 40) / mult) throw UsageError(what + " '" + text + "' is too large.");
  return v * mult;
}

std::vector<int> parse_block(const std::string& text) {
  std::vector<int> dims;
  std::size_t start = 0;
  while (true) {
    const std::size_t x = text.find_first_of("xX,", start);
    const std::string part = text.substr(start, x == std::string::npos ? x : x - start);
    const std::int64_t v = parse_integer(part, "block dimension");
    if (v < 1 || v > 1024)
      throw UsageError("block dimension " + std::to_string(v) + " is outside 1..1024.");
    dims.push_back(static_cast<int>(v));
    if (x == std::string::npos) break;
    start = x + 1;
  }
  if (dims.size() > 3) throw UsageError("block '" + text + "' has more than 3 dimensions.");
  while (dims.size() < 3) dims.push_back(1);
  if (static_cast<std::int64_t>(dims[0]) * dims[1] * dims[2] > 1024)
    throw UsageError("block '" + text + "' has more than 1024 threads.");
  return dims;
}

namespace {
void check_name(const std::string& name, const std::string& text) {
  static const char* reserved[] = {"lane", "tx", "ty", "tz", "warp"};
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    throw UsageError("'" + text + "' does not start with a variable name.");
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
      throw UsageError("'" + name + "' is not a valid variable name.");
  for (const char* r : reserved)
    if (name == r)
      throw UsageError("'" + name + "' is set by the thread layout; use --block or --warp instead.");
}
}  // namespace

std::pair<std::string, std::int64_t> parse_assignment(const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos) throw UsageError("'" + text + "' is not of the form NAME=VALUE.");
  const std::string name = trim(text.substr(0, eq));
  check_name(name, text);
  return {name, parse_integer(text.substr(eq + 1), "value of " + name)};
}

Sweep parse_sweep(const std::string& text) {
  const std::size_t eq = text.find('=');
  const std::size_t dots = text.find("..");
  if (eq == std::string::npos || dots == std::string::npos || dots < eq)
    throw UsageError("sweep '" + text + "' is not of the form NAME=FROM..TO[:STEP].");
  Sweep s;
  s.name = trim(text.substr(0, eq));
  check_name(s.name, text);
  s.from = parse_integer(text.substr(eq + 1, dots - eq - 1), "sweep start");
  std::string rest = text.substr(dots + 2);
  const std::size_t colon = rest.find(':');
  if (colon != std::string::npos) {
    s.step = parse_integer(rest.substr(colon + 1), "sweep step");
    rest = rest.substr(0, colon);
  }
  s.to = parse_integer(rest, "sweep end");
  if (s.step < 1) throw UsageError("sweep step must be at least 1.");
  if (s.to < s.from) throw UsageError("sweep '" + text + "' ends before it starts.");
  if ((s.to - s.from) / s.step >= 100000)
    throw UsageError("sweep '" + text + "' has more than 100000 values.");
  return s;
}

std::vector<std::int64_t> Sweep::values() const {
  std::vector<std::int64_t> v;
  for (std::int64_t x = from; x <= to; x += step) v.push_back(x);
  return v;
}

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
