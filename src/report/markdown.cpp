// GitHub-flavoured Markdown of a document: the same content as the HTML, minus the drawings.
#include <algorithm>

#include "common.hpp"
#include "memhier/report/writers.hpp"

namespace memhier::report {

namespace {

// The HTML report the Markdown points to for charts (the CLI writes both side by side).
constexpr const char* kHtmlFile = "index.html";

// Backslash-escape what GFM would read as markup (emphasis, links, raw HTML, table cells);
// `block_start`: the text opens a block, where "#", "-" or "1." would start a heading or list.
std::string md_escape(const std::string& raw, bool block_start = true) {
  std::string s = detail::one_line(raw);
  const std::size_t first = s.find_first_not_of(' ');
  s.erase(0, first == std::string::npos ? s.size() : first);  // leading spaces make code blocks
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    if (std::string_view("\\`*_[]<>|&~").find(ch) != std::string_view::npos) {
      out.push_back('\\');
    } else if (block_start && i == 0 &&
               std::string_view("#+-=").find(ch) != std::string_view::npos) {
      out.push_back('\\');  // would start a heading or a list
    }
    out.push_back(ch);
  }
  const std::size_t digits = out.find_first_not_of("0123456789");
  if (block_start && digits != 0 && digits != std::string::npos &&
      (out[digits] == '.' || out[digits] == ')')) {
    out.insert(digits, "\\");
  }
  return out;
}

// A code span that survives backticks inside: the fence is one longer than any run in it.
std::string md_code(const std::string& raw) {
  const std::string s = detail::one_line(raw);
  std::size_t longest = 0;
  std::size_t run = 0;
  for (char ch : s) {
    run = ch == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  const bool spaced = !s.empty() && (s.front() == '`' || s.back() == '`');
  return fence + (spaced ? " " + s + " " : s) + fence;
}

std::string md_table(const Table& t, const std::string& id, bool folded) {
  std::string out;
  // GitHub renders <details> in Markdown: a folded table opens by its name, as in the HTML.
  if (folded)
    out += "<details><summary>Table: " + detail::xml_escape(t.title.empty() ? id : t.title) +
           " (" + std::to_string(t.rows.size()) + (t.rows.size() == 1 ? " row" : " rows") +
           ")</summary>\n\n";
  else
    out += "### " + md_escape(t.title.empty() ? id : t.title, false) + "\n\n";
  if (!t.caption.empty()) out += md_escape(t.caption) + "\n\n";
  const std::vector<std::size_t> shown = detail::shown_columns(t);
  if (!shown.empty()) {
    out += "|";
    for (std::size_t c : shown)
      out += " " + md_escape(detail::header_label(t.columns[c]), false) + " |";
    out += "\n|";
    for (std::size_t c : shown) out += detail::numeric_column(t, c) ? " ---: |" : " :--- |";
    out += "\n";
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
      out += "|";
      for (std::size_t c : shown) {
        const std::string text = md_escape(detail::cell(t, r, c).display(), false);
        out += text.empty() ? " |" : " " + text + " |";
      }
      out += "\n";
    }
    out += "\n";
  }
  for (const std::string& note : t.notes) out += "- " + md_escape(note) + "\n";
  if (!t.notes.empty()) out += "\n";
  if (folded) out += "</details>\n\n";
  return out;
}

}  // namespace

std::string to_markdown(const Document& doc, Edition e) {
  const Document d = for_reading(doc);
  const detail::DocumentIds ids = detail::assign_ids(d);
  std::string out = "# " + md_escape(d.title.empty() ? "memhier report" : d.title, false) + "\n\n";
  for (const auto& [label, value] : detail::meta_fields(d.meta)) {
    const bool code = label == "Command" || label == "Commit";
    out += "- **" + label + ":** " + (code ? md_code(value) : md_escape(value, false)) + "\n";
  }
  for (std::size_t s = 0; s < d.sections.size(); ++s) {
    const Section& sec = d.sections[s];
    out += "\n## " + md_escape(sec.title.empty() ? ids.sections[s] : sec.title, false) + "\n\n";
    std::string paragraphs;
    for (const std::string& p : sec.paragraphs) paragraphs += md_escape(p) + "\n\n";
    std::string charts;
    for (std::size_t c = 0; c < sec.charts.size(); ++c) {
      // Markdown cannot carry inline SVG portably: link to the chart in the HTML report.
      const Chart& chart = sec.charts[c];
      charts += "Chart: [" +
                md_escape(chart.title.empty() ? ids.charts[s][c] : chart.title, false) + "](" +
                kHtmlFile + "#" + ids.charts[s][c] + ") (drawn in the HTML report)\n\n";
    }
    out += sec.charts_first ? charts + paragraphs : paragraphs;
    for (std::size_t t = 0; t < sec.tables.size(); ++t)
      out += md_table(sec.tables[t], ids.tables[s][t], detail::folded(sec, t, e));
    if (!sec.charts_first) out += charts;
  }
  return detail::tidy_blank_lines(out);
}

}  // namespace memhier::report
