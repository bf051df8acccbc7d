// Plain-text rendering for a terminal: ASCII boxes so it survives any font, pager or log file.
#include <algorithm>

#include "common.hpp"
#include "memhier/report/writers.hpp"

namespace memhier::report {

namespace {

constexpr std::size_t kWrapWidth = 80;

std::string pad(const std::string& s, std::size_t width, bool right_align) {
  const std::size_t w = detail::text_width(s);
  const std::string fill(width > w ? width - w : 0, ' ');
  return right_align ? fill + s : s + fill;
}

std::string rule(const std::vector<std::size_t>& widths) {
  std::string out = "+";
  for (std::size_t w : widths) out += std::string(w + 2, '-') + "+";
  return out + "\n";
}

// Greedy word wrap by code points; a word longer than the width keeps its own line.
std::string wrap(const std::string& text, std::size_t width, const std::string& indent = {}) {
  std::string out;
  std::string line;
  std::size_t line_w = 0;
  std::size_t pos = 0;
  const std::string flat = detail::one_line(text);
  while (pos < flat.size()) {
    const std::size_t start = flat.find_first_not_of(' ', pos);
    if (start == std::string::npos) break;
    std::size_t end = flat.find(' ', start);
    if (end == std::string::npos) end = flat.size();
    const std::string word = flat.substr(start, end - start);
    const std::size_t ww = detail::text_width(word);
    if (line_w != 0 && line_w + 1 + ww > width) {
      out += indent + line + "\n";
      line.clear();
      line_w = 0;
    }
    if (line_w != 0) {
      line.push_back(' ');
      ++line_w;
    }
    line += word;
    line_w += ww;
    pos = end;
  }
  if (line_w != 0) out += indent + line + "\n";
  return out;
}

}  // namespace

std::string to_terminal(const Table& t) {
  std::string out;
  if (!t.title.empty()) out += detail::one_line(t.title) + "\n";
  if (!t.caption.empty()) out += wrap(t.caption, kWrapWidth);
  const std::vector<std::size_t> shown = detail::shown_columns(t);
  const std::size_t ncols = shown.size();
  if (ncols != 0) {
    std::vector<std::string> header(ncols);
    std::vector<std::vector<std::string>> body(t.rows.size(), std::vector<std::string>(ncols));
    std::vector<bool> numeric(ncols);
    std::vector<std::size_t> widths(ncols);
    for (std::size_t c = 0; c < ncols; ++c) {
      header[c] = detail::one_line(detail::header_label(t.columns[shown[c]]));
      numeric[c] = detail::numeric_column(t, shown[c]);
      widths[c] = detail::text_width(header[c]);
      for (std::size_t r = 0; r < t.rows.size(); ++r) {
        body[r][c] = detail::one_line(detail::cell(t, r, shown[c]).display());
        widths[c] = std::max(widths[c], detail::text_width(body[r][c]));
      }
    }
    out += rule(widths);
    out += "|";
    for (std::size_t c = 0; c < ncols; ++c)
      out += " " + pad(header[c], widths[c], numeric[c]) + " |";
    out += "\n" + rule(widths);
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
      out += "|";
      for (std::size_t c = 0; c < ncols; ++c) {
        // Numbers right-aligned so digits line up; text (and "n/a") by the cell's own kind.
        const bool right = detail::cell(t, r, shown[c]).kind == Value::Kind::number;
        out += " " + pad(body[r][c], widths[c], right) + " |";
      }
      out += "\n";
    }
    if (!t.rows.empty()) out += rule(widths);
  }
  for (const std::string& note : t.notes) out += wrap("* " + note, kWrapWidth);
  return out;
}

std::string to_terminal(const Document& doc, Edition e) {
  const Document d = for_reading(doc);
  std::string out;
  const std::string title = detail::one_line(d.title.empty() ? "memhier report" : d.title);
  out += title + "\n" + std::string(detail::text_width(title), '=') + "\n";
  const auto meta = detail::meta_fields(d.meta);
  std::size_t label_w = 0;
  for (const auto& [label, value] : meta) label_w = std::max(label_w, label.size());
  for (const auto& [label, value] : meta) {
    out += pad(label, label_w, false) + "  " + detail::one_line(value) + "\n";
  }
  for (const Section& s : d.sections) {
    const std::string stitle = detail::one_line(s.title);
    out += "\n" + stitle + "\n" + std::string(detail::text_width(stitle), '-') + "\n";
    std::string paragraphs;
    for (const std::string& p : s.paragraphs) paragraphs += wrap(p, kWrapWidth) + "\n";
    std::string charts;
    for (const Chart& c : s.charts) {
      charts += "Chart: " + detail::one_line(c.title) + " (drawn in the HTML report)\n\n";
    }
    out += s.charts_first ? charts + paragraphs : paragraphs;
    // The long tables are named in one line (a terminal draws no chart, so a table beside one
    // stays): the HTML report, or --full, holds them.
    std::string left_out;
    for (const Table& t : s.tables) {
      if (e.full || t.rows.size() <= detail::kTerminalRows) {
        out += to_terminal(t) + "\n";
        continue;
      }
      left_out += (left_out.empty() ? "" : "; ") + detail::one_line(t.title) + " (" +
                  std::to_string(t.rows.size()) + " rows)";
    }
    if (!left_out.empty())
      out += wrap("Tables in the HTML report (or with --full): " + left_out + ".", kWrapWidth) +
             "\n";
    if (!s.charts_first) out += charts;
  }
  return detail::tidy_blank_lines(out);
}

}  // namespace memhier::report
