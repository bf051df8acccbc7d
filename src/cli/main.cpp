// memhier: measure, explain and master the memory hierarchy of an NVIDIA GPU.
#include <iostream>
#include <string>

#include "commands.hpp"
#include "common.hpp"
#include "memhier/bench/kernel_bench.hpp"
#include "memhier/kernels/register.hpp"
#include "memhier/model/expr.hpp"
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
    std::cerr << "memhier: " << one_line(e.what()) << " (see 'memhier --help').\n";
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
