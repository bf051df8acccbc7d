// memhier-profile-target's side of `memhier profile`: its arguments, its main, and the
// JSON file that carries each item's outcome back to the parent.
#include "memhier/bench/profile_target.hpp"

#include <exception>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace memhier::bench {

void write_outcomes(const std::string& path, const std::vector<ItemOutcome>& outcomes) {
  nlohmann::json j;
  j["outcomes"] = nlohmann::json::array();
  for (const ItemOutcome& o : outcomes)
    j["outcomes"].push_back({{"index", o.index}, {"note", o.note}, {"runs", o.runs}});
  std::ofstream out(path, std::ios::trunc);
  out << j.dump() << '\n';
  if (!out) throw std::runtime_error("cannot write the profile outcomes to " + path + ".");
}

std::vector<ItemOutcome> read_outcomes(const std::string& path) {
  std::ifstream in(path);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  std::vector<ItemOutcome> out;
  if (!j.is_object() || !j.contains("outcomes") || !j["outcomes"].is_array()) return out;
  for (const nlohmann::json& o : j["outcomes"]) {
    if (!o.is_object() || !o.value("index", nlohmann::json()).is_number_unsigned()) continue;
    out.push_back({o["index"].get<std::size_t>(), o.value("note", ""), o.value("runs", "")});
  }
  return out;
}

std::vector<std::string> profile_target_args(const std::string& target,
                                             const std::vector<std::string>& variants,
                                             const std::string& shape,
                                             const std::string& out_file) {
  std::vector<std::string> args = {target};
  for (const std::string& v : variants) args.insert(args.end(), {"--variant", v});
  if (!shape.empty()) args.insert(args.end(), {"--size", shape});
  if (!out_file.empty()) args.insert(args.end(), {"--out", out_file});
  return args;
}

int profile_target_main(int argc, char** argv) {
  std::string target, shape, out_file;
  std::vector<std::string> variants;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--variant" && has_value) {
      variants.push_back(argv[++i]);
    } else if (a == "--size" && has_value) {
      shape = argv[++i];
    } else if (a == "--out" && has_value) {
      out_file = argv[++i];
    } else if (target.empty() && !a.empty() && a[0] != '-') {
      target = a;
    } else {
      std::cerr << "memhier-profile-target: unexpected argument '" << a
                << "'; usage: memhier-profile-target TARGET [--variant V]... [--size S] "
                   "[--out FILE].\n";
      return 2;
    }
  }
  if (target.empty()) {
    std::cerr << "memhier-profile-target: name a family or a pattern set to profile.\n";
    return 2;
  }
  std::vector<ItemOutcome> outcomes;
  int rc = 0;
  try {
    execute_profile(target, variants, shape, outcomes);
  } catch (const std::invalid_argument& e) {
    std::cerr << "memhier-profile-target: " << e.what() << '\n';
    rc = 2;
  } catch (const std::exception& e) {
    std::cerr << "memhier-profile-target: " << e.what() << '\n';
    rc = 1;
  }
  try {
    if (!out_file.empty()) write_outcomes(out_file, outcomes);  // what was learned, even on failure
  } catch (const std::exception& e) {
    std::cerr << "memhier-profile-target: " << e.what() << '\n';
    rc = rc ? rc : 1;
  }
  return rc;
}

}  // namespace memhier::bench
