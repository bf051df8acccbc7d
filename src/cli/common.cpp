#include "common.hpp"

#include <iostream>

#include "memhier/report/writers.hpp"
#include "memhier/run/pipeline.hpp"

namespace memhier::cli {
namespace {
std::string g_command_line = "memhier";
}  // namespace

void set_command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    std::string a = i == 0 ? std::string("memhier") : std::string(argv[i]);
    const bool quote = a.empty() || a.find_first_of(" \t\"'[]*()|&^<>;$`\\") != std::string::npos;
    if (!s.empty()) s += ' ';
    if (!quote) {
      s += a;
      continue;
    }
    // POSIX single quotes, a quote inside written '\'' : the line pastes back into a shell.
    s += '\'';
    for (const char c : a) s += c == '\'' ? std::string("'\\''") : std::string(1, c);
    s += '\'';
  }
  g_command_line = s;
}

report::Meta make_meta(bool with_device) {
  return run::make_meta(g_command_line, with_device);
}

nlohmann::json json_header(const std::string& schema, const report::Meta& meta) {
  nlohmann::json j;
  j["schema"] = schema;
  j["schema_version"] = report::kSchemaVersion;
  j["meta"] = report::to_json(meta);
  return j;
}

void print_json(const nlohmann::json& j) {
  std::cout << j.dump(2) << '\n';
}

// A command's own output shows every table: only the report is an edition for reading.
void print_document(const report::Document& doc, bool json) {
  if (json)
    print_json(report::to_json(doc));
  else
    std::cout << report::to_terminal(doc, report::Edition{true});
}

}  // namespace memhier::cli
