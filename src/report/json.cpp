// JSON of a document: the machine-readable record the results scripts read back.
#include <cmath>

#include "common.hpp"
#include "memhier/report/writers.hpp"

namespace memhier::report {

namespace {

using nlohmann::json;

// JSON text must be valid UTF-8: dump() would throw on a stray byte from a device name.
json str(const std::string& s) {
  return detail::utf8_valid(s);
}

// JSON has no NaN or infinity: a missing figure is null.
json number(double v) {
  if (!std::isfinite(v)) return nullptr;
  return v;
}

json cell_json(const Value& v) {
  switch (v.kind) {
    case Value::Kind::empty:
      return nullptr;
    case Value::Kind::text:
      return str(v.text);
    case Value::Kind::number:
      // Counts stay integers in JSON ("16384", not "16384.0") while exact in a double.
      if (v.precision == 0 && std::isfinite(v.number) && v.number == std::trunc(v.number) &&
          std::fabs(v.number) < 9007199254740992.0) {
        return static_cast<std::int64_t>(v.number);
      }
      return number(v.number);
  }
  return nullptr;
}

json strings(const std::vector<std::string>& v) {
  json out = json::array();
  for (const std::string& s : v) out.push_back(str(s));
  return out;
}

json numbers(const std::vector<double>& v) {
  json out = json::array();
  for (double x : v) out.push_back(number(x));
  return out;
}

json chart_json(const Chart& c) {
  json series = json::array();
  for (const Series& s : c.series) {
    series.push_back({{"name", str(s.name)}, {"x", numbers(s.x)}, {"y", numbers(s.y)}});
  }
  const char* kind = c.kind == Chart::Kind::bar       ? "bar"
                     : c.kind == Chart::Kind::stack   ? "stack"
                     : c.kind == Chart::Kind::heatmap ? "heatmap"
                                                      : "line";
  json out = {{"id", str(c.id)},
              {"title", str(c.title)},
              {"kind", kind},
              {"x_label", str(c.x_label)},
              {"x_unit", str(c.x_unit)},
              {"y_label", str(c.y_label)},
              {"y_unit", str(c.y_unit)},
              {"log_x", c.log_x},
              {"log_y", c.log_y},
              {"categories", strings(c.categories)},
              {"series", std::move(series)}};
  if (!c.category_notes.empty()) out["category_notes"] = strings(c.category_notes);
  return out;
}

}  // namespace

json to_json(const Table& table) {
  const Table t = detail::split_spreads(table);
  const std::vector<std::string> keys = detail::column_keys(t);
  json columns = json::array();
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    columns.push_back({{"name", str(t.columns[c].name)},
                       {"unit", str(t.columns[c].unit)},
                       {"key", str(keys[c])}});
  }
  json rows = json::array();
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    json row = json::object();
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      row[detail::utf8_valid(keys[c])] = cell_json(detail::cell(t, r, c));
    }
    rows.push_back(std::move(row));
  }
  return {{"id", str(t.id)},           {"title", str(t.title)},
          {"caption", str(t.caption)}, {"columns", std::move(columns)},
          {"rows", std::move(rows)},   {"notes", strings(t.notes)}};
}

json to_json(const Meta& m) {
  return {{"tool", str(m.tool)},
          {"version", str(m.version)},
          {"command", str(m.command)},
          {"date_utc", str(m.date_utc)},
          {"host", str(m.host)},
          {"toolkit", str(m.toolkit)},
          {"driver", str(m.driver)},
          {"device", str(m.device)},
          {"git_commit", str(m.git_commit)}};
}

json to_json(const Document& d) {
  json sections = json::array();
  for (const Section& s : d.sections) {
    json tables = json::array();
    for (const Table& t : s.tables) tables.push_back(to_json(t));
    json charts = json::array();
    for (const Chart& c : s.charts) charts.push_back(chart_json(c));
    sections.push_back({{"id", str(s.id)},
                        {"title", str(s.title)},
                        {"paragraphs", strings(s.paragraphs)},
                        {"tables", std::move(tables)},
                        {"charts", std::move(charts)}});
  }
  return {{"schema", kSchemaName},
          {"schema_version", kSchemaVersion},
          {"meta", to_json(d.meta)},
          {"title", str(d.title)},
          {"sections", std::move(sections)}};
}

}  // namespace memhier::report
