// The claims catalogue: every numeric claim of the source texts (and the few memhier makes of
// itself), each once, with a stable id, its source and what checks it. Probes and
// ladders refer to claims by id ("padding-3x-matmul"_claim), so a claim's text and
// source live here only; the report gathers every check into one table. No CUDA here.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "memhier/claims/tolerance.hpp"
#include "memhier/report/document.hpp"
#include "memhier/report/summary.hpp"

namespace memhier::claims {

/// One claim the report tests against the card it runs on.
struct Claim {
  std::string id;  ///< stable, kebab-case: "padding-3x-matmul"
  /// "Shared Memory and Bank Conflicts, §GEMM Performance (A100, M=N=K=4096, FP32)", or
  /// "memhier goal: ..." for a promise of this project; several joined by "; ".
  std::string source;
  std::string text;  ///< the claim, with its numbers
  /// Owners of the claims tables that test it: a probe name ("latency") or
  /// "bench-<family>"; empty when nothing here can measure it.
  std::vector<std::string> checked_by;
  std::string unmeasured;  ///< why nothing measures it (set exactly when checked_by is empty)
  /// The band its checks judge with: a measurement inside it reproduces the claim. Every
  /// check of a claim uses this one band (claims::band); Rule::per_figure when it is judged
  /// from several figures, each with its own band, which the reason names.
  Tolerance band;
  std::string band_reason;  ///< why this band, one line (empty exactly when unmeasured)
};

/// Every claim, in report order (grouped by subject).
const std::vector<Claim>& catalogue();

/// The claim with this id, or nullptr.
const Claim* find(std::string_view id);

/// One source text the claims cite: its number in the catalogue's data ("001"), its title
/// as readers see it, what it covers, and its file name (where a test finds each section).
struct Seed {
  std::string number, title, covers, file;
};

/// The five source texts, in number order.
const std::vector<Seed>& seeds();

/// A source as readers see it: "001 §L2 Cache; 001 §HBM Basics; memhier goal: ..." becomes
/// "GPU Memory Hierarchy, §L2 Cache, §HBM Basics; memhier goal: ...", each text named once
/// by its title; a bare "§..." part continues the text before it; other parts stay as written.
std::string cite(const std::string& source);

/// One part of a source: origin is a source text's title, "memhier goal" (a promise this
/// project makes of itself) or "published figures"; section is what follows.
struct SourceRef {
  std::string origin;
  std::string section;
};

/// Splits "GPU Memory Hierarchy, §L2 Cache; memhier goal: ..." into its parts; an empty
/// list when a part is none of the three forms.
std::vector<SourceRef> parse_sources(const std::string& source);

/// A claim as `memhier claims --json` lists it (id, source and its parsed parts, text,
/// checkers, why unmeasured); the Python bindings return the same record.
nlohmann::json claim_record(const Claim& c);

class Id;
constexpr Id operator""_claim(const char* text, std::size_t length);

/// A claim id as code writes it: only the literal "padding-3x-matmul"_claim makes one,
/// so a test can find every id the code uses by reading the sources.
class Id {
 public:
  /// The id's text.
  constexpr const char* c_str() const { return text_; }

 private:
  constexpr explicit Id(const char* text) : text_(text) {}
  friend constexpr Id operator""_claim(const char* text, std::size_t length);
  const char* text_;
};

/// "padding-3x-matmul"_claim: the id of a catalogue claim.
constexpr Id operator""_claim(const char* text, std::size_t /*length*/) {
  return Id(text);
}

/// The band every check of the claim `id` judges with (the catalogue's); throws
/// std::logic_error for an id the catalogue lacks or a claim judged per figure.
const Tolerance& band(Id id);

/// What one checker measured for one claim on this card.
struct Check {
  Id id;
  std::string measured;  ///< the figures, with units
  std::string
      verdict;  ///< "reproduced (tolerance ...)", "refuted: ...", "not measurable here: ..."
};

enum class Verdict { reproduced, refuted, not_measurable };

/// The class of a checker's verdict text: "reproduced..." and "not measurable here..."
/// are themselves; anything else (refuted, a probe's "differs: outside the tolerance") refutes.
Verdict classify(const std::string& verdict);

/// "reproduced", "refuted" or "not measurable here".
const char* to_string(Verdict v);

/// The claims table of one checker (id "<owner>-claims"): claim id, source, claim text
/// from the catalogue, measured, verdict. Throws std::logic_error for an id the
/// catalogue lacks.
report::Table checks_table(const std::string& owner, const std::vector<Check>& checks);

/// One check as the report gathers it back from a claims table.
struct Finding {
  std::string id, checker, measured, verdict;
};

/// Every row of every claims table (made by checks_table) in these sections.
std::vector<Finding> findings(const std::vector<report::Section>& sections);

/// The report's "Claims" section: every catalogue claim with its checks in `sections`
/// (claimed, checked by, measured on this card, verdict); a claim no table checked is
/// "not measurable here" with the catalogue's reason, or `run_note` (say, "no GPU")
/// when its checker did not run.
report::Section claims_section(const std::vector<report::Section>& sections,
                               const std::string& run_note);

/// How many rows of claims_section(sections, ...) have each verdict.
report::ClaimsTally tally(const std::vector<report::Section>& sections);

/// The catalogue as one table (id, source, claim, checked by) for `memhier claims`.
report::Table catalogue_table();

/// The catalogue as Markdown: docs/claims.md is exactly this text.
std::string catalogue_markdown();

/// "probe latency", "bench gemm", "profile gemm": how a checker name reads in prose.
std::string describe_checker(const std::string& checker);

}  // namespace memhier::claims
