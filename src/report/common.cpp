// Shared helpers of the report writers: escaping, keys, ids, locale-free number text.
#include "common.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <set>

namespace memhier::report::detail {

namespace {

bool is_lower_alnum(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
}

char ascii_lower(char ch) {
  return (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch - 'A' + 'a') : ch;
}

// First unused of base, base<sep>2, base<sep>3, ...; records the result as used.
std::string make_unique(std::string base, std::set<std::string>& used, char sep) {
  std::string candidate = base;
  for (int n = 2; used.count(candidate) != 0; ++n) candidate = base + sep + std::to_string(n);
  used.insert(candidate);
  return candidate;
}

}  // namespace

std::string slug(std::string_view s, char sep, std::string_view keep) {
  std::string out;
  bool pending_sep = false;
  for (char raw : s) {
    const char ch = ascii_lower(raw);
    if (ch != sep && (is_lower_alnum(ch) || keep.find(ch) != std::string_view::npos)) {
      if (pending_sep && !out.empty()) out.push_back(sep);
      pending_sep = false;
      out.push_back(ch);
    } else {
      pending_sep = true;
    }
  }
  return out;
}

std::vector<std::string> column_keys(const Table& t) {
  std::vector<std::string> keys;
  std::set<std::string> used;
  for (std::size_t i = 0; i < t.columns.size(); ++i) {
    const Column& c = t.columns[i];
    std::string base = c.key.empty() ? slug(c.name, '_') : c.key;
    if (base.empty()) base = "col_" + std::to_string(i + 1);
    keys.push_back(make_unique(base, used, '_'));
  }
  return keys;
}

Table split_spreads(const Table& t) {
  const std::vector<std::string> keys = column_keys(t);
  Table out = t;
  out.columns.clear();
  for (auto& row : out.rows) row.clear();
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    bool spread = false;
    for (std::size_t r = 0; r < t.rows.size(); ++r) spread = spread || cell(t, r, c).has_spread();
    out.columns.push_back({t.columns[c].name, t.columns[c].unit, keys[c]});
    if (spread) {
      out.columns.push_back({t.columns[c].name + " p10", t.columns[c].unit, keys[c] + "_p10"});
      out.columns.push_back({t.columns[c].name + " p90", t.columns[c].unit, keys[c] + "_p90"});
    }
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
      Value v = cell(t, r, c);
      if (!spread) {
        out.rows[r].push_back(v);
        continue;
      }
      const bool has = v.has_spread();
      const Value lo = has ? Value::num(v.p10, v.precision) : Value::none();
      const Value hi = has ? Value::num(v.p90, v.precision) : Value::none();
      v.p10 = v.p90 = std::numeric_limits<double>::quiet_NaN();  // now in their own columns
      out.rows[r].insert(out.rows[r].end(), {v, lo, hi});
    }
  }
  return out;
}

std::string header_label(const Column& c) {
  return c.unit.empty() ? c.name : c.name + " (" + c.unit + ")";
}

const Value& cell(const Table& t, std::size_t row, std::size_t col) {
  static const Value empty_cell;
  if (row >= t.rows.size() || col >= t.rows[row].size()) return empty_cell;
  return t.rows[row][col];
}

bool numeric_column(const Table& t, std::size_t col) {
  bool any_number = false;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const Value& v = cell(t, r, col);
    if (v.kind == Value::Kind::text) return false;
    if (v.kind == Value::Kind::number) any_number = true;
  }
  return any_number;
}

std::vector<std::size_t> shown_columns(const Table& t) {
  std::vector<std::size_t> out;
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    bool any = t.rows.empty();
    for (std::size_t r = 0; r < t.rows.size() && !any; ++r)
      any = cell(t, r, c).kind != Value::Kind::empty;
    if (any) out.push_back(c);
  }
  return out;
}

std::string format_full(double v) {
  if (!std::isfinite(v)) return "";
  if (v == 0.0) return "0";  // also folds -0 into 0
  // Integers below 2^53 are exact: print every digit rather than an exponent.
  if (std::fabs(v) < 9007199254740992.0 && v == std::trunc(v)) return fmt::format("{:.0f}", v);
  return fmt::format("{}", v);  // shortest text that round-trips
}

std::string format_fixed(double v, int decimals) {
  std::string s = fmt::format("{:.{}f}", v, decimals);
  // "-0.00" reads as a sign error in a table: a value that rounds to zero has no sign.
  if (!s.empty() && s[0] == '-' && s.find_first_not_of("0.", 1) == std::string::npos) s.erase(0, 1);
  return s;
}

int reading_decimals(double v) {
  const double a = std::fabs(v);
  if (!std::isfinite(a) || a == 0.0 || a >= 100.0) return 0;
  return std::clamp(2 - static_cast<int>(std::floor(std::log10(a))), 0, 9);
}

std::string format_reading(double v) {
  if (!std::isfinite(v)) return "";
  return format_fixed(v, reading_decimals(v));
}

std::string utf8_valid(std::string_view s) {
  static const char kReplacement[] = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    std::size_t len = 0;
    std::uint32_t cp = 0;
    if (b0 < 0x80) {
      len = 1;
      cp = b0;
    } else if (b0 >= 0xC2 && b0 <= 0xDF) {
      len = 2;
      cp = b0 & 0x1Fu;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      len = 3;
      cp = b0 & 0x0Fu;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      len = 4;
      cp = b0 & 0x07u;
    }
    bool ok = len != 0 && i + len <= s.size();
    for (std::size_t k = 1; ok && k < len; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      ok = (b & 0xC0u) == 0x80u;
      cp = (cp << 6) | (b & 0x3Fu);
    }
    // Reject overlong forms, UTF-16 surrogates and code points past U+10FFFF.
    if (ok && ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
               (cp >= 0xD800 && cp <= 0xDFFF))) {
      ok = false;
    }
    if (ok) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out += kReplacement;
      ++i;
    }
  }
  return out;
}

std::string svg_px(double v) {
  std::string s = format_fixed(std::isfinite(v) ? v : 0.0, 1);
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

std::string svg_open(const Chart& c, bool standalone, double height) {
  static constexpr const char* kFont =
      "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";
  std::string out;
  fmt::format_to(std::back_inserter(out),
                 "<svg{} viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" role=\"img\" "
                 "font-family=\"{}\">\n",
                 standalone ? " xmlns=\"http://www.w3.org/2000/svg\"" : "", kSvgWidth,
                 svg_px(height), kSvgWidth, svg_px(height), kFont);
  out += "<title>" + xml_escape(c.title) + "</title>\n";
  fmt::format_to(std::back_inserter(out), "<rect width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n",
                 kSvgWidth, svg_px(height));
  // The title fits the drawing: a long one is set smaller, and one still too long at the
  // smallest size is squeezed to the width (0.62 em a bold character: a generous estimate).
  constexpr double kRoom = kSvgWidth - 24;
  const double chars = static_cast<double>(text_width(c.title));
  const double size = std::clamp(kRoom / (chars * 0.62), 11.0, 16.0);
  const std::string squeeze =
      chars * size * 0.62 > kRoom
          ? fmt::format(" textLength=\"{}\" lengthAdjust=\"spacingAndGlyphs\"", svg_px(kRoom))
          : std::string();
  fmt::format_to(std::back_inserter(out),
                 "<text x=\"{}\" y=\"26\" text-anchor=\"middle\" font-size=\"{}\" "
                 "font-weight=\"600\" fill=\"#111\"{}>{}</text>\n",
                 kSvgWidth / 2, svg_px(size), squeeze, xml_escape(c.title));
  return out;
}

std::string xml_escape(std::string_view raw) {
  const std::string s = utf8_valid(raw);
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        // XML 1.0 forbids most C0 controls even as references; a space keeps words apart.
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') {
          out.push_back(' ');
        } else {
          out.push_back(ch);
        }
    }
  }
  return out;
}

std::size_t text_width(std::string_view s) {
  std::size_t n = 0;
  for (char ch : s) {
    if ((static_cast<unsigned char>(ch) & 0xC0u) != 0x80u) ++n;  // skip continuation bytes
  }
  return n;
}

std::string one_line(std::string_view s) {
  std::string out(s);
  for (char& ch : out) {
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7F) ch = ' ';
  }
  return out;
}

std::string tidy_blank_lines(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 1);
  std::size_t newlines = 0;
  for (char ch : s) {
    newlines = ch == '\n' ? newlines + 1 : 0;
    if (newlines <= 2) out.push_back(ch);
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out + "\n";
}

std::vector<std::pair<std::string, std::string>> meta_fields(const Meta& m) {
  std::vector<std::pair<std::string, std::string>> out;
  const auto add = [&out](const char* label, const std::string& value) {
    if (!value.empty()) out.emplace_back(label, value);
  };
  add("Command", m.command);
  add("Date (UTC)", m.date_utc);
  add("Host", m.host);
  add("Toolkit", m.toolkit);
  add("Driver",
      m.driver_release.empty() ? m.driver : m.driver_release + " (CUDA " + m.driver + ")");
  add("Device", m.device);
  add("Commit", m.git_commit);
  std::string tool = m.tool;
  if (!m.version.empty()) tool += tool.empty() ? m.version : " " + m.version;
  add("Tool", tool);
  return out;
}

DocumentIds assign_ids(const Document& d) {
  DocumentIds ids;
  std::set<std::string> used;
  // Ids keep '_' and '-' so a given id like "l2_latency" survives as the anchor.
  const auto id_for = [&used](const std::string& id, const std::string& title,
                              const std::string& fallback) {
    std::string base = slug(id.empty() ? title : id, '-', "_-");
    if (base.empty()) base = fallback;
    return make_unique(base, used, '-');
  };
  int n_tables = 0;
  int n_charts = 0;
  for (std::size_t s = 0; s < d.sections.size(); ++s) {
    const Section& sec = d.sections[s];
    ids.sections.push_back(id_for(sec.id, sec.title, "section-" + std::to_string(s + 1)));
    auto& tables = ids.tables.emplace_back();
    for (const Table& t : sec.tables) {
      tables.push_back(id_for(t.id, t.title, "table-" + std::to_string(++n_tables)));
    }
    auto& charts = ids.charts.emplace_back();
    for (const Chart& c : sec.charts) {
      charts.push_back(id_for(c.id, c.title, "chart-" + std::to_string(++n_charts)));
    }
  }
  return ids;
}

}  // namespace memhier::report::detail
