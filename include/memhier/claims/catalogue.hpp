// The claims catalogue: every numeric claim of the source texts (and the few memhier makes of
// itself), each once, keyed by its generated id (results::ClaimId), with its source, the card
// it speaks of and what checks it. Probes and ladders produce results::Check records; this
// library renders them into claims tables and gathers them into one Claims section from
// Section::checks, never from rendered cells. No CUDA here.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "memhier/claims/tolerance.hpp"
#include "memhier/report/document.hpp"
#include "memhier/report/summary.hpp"
#include "memhier/results/check.hpp"
#include "memhier/results/claim_id.hpp"

namespace memhier::claims {

using results::Check;
using results::Checker;
using results::ClaimId;
using results::Judgement;
using results::to_string;
using results::Verdict;

/// The card a run judges on, as the device reports it: the claims library never links CUDA.
struct RunningCard {
  std::string name;  ///< "NVIDIA H100 80GB HBM3"
  int cc_major = 0, cc_minor = 0;
  /// This card's datasheet DRAM bandwidth (2 x memory clock x bus width), GB/s; 0 when the
  /// runtime reports none. A claim that is a share of its card's peak is judged against it.
  double peak_dram_gbps = 0;
};

/// The card or architecture a claim speaks of, and what kind of figure it states of it.
struct Subject {
  enum class Kind { any_card, architecture, card };
  /// What the claim's figure is to its subject, which decides how another card judges it.
  enum class Figure {
    ratio,          ///< a ratio or an ordering: carries over to any card
    share_of_peak,  ///< a share of its card's peak: judged as a share of this card's datasheet
    absolute,       ///< a latency, a bandwidth, a size: its subject's alone
  };
  Kind kind = Kind::any_card;
  int cc_major = 0;  ///< architecture: 9 for Hopper (sm_90)
  std::string card;  ///< card: "H100", as the device's name spells it
  Figure figure = Figure::ratio;

  /// Any card: the claim is about GPUs in general.
  static Subject any() { return {}; }
  /// An architecture by its compute capability's major number (9: Hopper).
  static Subject architecture(int major, Figure f) { return {Kind::architecture, major, {}, f}; }
  /// A named card ("H100", "A100").
  static Subject named(std::string card_name, Figure f) {
    return {Kind::card, 0, std::move(card_name), f};
  }

  /// Whether the figure is this subject's alone (another card does not judge it).
  bool absolute() const { return figure == Figure::absolute; }
  /// "any card", "Hopper (sm_90)", "the H100".
  std::string describe() const;
  /// Whether `running` is this subject (any card always is).
  bool covers(const RunningCard& running) const;
};

/// One claim the report tests against the card it runs on.
struct Claim {
  ClaimId id{};  ///< name(id) is its stable kebab-case text: "padding-3x-matmul"
  /// "Shared Memory and Bank Conflicts, §GEMM Performance (A100, M=N=K=4096, FP32)", or
  /// "memhier goal: ..." for a promise of this project; several joined by "; ".
  std::string source;
  std::string text;                 ///< the claim, with its numbers
  std::vector<Checker> checked_by;  ///< empty when nothing here can measure it
  std::string unmeasured;  ///< why nothing measures it (set exactly when checked_by is empty)
  /// The band its checks judge with: a measurement inside it reproduces the claim. Every
  /// check of a claim uses this one band (claims::band); Rule::per_figure when it is judged
  /// from several figures, each with its own band, which the reason names.
  Tolerance band;
  std::string band_reason;  ///< why this band, one line (empty exactly when unmeasured)
  Subject subject;          ///< the card it speaks of
};

using results::name;

/// Every claim, in report order (claim_ids.inc's order, grouped by subject).
const std::vector<Claim>& catalogue();

/// The claim with this id.
const Claim& claim(ClaimId id);

/// The claim a user named by its text ("padding-3x-matmul"), or nullptr.
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

/// The band every check of the claim `id` judges with (the catalogue's); throws
/// std::logic_error for a claim nothing checks or one judged per figure.
const Tolerance& band(ClaimId id);

/// The claims table of one checker (id "<owner>-claims"): claim id, source, claim text
/// from the catalogue, measured, verdict, band.
report::Table checks_table(const Checker& by, const std::vector<Check>& checks);

/// Adds `checks` to `section`: each stamped with `by`, kept in Section::checks (what the
/// Claims section gathers) and rendered as the section's claims table. Throws
/// std::logic_error when the catalogue does not name `by` as a checker of a claim.
void add_checks(report::Section& section, const Checker& by, std::vector<Check> checks);

/// `check` as judged on `running`, the one rule for every claims table: an absolute figure
/// about another card becomes about_other_card ("about the H100: not this card"); a share of
/// a card's peak that carries its throughput (Check::share) is judged as a share of
/// `running`'s datasheet peak, the row naming both peaks; a ratio is unchanged. Judging a
/// check twice on one card changes nothing.
Check on_card(const Check& check, const RunningCard& running);

/// Judges every check of `sections` on `running` (on_card) and renders each claims table
/// ("<owner>-claims") again from the judged checks, so a section's table and the Claims
/// section show the same verdict.
void judge_on_card(std::vector<report::Section>& sections, const RunningCard& running);

/// The report's "Claims" section: every catalogue claim with its checks in the sections'
/// Section::checks (claimed, checked by, measured on this card, verdict); a claim nothing
/// checked is "not measurable here" with the catalogue's reason, or `run_note` (say, "no
/// GPU") when its checker did not run. With `running`, each check is judged on that card.
report::Section claims_section(const std::vector<report::Section>& sections,
                               const std::string& run_note,
                               const std::optional<RunningCard>& running = std::nullopt);

/// How many rows of claims_section(sections, ...) have each verdict; checks judged from
/// device properties are counted apart. With `running`, how many claims speak of it (their
/// card, their architecture or any card) and how many of another card.
report::ClaimsTally tally(const std::vector<report::Section>& sections,
                          const std::optional<RunningCard>& running = std::nullopt);

/// The catalogue as one table (id, source, claim, checked by) for `memhier claims`.
report::Table catalogue_table();

/// The catalogue as Markdown: docs/claims.md is exactly this text.
std::string catalogue_markdown();

/// "probe latency, bench gemm": the claim's checkers in prose; empty when nothing checks it.
std::string checkers_text(const Claim& c);

}  // namespace memhier::claims
