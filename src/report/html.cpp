// One self-contained HTML5 page: inline CSS and inline SVG, nothing fetched from anywhere,
// so the file can be mailed, archived or opened offline and look the same.
#include <algorithm>
#include <cmath>

#include "common.hpp"
#include "memhier/report/writers.hpp"

namespace memhier::report {

namespace {

using detail::xml_escape;

constexpr const char* kStyle = R"css(
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #ffffff; color: #1f2328;
  font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
.page { max-width: 1400px; margin: 0 auto; padding: 16px 20px 48px; }
header { border-bottom: 1px solid #d0d7de; margin-bottom: 12px; }
h1 { font-size: 1.6em; line-height: 1.25; margin: 0.1em 0 0.4em; }
h2 { font-size: 1.35em; margin: 1.3em 0 0.5em; padding-bottom: 0.25em; border-bottom: 1px solid #eaeef2; }
h3 { font-size: 1.05em; margin: 1.4em 0 0.4em; }
section.summary h2 { margin-top: 0.6em; }
p.edition { color: #57606a; font-size: 0.9em; margin: 0 0 8px; max-width: none; }
p { margin: 0.5em 0 0.9em; max-width: 80ch; }
a { color: #0969da; text-decoration: none; }
a:hover { text-decoration: underline; }
code { font: 0.9em/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  background: #f6f8fa; padding: 1px 5px; border-radius: 4px; overflow-wrap: anywhere; }
/* Two label-value pairs a row on a wide screen: the summary then starts on the first screen. */
dl.meta { display: grid; grid-template-columns: max-content 1fr max-content 1fr; gap: 3px 18px;
  margin: 0 0 18px; font-size: 0.92em; }
dl.meta dt { color: #57606a; }
dl.meta dd { margin: 0; overflow-wrap: anywhere; }
nav.toc { background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 6px; padding: 10px 20px;
  margin: 0 0 8px; font-size: 0.95em; }
nav.toc summary { font-weight: 600; cursor: pointer; }
nav.toc ol { margin: 4px 0; padding-left: 22px; }
nav.toc ol ol { font-size: 0.95em; }
.block { margin: 0 0 26px; }
/* A section's folded tables: their names on a wrapping line; an opened one takes the width. */
.folded-tables { display: flex; flex-wrap: wrap; gap: 2px 22px; margin: 0 0 8px; }
.block.folded { margin: 0; max-width: 100%; }
.block.folded:has(> details[open]) { flex-basis: 100%; }
details.table { margin: 0; }
details.table > summary { cursor: pointer; color: #0969da; font-size: 0.95em; }
details.table > summary .rows { color: #57606a; }
details.table[open] > summary { margin-bottom: 6px; }
/* A table wider than its box scrolls sideways: its hint shows where the window is narrower
   than the table needs (a rule per table, at the end of this sheet; always when wider than
   the page can be). */
.scroll-hint { display: none; color: #9a6700; font-size: 0.85em; margin: 0 0 4px; }
.caption { color: #57606a; font-size: 0.92em; margin: 0.2em 0 0.6em; }
/* A wide or long table scrolls inside its own box, header kept in view, so both of its
   scrollbars are on screen and the page itself never scrolls sideways. */
.table-wrap { overflow: auto; max-height: 80vh; max-width: 100%; }
table { border-collapse: collapse; font-size: 0.92em; font-variant-numeric: tabular-nums; }
th, td { padding: 5px 12px; border-bottom: 1px solid #eaeef2; text-align: left; vertical-align: top; }
th { background: #f6f8fa; border-bottom: 2px solid #d0d7de; white-space: nowrap;
  position: sticky; top: 0; z-index: 1; }
th .unit { color: #57606a; font-weight: normal; }
tbody tr:nth-child(even) { background: #f6f8fa; }
tbody tr:hover { background: #eef4fb; }
.num { text-align: right; white-space: nowrap; }
td:not(.num) { max-width: 42ch; overflow-wrap: anywhere; }
.na { color: #8c959f; }
ul.notes { color: #57606a; font-size: 0.88em; margin: 0.6em 0 0; padding-left: 20px; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr));
  gap: 10px 24px; margin: 12px 0 22px; }
figure.chart { margin: 0; }
/* A section's text beside its one chart: half the height of one above the other. */
.beside { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 560px); gap: 0 28px;
  align-items: start; margin: 0 0 14px; }
.beside .charts { grid-template-columns: minmax(0, 1fr); margin: 4px 0 0; }
@media (max-width: 1100px) { .beside { grid-template-columns: minmax(0, 1fr); } }
figure.chart svg { display: block; width: 100%; max-width: 720px; height: auto;
  border: 1px solid #eaeef2; border-radius: 6px; }
footer { margin-top: 40px; padding-top: 10px; border-top: 1px solid #eaeef2; color: #8c959f;
  font-size: 0.85em; }
@media (max-width: 640px) { body { font-size: 14px; } .page { padding: 16px 12px 32px; }
  dl.meta { grid-template-columns: max-content 1fr; } }
@media print { nav.toc { display: none; } tbody tr:hover { background: none; }
  .table-wrap { max-height: none; overflow: visible; } }
)css";

std::string rows_text(const Table& t) {
  return std::to_string(t.rows.size()) + (t.rows.size() == 1 ? " row" : " rows");
}

// The narrowest the table can be drawn, in px at the page's table font (about 8 px a character,
// a little over the average): headers and numbers do not wrap, text cells wrap anywhere.
double min_table_px(const Table& t, const std::vector<std::size_t>& shown) {
  double px = 0;
  for (std::size_t c : shown) {
    std::size_t chars = detail::text_width(detail::header_label(t.columns[c])) + 1;
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
      const Value& v = detail::cell(t, r, c);
      if (v.kind == Value::Kind::number) chars = std::max(chars, detail::text_width(v.display()));
    }
    px += 8.3 * static_cast<double>(chars) + 26;  // and the cell's padding and border
  }
  return px;
}

// The page's widest content box (.page max-width less its padding).
constexpr double kPageContentPx = 1360;

std::string table_html(const Table& t, const std::string& id, bool folded, std::string& rules) {
  std::string out = std::string("<div class=\"block") + (folded ? " folded" : "") + "\" id=\"" +
                    xml_escape(id) + "\">\n";
  if (folded)
    out += "<details class=\"table\"><summary>Table: " +
           xml_escape(t.title.empty() ? id : t.title) + " <span class=\"rows\">(" +
           rows_text(t) + ")</span></summary>\n";
  else if (!t.title.empty())
    out += "<h3>" + xml_escape(t.title) + "</h3>\n";
  if (!t.caption.empty()) out += "<p class=\"caption\">" + xml_escape(t.caption) + "</p>\n";
  const std::vector<std::size_t> shown = detail::shown_columns(t);
  if (!shown.empty()) {
    std::vector<bool> numeric(t.columns.size());
    const double need = min_table_px(t, shown);
    if (need > kPageContentPx)
      rules += "#" + xml_escape(id) + " .scroll-hint { display: block; }\n";
    else
      rules += "@media (max-width: " + detail::svg_px(std::ceil(need + 40)) + "px) { #" +
               xml_escape(id) + " .scroll-hint { display: block; } }\n";
    out += "<p class=\"scroll-hint\">Wider than the page: scroll the table sideways for its "
           "other columns.</p>\n";
    out += "<div class=\"table-wrap\"><table>\n<thead><tr>";
    for (std::size_t c : shown) {
      numeric[c] = detail::numeric_column(t, c);
      const Column& col = t.columns[c];
      out += numeric[c] ? "<th class=\"num\">" : "<th>";
      out += xml_escape(col.name);
      if (!col.unit.empty()) out += " <span class=\"unit\">(" + xml_escape(col.unit) + ")</span>";
      out += "</th>";
    }
    out += "</tr></thead>\n<tbody>\n";
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
      out += "<tr>";
      for (std::size_t c : shown) {
        const Value& v = detail::cell(t, r, c);
        const char* cls = "";
        if (v.kind == Value::Kind::number) {
          cls = v.display() == "n/a" ? " class=\"num na\"" : " class=\"num\"";
        } else if (numeric[c]) {
          cls = " class=\"num\"";  // an empty cell in a numeric column lines up with its numbers
        }
        out += std::string("<td") + cls + ">" + xml_escape(v.display()) + "</td>";
      }
      out += "</tr>\n";
    }
    out += "</tbody>\n</table></div>\n";
  }
  if (!t.notes.empty()) {
    out += "<ul class=\"notes\">\n";
    for (const std::string& n : t.notes) out += "<li>" + xml_escape(n) + "</li>\n";
    out += "</ul>\n";
  }
  if (folded) out += "</details>\n";
  return out + "</div>\n";
}

std::string meta_html(const Meta& m) {
  const auto fields = detail::meta_fields(m);
  if (fields.empty()) return {};
  std::string out = "<dl class=\"meta\">\n";
  for (const auto& [label, value] : fields) {
    const bool code = label == "Command" || label == "Commit";
    const std::string v = xml_escape(value);
    out += "<dt>" + xml_escape(label) + "</dt><dd>" + (code ? "<code>" + v + "</code>" : v) +
           "</dd>\n";
  }
  return out + "</dl>\n";
}

std::string toc_html(const Document& d, const detail::DocumentIds& ids) {
  if (d.sections.empty()) return {};
  // Folded: the summary, not a list of every table, is what the first screen shows.
  std::string out = "<nav class=\"toc\"><details>\n<summary>Contents (" +
                    std::to_string(d.sections.size()) +
                    (d.sections.size() == 1 ? " section" : " sections") + ")</summary>\n<ol>\n";
  const auto link = [](const std::string& id, const std::string& text) {
    return "<a href=\"#" + xml_escape(id) + "\">" + xml_escape(text.empty() ? id : text) + "</a>";
  };
  for (std::size_t s = 0; s < d.sections.size(); ++s) {
    const Section& sec = d.sections[s];
    out += "<li>" + link(ids.sections[s], sec.title);
    if (!sec.tables.empty() || !sec.charts.empty()) {
      out += "\n<ol>\n";
      for (std::size_t t = 0; t < sec.tables.size(); ++t) {
        out += "<li>Table: " + link(ids.tables[s][t], sec.tables[t].title) + "</li>\n";
      }
      for (std::size_t c = 0; c < sec.charts.size(); ++c) {
        out += "<li>Chart: " + link(ids.charts[s][c], sec.charts[c].title) + "</li>\n";
      }
      out += "</ol>\n";
    }
    out += "</li>\n";
  }
  return out + "</ol>\n</details></nav>\n";
}

}  // namespace

std::string to_html(const Document& doc, Edition e) {
  const Document d = for_reading(doc);
  const detail::DocumentIds ids = detail::assign_ids(d);
  const std::string title = d.title.empty() ? "memhier report" : d.title;
  std::string rules;  // each table's scroll hint, from its width
  std::string out = "<div class=\"page\">\n";
  out += "<header>\n<h1>" + xml_escape(title) + "</h1>\n" + meta_html(d.meta) + "</header>\n";
  out += toc_html(d, ids);
  std::size_t folded_tables = 0;
  for (const Section& sec : d.sections)
    for (std::size_t t = 0; t < sec.tables.size(); ++t) folded_tables += detail::folded(sec, t, e);
  if (folded_tables > 0)
    out += "<p class=\"edition\">" + std::to_string(folded_tables) +
           (folded_tables == 1 ? " table is" : " tables are") +
           " folded: open one by its name. <code>memhier report --full</code> shows every table "
           "open.</p>\n";
  out += "<main>\n";
  for (std::size_t s = 0; s < d.sections.size(); ++s) {
    const Section& sec = d.sections[s];
    out += "<section id=\"" + xml_escape(ids.sections[s]) + "\"" +
           (sec.charts_first ? " class=\"summary\"" : "") + ">\n";
    out += "<h2>" + xml_escape(sec.title.empty() ? ids.sections[s] : sec.title) + "</h2>\n";
    std::string paragraphs;
    for (const std::string& p : sec.paragraphs) paragraphs += "<p>" + xml_escape(p) + "</p>\n";
    std::string charts;
    for (std::size_t c = 0; c < sec.charts.size(); ++c) {
      // Inline SVG in HTML5 needs no namespace, which keeps the page free of any URL.
      charts += "<figure class=\"chart\" id=\"" + xml_escape(ids.charts[s][c]) + "\">\n" +
                detail::svg_chart(sec.charts[c], false) + "</figure>\n";
    }
    if (!charts.empty()) charts = "<div class=\"charts\">\n" + charts + "</div>\n";
    // The open tables, then the folded ones as one wrapping line of names.
    std::string tables, folded;
    for (std::size_t t = 0; t < sec.tables.size(); ++t) {
      const bool fold = detail::folded(sec, t, e);
      (fold ? folded : tables) += table_html(sec.tables[t], ids.tables[s][t], fold, rules);
    }
    if (!folded.empty()) tables += "<div class=\"folded-tables\">\n" + folded + "</div>\n";
    if (sec.charts_first) {  // the summary's pictures first: they are what the first screen is for
      out += charts + paragraphs + tables;
    } else if (sec.charts.size() == 1) {  // the text beside its one chart, the tables below
      out += "<div class=\"beside\">\n<div class=\"text\">\n" + paragraphs + "</div>\n" + charts +
             "</div>\n" + tables;
    } else {
      out += paragraphs + tables + charts;
    }
    out += "</section>\n";
  }
  out += "</main>\n";
  std::string tool = d.meta.tool.empty() ? "memhier" : d.meta.tool;
  if (!d.meta.version.empty()) tool += " " + d.meta.version;
  out += "<footer>Generated by " + xml_escape(tool) + ".</footer>\n</div>\n";
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<title>" +
         xml_escape(title) + "</title>\n<style>" + kStyle + rules + "</style>\n</head>\n<body>\n" +
         out + "</body>\n</html>\n";
}

}  // namespace memhier::report
