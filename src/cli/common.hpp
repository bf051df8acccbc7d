// Shared pieces of the memhier command: input parsing, errors, metadata, output.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "memhier/report/document.hpp"

namespace memhier::cli {

/// Exit statuses (documented in the README).
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 2;  ///< bad input of any kind: one sentence on stderr
inline constexpr int kExitNoDevice = 3;  ///< a GPU command on a machine without a usable GPU
inline constexpr int kExitFailure = 1;   ///< anything else (I/O error, CUDA error)

/// Bad input: the message is one sentence for the user; the command exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A GPU command on a machine without a usable GPU: one sentence, exit 3.
struct NoDevice : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Runs `f`: a std::invalid_argument from it is the user's bad input (UsageError, exit 2).
template <class F>
decltype(auto) as_bad_input(F&& f) {
  try {
    return f();
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

/// The command line, date, host, toolkit; with `with_device`, the driver and GPU too.
report::Meta make_meta(bool with_device);

/// meta as JSON, with the schema name and version every JSON output carries.
nlohmann::json json_header(const std::string& schema, const report::Meta& meta);

/// Sets the command line recorded in metadata (from main).
void set_command_line(int argc, char** argv);

/// Prints JSON with two-space indentation and a newline.
void print_json(const nlohmann::json& j);

/// Prints a document as JSON (`json`) or as terminal tables.
void print_document(const report::Document& doc, bool json);

}  // namespace memhier::cli
