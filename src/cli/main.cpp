// memhier: measure, explain and master the memory hierarchy of an NVIDIA GPU.
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "common.hpp"
#include "memhier/bench/kernel_bench.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/model/expr.hpp"
#include "memhier/model/input.hpp"
#include "memhier/probe/probe.hpp"
#include "memhier/run/pipeline.hpp"

#ifndef MEMHIER_VERSION
#define MEMHIER_VERSION "0.0.0"
#endif

namespace {

// A message is one line on stderr: control bytes that quoted user input carried into it
// (a newline inside a shape, say) are shown as \xNN.
std::string one_line(const std::string& message) {
  static const char* const kHex = "0123456789abcdef";
  std::string s;
  for (unsigned char c : message)
    s += c >= 0x20 && c != 0x7f ? std::string(1, static_cast<char>(c))
                                : std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
  return s;
}

// The subcommand the user reached last ("memhier analyze"), and its app.
const CLI::App* reached(const CLI::App& app, std::string& path) {
  path = app.get_name();
  const CLI::App* at = &app;
  for (std::vector<CLI::App*> subs = at->get_subcommands(); !subs.empty();
       subs = at->get_subcommands()) {
    at = subs.front();
    path += " " + at->get_name();
  }
  return at;
}

// "a, b or c".
std::string choices(const std::vector<std::string>& names) {
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i)
    s += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return s;
}

// CLI11's "A subcommand is required" and "The following argument was not expected" say
// neither the word typed nor what would do: this sentence names both (nullopt: CLI11's
// own message is clear).
std::optional<std::string> helpful(const CLI::App& app, const CLI::ParseError& e) {
  std::string path;
  const CLI::App* at = reached(app, path);
  const std::vector<std::string> extra = at->remaining();
  const std::string word = extra.empty() ? "" : memhier::model::quote_for_message(extra.front());
  if (dynamic_cast<const CLI::RequiredError*>(&e) && at->get_require_subcommand_min() > 0 &&
      at->get_subcommands().empty()) {
    std::vector<std::string> modes;
    for (const CLI::App* sub : at->get_subcommands([](const CLI::App*) { return true; }))
      modes.push_back(sub->get_name());
    return path + " needs one of " + choices(modes) +
           (word.empty() ? std::string(".") : ", not " + word + ".");
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&e) && !word.empty()) {
    std::vector<std::string> takes;
    for (const CLI::Option* o : at->get_options())
      if (o->get_name() != "--help" && o->get_name() != "--version") takes.push_back(o->get_name());
    return path + " does not take " + word +
           (takes.empty() ? "; it takes no arguments." : "; it takes " + choices(takes) + ".");
  }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace memhier;
  cli::set_command_line(argc, argv);
  probe::register_probes();  // the one registry: list, probe, bench and report iterate it
  kernels::register_families();
  CLI::App app{
      "memhier: measure, explain and master the memory hierarchy of an NVIDIA GPU.\n"
      "With no subcommand, runs 'memhier report'.",
      "memhier"};
  app.set_version_flag("--version", std::string("memhier ") + MEMHIER_VERSION);
  app.require_subcommand(0, 1);
  int rc = cli::kExitOk;
  cli::add_analyze(app, rc);
  cli::add_occupancy(app, rc);
  cli::add_probe(app, rc);
  cli::add_bench(app, rc);
  cli::add_tune(app, rc);
  cli::add_profile(app, rc);
  cli::add_simulate(app, rc);
  cli::add_explain(app, rc);
  cli::add_list(app, rc);
  cli::add_claims(app, rc);
  cli::add_info(app, rc);
  const CLI::App* report = cli::add_report(app, rc);
  try {
    app.parse(argc, argv);
    if (app.get_subcommands().empty()) {
      // The default command is the report.
      app.clear();
      app.parse(std::vector<std::string>{report->get_name()});
    }
    return rc;
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    if (const std::optional<std::string> better = helpful(app, e)) {
      std::cerr << "memhier: " << one_line(*better) << '\n';
      return cli::kExitBadInput;
    }
    std::cerr << "memhier: " << one_line(e.what()) << " (see 'memhier --help').\n";
    return cli::kExitBadInput;
  } catch (const model::InputError& e) {
    std::cerr << "memhier: " << one_line(e.what()) << '\n';
    return cli::kExitBadInput;
  } catch (const cli::UsageError& e) {
    std::cerr << "memhier: " << one_line(e.what()) << '\n';
    return cli::kExitBadInput;
  } catch (const cli::NoDevice& e) {
    std::cerr << "memhier: " << one_line(e.what()) << '\n';
    return cli::kExitNoDevice;
  } catch (const run::DeviceUnavailable& e) {
    std::cerr << "memhier: " << one_line(e.what()) << '\n';
    return cli::kExitNoDevice;
  } catch (const model::ParseError& e) {
    std::cerr << "memhier: " << e.pretty() << '\n';
    return cli::kExitBadInput;
  } catch (const model::EvalError& e) {
    std::cerr << "memhier: " << one_line(e.message) << '\n';
    return cli::kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "memhier: " << one_line(e.what()) << '\n';
    return cli::kExitFailure;
  }
}
