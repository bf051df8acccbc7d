// Claims tables rendered from checks, the report's Claims section gathered from the sections'
// checks, and the catalogue's own renderings.
#include <algorithm>
#include <optional>
#include <stdexcept>

#include "memhier/claims/catalogue.hpp"
#include "memhier/claims/judge.hpp"

namespace memhier::claims {
namespace {

using report::Value;

constexpr const char* kTableSuffix = "-claims";
constexpr const char* kIdKey = "claim_id";

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

// Backslash-escapes what GitHub Markdown would read as markup inside a table cell.
std::string md_cell(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (std::string("\\`*_[]<>|&~").find(ch) != std::string::npos) out.push_back('\\');
    out.push_back(ch);
  }
  return out;
}

// The band column's text for a claim: the catalogue's band, or "n/a" when unmeasured.
std::string band_text(const Claim& c) {
  return c.checked_by.empty() ? "n/a" : describe_band(c.band);
}

// A claims table's verdict cell: the judge's text, and where the figure came from when it
// was the device's properties rather than a measurement.
std::string verdict_cell(const Check& c) {
  return c.from_properties ? c.detail + "; from the device's properties, not measured" : c.detail;
}

}  // namespace

std::string checkers_text(const Claim& c) {
  std::vector<std::string> names;
  for (const Checker& ch : c.checked_by) names.push_back(ch.describe());
  return join(names, ", ");
}

report::Table checks_table(const Checker& by, const std::vector<Check>& checks) {
  report::Table t;
  t.id = by.owner() + kTableSuffix;
  t.title = "Claims against this card";
  t.columns = {{"claim", "", kIdKey},      {"source", "", "source"},
               {"claimed", "", "claim"},   {"measured here", "", "measured"},
               {"verdict", "", "verdict"}, {"band", "", "band"}};
  for (const Check& c : checks) {
    const Claim& cl = claim(c.id);
    t.rows.push_back({Value::str(std::string(name(cl.id))), Value::str(cl.source),
                      Value::str(cl.text), Value::str(c.measured), Value::str(verdict_cell(c)),
                      Value::str(band_text(cl))});
  }
  return t;
}

void add_checks(report::Section& section, const Checker& by, std::vector<Check> checks) {
  for (Check& c : checks) {
    const std::vector<Checker>& named = claim(c.id).checked_by;
    if (std::find(named.begin(), named.end(), by) == named.end())  // a wiring error
      throw std::logic_error("claims: " + by.describe() + " checks '" + std::string(name(c.id)) +
                             "', but src/claims/catalogue.cpp does not name it as a checker.");
    c.by = by;
  }
  section.tables.push_back(checks_table(by, checks));
  section.checks.insert(section.checks.end(), checks.begin(), checks.end());
}

void judge_on_card(std::vector<report::Section>& sections, const RunningCard& running) {
  for (report::Section& s : sections) {
    if (s.checks.empty()) continue;
    for (Check& c : s.checks) c = on_card(c, running);
    // Each claims table again, from its checker's judged checks, where it stood.
    for (report::Table& t : s.tables) {
      std::vector<Check> mine;
      const Checker* by = nullptr;
      for (const Check& c : s.checks)
        if (c.by.owner() + kTableSuffix == t.id) {
          mine.push_back(c);
          by = &c.by;
        }
      if (by) t = checks_table(*by, mine);
    }
  }
}

namespace {

// One row of the Claims section: a claim with one check of it (or none).
struct Row {
  const Claim* claim;
  std::string checker, measured;
  Verdict verdict;
  std::string detail;
  bool from_properties = false;
};

std::vector<Row> gather(const std::vector<report::Section>& sections, const std::string& run_note,
                        const std::optional<RunningCard>& running) {
  std::vector<Row> rows;
  for (const Claim& c : catalogue()) {
    bool any = false;
    for (const report::Section& s : sections)
      for (const Check& found : s.checks) {
        if (found.id != c.id) continue;
        any = true;
        const Check k = running ? on_card(found, *running) : found;
        rows.push_back({&c, k.by.describe(), k.measured, k.verdict, k.detail, k.from_properties});
      }
    if (any) continue;
    if (c.checked_by.empty())
      rows.push_back({&c, "nothing", "n/a", Verdict::not_measurable, c.unmeasured});
    else
      rows.push_back(
          {&c, checkers_text(c), "n/a", Verdict::not_measurable,
           run_note.empty() ? checkers_text(c) + " did not run in this report" : run_note});
  }
  return rows;
}

// A verdict (reproduced or refuted) taken from the device's properties, not measured.
bool judged_from_properties(const Row& r) {
  return r.from_properties && (r.verdict == Verdict::reproduced || r.verdict == Verdict::refuted);
}

// Counts rows by verdict, those judged from device properties apart.
report::ClaimsTally count(const std::vector<Row>& rows) {
  report::ClaimsTally n;
  for (const Row& r : rows) {
    if (judged_from_properties(r)) {
      ++n.from_properties;
      continue;
    }
    switch (r.verdict) {
      case Verdict::reproduced:
        ++n.reproduced;
        break;
      case Verdict::refuted:
        ++n.refuted;
        break;
      case Verdict::not_measurable:
        ++n.not_measurable;
        break;
      case Verdict::about_other_card:
        ++n.about_other_card;
        break;
    }
  }
  return n;
}

// "Of the 124 claims, 98 speak of this card ... and 26 of another card."
std::string subjects_sentence(const report::ClaimsTally& n) {
  return "Of the " + std::to_string(n.claims) + " claims, " + std::to_string(n.of_this_card) +
         " speak of this card (by its name, its architecture, or of any card) and " +
         std::to_string(n.of_other_card) + " of another card.";
}

// How many claims of the catalogue speak of `running` (their card, their architecture or any
// card) and how many of another card.
void count_subjects(report::ClaimsTally& n, const RunningCard& running) {
  n.claims = static_cast<int>(catalogue().size());
  for (const Claim& c : catalogue()) {
    if (c.subject.covers(running))
      ++n.of_this_card;
    else
      ++n.of_other_card;
  }
}

}  // namespace

report::ClaimsTally tally(const std::vector<report::Section>& sections,
                          const std::optional<RunningCard>& running) {
  report::ClaimsTally n = count(gather(sections, {}, running));
  if (running) count_subjects(n, *running);
  return n;
}

report::Section claims_section(const std::vector<report::Section>& sections,
                               const std::string& run_note,
                               const std::optional<RunningCard>& running) {
  report::Table t;
  t.id = "claims";
  t.title = "Every claim: claimed, measured on this card, verdict";
  t.columns = {{"claim", "", kIdKey},
               {"source", "", "source"},
               {"claimed", "", "claim"},
               {"checked by", "", "checked_by"},
               {"measured on this card", "", "measured"},
               {"verdict", "", "verdict"},
               {"band", "", "band"},
               {"detail", "", "detail"}};
  const std::vector<Row> rows = gather(sections, run_note, running);
  for (const Row& r : rows)
    t.rows.push_back({Value::str(std::string(name(r.claim->id))), Value::str(r.claim->source),
                      Value::str(r.claim->text), Value::str(r.checker), Value::str(r.measured),
                      Value::str(std::string(to_string(r.verdict)) +
                                 (judged_from_properties(r) ? " (device properties)" : "")),
                      Value::str(band_text(*r.claim)), Value::str(r.detail)});
  report::ClaimsTally n = count(rows);
  if (running) count_subjects(n, *running);

  report::Section s;
  s.id = "claims";
  s.title = "Claims: the source texts' figures on this card";
  s.paragraphs.push_back(
      "Every numeric claim of the five source texts (and the few goals memhier sets itself), one "
      "row per check: the claim and its source (the text's title and section), what checked it, "
      "what this card measured and the verdict. The catalogue is docs/claims.md (memhier claims "
      "--markdown); each probe and ladder section below keeps its own table of the claims it "
      "checks.");
  s.paragraphs.push_back(
      "Reproduced: the measurement lies within the claim's band (the band column; the catalogue "
      "states each with its reason): ratios and fractions ±25 % by default, a gain under 2x "
      "within a factor 2 on the gain, a wider band only with a stated reason; the detail gives "
      "the band in the claim's units. Refuted: outside it (a probe's 'differs' counts as "
      "refuted). Not "
      "measurable here: the run lacks what the check needs, or nothing here can measure the "
      "claim; the detail says why.");
  std::string counts = std::to_string(catalogue().size()) + " claims, " +
                       std::to_string(t.rows.size()) + " rows: " + std::to_string(n.reproduced) +
                       " reproduced, " + std::to_string(n.refuted) + " refuted, " +
                       std::to_string(n.not_measurable) + " not measurable here";
  // Shown only when present, so a run on the cards the claims speak of reads as before.
  if (n.about_other_card > 0)
    counts += ", " + std::to_string(n.about_other_card) +
              " about another card (an absolute figure of the card the claim names)";
  if (n.from_properties > 0)
    counts += ", " + std::to_string(n.from_properties) +
              " judged from the device's properties rather than measured";
  s.paragraphs.push_back(counts + ".");
  if (running)
    s.paragraphs.push_back(
        subjects_sentence(n) +
        " A claim about another card is judged here only as a ratio, or as a share of this "
        "card's datasheet peak where it states a share of its own card's; its absolute "
        "figures are neither reproduced nor refuted.");
  s.tables.push_back(std::move(t));

  report::Chart chart;
  chart.id = "claims-verdicts";
  chart.title = "Verdicts over all checks";
  chart.kind = report::Chart::Kind::bar;
  chart.x_label = "verdict";
  chart.y_label = "checks";
  chart.categories = {"reproduced", "refuted", "not measurable here"};
  std::vector<double> y = {double(n.reproduced), double(n.refuted), double(n.not_measurable)};
  if (n.about_other_card > 0) {
    chart.categories.push_back(to_string(Verdict::about_other_card));
    y.push_back(n.about_other_card);
  }
  if (n.from_properties > 0) {
    chart.categories.push_back("from device properties");
    y.push_back(n.from_properties);
  }
  chart.series.push_back({"checks", {}, std::move(y)});
  s.charts.push_back(std::move(chart));
  return s;
}

report::Table catalogue_table() {
  report::Table t;
  t.id = "claims-catalogue";
  t.title = "Claims catalogue";
  t.columns = {{"claim", "", kIdKey},       {"source", "", "source"},
               {"claim text", "", "claim"}, {"checked by", "", "checked_by"},
               {"band", "", "band"},        {"why this band", "", "band_reason"}};
  for (const Claim& c : catalogue())
    t.rows.push_back({Value::str(std::string(name(c.id))), Value::str(c.source), Value::str(c.text),
                      Value::str(c.checked_by.empty() ? "not measurable here: " + c.unmeasured
                                                      : checkers_text(c)),
                      Value::str(band_text(c)), Value::str(c.band_reason)});
  return t;
}

std::string catalogue_markdown() {
  int by_probe = 0, by_bench = 0, none = 0;
  for (const Claim& c : catalogue()) {
    const auto is_bench = [](const Checker& ch) { return ch.kind == Checker::Kind::bench; };
    const bool bench = std::any_of(c.checked_by.begin(), c.checked_by.end(), is_bench);
    const bool probe = !std::all_of(c.checked_by.begin(), c.checked_by.end(), is_bench);
    by_probe += probe;
    by_bench += bench;
    none += c.checked_by.empty();
  }
  std::string out;
  out += "# Claims catalogue\n\n";
  out +=
      "<!-- Generated by `memhier claims --markdown` (scripts/gen-claims.sh); do not edit. A test "
      "fails when this file differs from the command's output. -->\n\n";
  out +=
      "Every numeric claim of the five source texts memhier was built from (each cited by its "
      "title and the section the figure sits under), with a stable id and what in memhier "
      "checks it on the card it runs on. Probes and ladders refer to these ids; `memhier report` "
      "gathers their checks into its Claims section: claimed, measured on this card, verdict. "
      "The ids are `include/memhier/results/claim_ids.inc`, the data `src/claims/catalogue.cpp`; "
      "each claim names the card it speaks of (`src/claims/subjects.cpp`).\n\n";
  out += std::to_string(catalogue().size()) + " claims: " + std::to_string(by_probe) +
         " checked by probes, " + std::to_string(by_bench) + " by the ladders, " +
         std::to_string(none) + " not measurable here.\n\n";
  out += "## Verdicts\n\n";
  out +=
      "- **reproduced**: the measurement lies within the claim's band, stated below beside the "
      "claim with its reason, and used by every check of it. A ratio or fraction is ±25 % by "
      "default; a claimed gain under 2x (1.25x) is judged on the gain, half to twice it "
      "(1.125x..1.5x), since ±25 % would admit a slowdown; a wider band says why.\n";
  out += "- **refuted**: outside the tolerance (a probe's \"differs\" counts as refuted).\n";
  out +=
      "- **not measurable here**: the run lacks what the check needs (no GPU, `--quick` shapes "
      "other than the texts', a variant that did not verify), or nothing in memhier can measure "
      "the claim; the reason is given.\n";
  out +=
      "- **about another card**: an absolute figure (a bandwidth, a size, a latency of the "
      "memory system) of the card the claim names, on a run on another card: neither "
      "reproduced nor refuted. A figure of the SM (a latency in cycles, shared memory per SM) "
      "names its architecture and holds on every card of it (the H100 and the H200 are both "
      "sm_90).\n";
  out +=
      "- A share of a card's peak (\"13% of the V100's 900 GB/s\") is judged as a share of the "
      "running card's datasheet peak (2 x memory clock x bus width), the row naming both "
      "peaks; a ratio is judged on any card.\n";
  out +=
      "- A verdict taken from the device's properties rather than a measurement says so, and the "
      "tally counts it apart.\n\n";
  out += "## Sources\n\n| source | what it covers |\n| :--- | :--- |\n";
  for (const Seed& s : seeds()) out += "| " + md_cell(s.title) + " | " + md_cell(s.covers) + " |\n";
  out +=
      "| memhier goal | what memhier promises of itself (its copy kernel, its models), stated "
      "as the goal |\n"
      "| published figures | figures published elsewhere that a probe compares as well |\n\n";
  out +=
      "## Claims\n\n| id | source | claim | about | checked by | band | why this band |\n"
      "| :--- | :--- | :--- | :--- | :--- | :--- | :--- |\n";
  for (const Claim& c : catalogue()) {
    std::vector<std::string> checkers;
    for (const Checker& ch : c.checked_by)
      checkers.push_back(std::string(ch.kind_name()) + " `" + ch.which + "`");
    const std::string about =
        c.subject.describe() + (c.subject.figure == Subject::Figure::absolute ? ", its own figure"
                                : c.subject.figure == Subject::Figure::share_of_peak
                                    ? ", a share of its peak"
                                    : "");
    out += "| `" + std::string(name(c.id)) + "` | " + md_cell(c.source) + " | " + md_cell(c.text) +
           " | " + md_cell(about) + " | " +
           (checkers.empty() ? "not measurable here: " + md_cell(c.unmeasured)
                             : join(checkers, ", ")) +
           " | " + md_cell(band_text(c)) + " | " + md_cell(c.band_reason) + " |\n";
  }
  return out;
}

}  // namespace memhier::claims
