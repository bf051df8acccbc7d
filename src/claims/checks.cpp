// Claims tables, the report's Claims section and the catalogue's own renderings.
#include <algorithm>
#include <stdexcept>

#include "memhier/claims/catalogue.hpp"
#include "memhier/claims/judge.hpp"

namespace memhier::claims {
namespace {

using report::Value;

constexpr const char* kTableSuffix = "-claims";
constexpr const char* kIdKey = "claim_id";

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

std::string checkers_text(const Claim& c) {
  std::vector<std::string> names;
  for (const std::string& ch : c.checked_by) names.push_back(describe_checker(ch));
  return join(names, ", ");
}

std::string text_at(const std::vector<Value>& row, int col) {
  return col >= 0 && static_cast<std::size_t>(col) < row.size()
             ? row[static_cast<std::size_t>(col)].display()
             : std::string();
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

}  // namespace

Verdict classify(const std::string& verdict) {
  if (starts_with(verdict, "reproduced")) return Verdict::reproduced;
  if (starts_with(verdict, "not measurable here")) return Verdict::not_measurable;
  return Verdict::refuted;
}

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::reproduced:
      return "reproduced";
    case Verdict::refuted:
      return "refuted";
    case Verdict::not_measurable:
      return "not measurable here";
  }
  return "refuted";
}

namespace {

// The band column's text for a claim: the catalogue's band, or "n/a" when unmeasured.
std::string band_text(const Claim& c) {
  return c.checked_by.empty() ? "n/a" : describe_band(c.band);
}

}  // namespace

std::string describe_checker(const std::string& checker) {
  if (starts_with(checker, "bench-")) return "bench " + checker.substr(6);
  if (starts_with(checker, "profile-")) return "profile " + checker.substr(8);
  if (starts_with(checker, "report-")) return "report " + checker.substr(7);
  return "probe " + checker;
}

report::Table checks_table(const std::string& owner, const std::vector<Check>& checks) {
  report::Table t;
  t.id = owner + kTableSuffix;
  t.title = "Claims against this card";
  t.columns = {{"claim", "", kIdKey},      {"source", "", "source"},
               {"claimed", "", "claim"},   {"measured here", "", "measured"},
               {"verdict", "", "verdict"}, {"band", "", "band"}};
  for (const Check& c : checks) {
    const Claim* claim = find(c.id.c_str());
    if (!claim)  // a wiring error: the CPU tests catch it before any run
      throw std::logic_error(std::string("claims: '") + c.id.c_str() + "' (checked by " + owner +
                             ") is not in the catalogue, src/claims/catalogue.cpp.");
    t.rows.push_back({Value::str(claim->id), Value::str(claim->source), Value::str(claim->text),
                      Value::str(c.measured), Value::str(c.verdict),
                      Value::str(band_text(*claim))});
  }
  return t;
}

std::vector<Finding> findings(const std::vector<report::Section>& sections) {
  std::vector<Finding> out;
  for (const report::Section& s : sections)
    for (const report::Table& t : s.tables) {
      if (!ends_with(t.id, kTableSuffix)) continue;
      const int id = t.column(kIdKey), measured = t.column("measured"),
                verdict = t.column("verdict");
      if (id < 0 || verdict < 0) continue;  // an older claims table without ids
      const std::string owner = t.id.substr(0, t.id.size() - std::string(kTableSuffix).size());
      for (const std::vector<Value>& row : t.rows)
        out.push_back({text_at(row, id), owner, text_at(row, measured), text_at(row, verdict)});
    }
  return out;
}

namespace {

// One row of the Claims section: a claim with one check of it (or none).
struct Row {
  const Claim* claim;
  std::string checker, measured;
  Verdict verdict;
  std::string detail;
};

std::vector<Row> gather(const std::vector<report::Section>& sections, const std::string& run_note) {
  const std::vector<Finding> found = findings(sections);
  std::vector<Row> rows;
  for (const Claim& c : catalogue()) {
    bool any = false;
    for (const Finding& f : found) {
      if (f.id != c.id) continue;
      any = true;
      rows.push_back({&c, describe_checker(f.checker), f.measured, classify(f.verdict), f.verdict});
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

}  // namespace

report::ClaimsTally tally(const std::vector<report::Section>& sections) {
  report::ClaimsTally n;
  for (const Row& r : gather(sections, {})) {
    if (r.verdict == Verdict::reproduced) ++n.reproduced;
    if (r.verdict == Verdict::refuted) ++n.refuted;
    if (r.verdict == Verdict::not_measurable) ++n.not_measurable;
  }
  return n;
}

report::Section claims_section(const std::vector<report::Section>& sections,
                               const std::string& run_note) {
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
  int counts[3] = {0, 0, 0};
  for (const Row& r : gather(sections, run_note)) {
    ++counts[static_cast<int>(r.verdict)];
    t.rows.push_back({Value::str(r.claim->id), Value::str(r.claim->source),
                      Value::str(r.claim->text), Value::str(r.checker), Value::str(r.measured),
                      Value::str(to_string(r.verdict)), Value::str(band_text(*r.claim)),
                      Value::str(r.detail)});
  }

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
  s.paragraphs.push_back(std::to_string(catalogue().size()) + " claims, " +
                         std::to_string(t.rows.size()) + " rows: " + std::to_string(counts[0]) +
                         " reproduced, " + std::to_string(counts[1]) + " refuted, " +
                         std::to_string(counts[2]) + " not measurable here.");
  s.tables.push_back(std::move(t));

  report::Chart chart;
  chart.id = "claims-verdicts";
  chart.title = "Verdicts over all checks";
  chart.kind = report::Chart::Kind::bar;
  chart.x_label = "verdict";
  chart.y_label = "checks";
  chart.categories = {"reproduced", "refuted", "not measurable here"};
  chart.series.push_back({"checks", {}, {double(counts[0]), double(counts[1]), double(counts[2])}});
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
    t.rows.push_back({Value::str(c.id), Value::str(c.source), Value::str(c.text),
                      Value::str(c.checked_by.empty() ? "not measurable here: " + c.unmeasured
                                                      : checkers_text(c)),
                      Value::str(band_text(c)), Value::str(c.band_reason)});
  return t;
}

std::string catalogue_markdown() {
  int by_probe = 0, by_bench = 0, none = 0;
  for (const Claim& c : catalogue()) {
    const bool bench = std::any_of(c.checked_by.begin(), c.checked_by.end(),
                                   [](const std::string& s) { return starts_with(s, "bench-"); });
    const bool probe = std::any_of(c.checked_by.begin(), c.checked_by.end(),
                                   [](const std::string& s) { return !starts_with(s, "bench-"); });
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
      "The data is `src/claims/catalogue.cpp`.\n\n";
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
      "the claim; the reason is given.\n\n";
  out += "## Sources\n\n| source | what it covers |\n| :--- | :--- |\n";
  for (const Seed& s : seeds()) out += "| " + md_cell(s.title) + " | " + md_cell(s.covers) + " |\n";
  out +=
      "| memhier goal | what memhier promises of itself (its copy kernel, its models), stated "
      "as the goal |\n"
      "| published figures | figures published elsewhere that a probe compares as well |\n\n";
  out +=
      "## Claims\n\n| id | source | claim | checked by | band | why this band |\n"
      "| :--- | :--- | :--- | :--- | :--- | :--- |\n";
  for (const Claim& c : catalogue()) {
    std::vector<std::string> checkers;
    for (const std::string& ch : c.checked_by) {
      const std::string d = describe_checker(ch);
      const std::size_t sp = d.find(' ');
      checkers.push_back(d.substr(0, sp) + " `" + d.substr(sp + 1) + "`");
    }
    out += "| `" + c.id + "` | " + md_cell(c.source) + " | " + md_cell(c.text) + " | " +
           (checkers.empty() ? "not measurable here: " + md_cell(c.unmeasured)
                             : join(checkers, ", ")) +
           " | " + md_cell(band_text(c)) + " | " + md_cell(c.band_reason) + " |\n";
  }
  return out;
}

}  // namespace memhier::claims
