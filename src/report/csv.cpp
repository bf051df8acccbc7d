// CSV (RFC 4180) of one table: numbers at full precision so the file is the data.
#include "common.hpp"
#include "memhier/report/writers.hpp"

namespace memhier::report {

namespace {

// Quote only where RFC 4180 requires it: a comma, a quote or a line break in the field.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"') out.push_back('"');
    out.push_back(ch);
  }
  out.push_back('"');
  return out;
}

std::string csv_value(const Value& v) {
  switch (v.kind) {
    case Value::Kind::empty:
      return {};
    case Value::Kind::text:
      return csv_field(v.text);
    case Value::Kind::number:
      return detail::format_full(v.number);  // non-finite: empty field
  }
  return {};
}

}  // namespace

std::string to_csv(const Table& table) {
  const Table t = detail::split_spreads(table);
  std::string out;
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    if (c != 0) out.push_back(',');
    out += csv_field(detail::header_label(t.columns[c]));
  }
  out.push_back('\n');
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      if (c != 0) out.push_back(',');
      out += csv_value(detail::cell(t, r, c));
    }
    out.push_back('\n');
  }
  return out;
}

}  // namespace memhier::report
