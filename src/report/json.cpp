// JSON of a document: the machine-readable record the results scripts read back.
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

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
  if (!c.category_sizes.empty()) out["category_sizes"] = numbers(c.category_sizes);
  if (c.stack_path != 0) out["stack_path"] = c.stack_path;
  if (std::isfinite(c.y_rule)) out["y_rule"] = c.y_rule;
  return out;
}

// Reading a document back: a field of the wrong type reads as absent, never as a crash.
std::string get_str(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<std::string> get_strs(const json& j, const char* key) {
  std::vector<std::string> out;
  const auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const json& e : *it) out.push_back(e.is_string() ? e.get<std::string>() : std::string());
  return out;
}

double as_number(const json& e) {
  return e.is_number() ? e.get<double>() : NAN;
}

std::vector<double> get_nums(const json& j, const char* key) {
  std::vector<double> out;
  const auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const json& e : *it) out.push_back(as_number(e));
  return out;
}

Value cell_from_json(const json& e) {
  if (e.is_string()) return Value::str(e.get<std::string>());
  if (e.is_number_integer() || e.is_number_unsigned()) return Value::num(e.get<double>(), 0);
  if (e.is_number()) {
    const double v = e.get<double>();
    return Value::num(v, detail::reading_decimals(v));
  }
  if (e.is_boolean()) return Value::str(e.get<bool>() ? "yes" : "no");
  return Value::none();
}

Table table_from_json(const json& j) {
  Table t;
  t.id = get_str(j, "id");
  t.title = get_str(j, "title");
  t.caption = get_str(j, "caption");
  t.notes = get_strs(j, "notes");
  std::vector<std::string> keys;
  const auto cols = j.find("columns");
  if (cols != j.end() && cols->is_array())
    for (const json& c : *cols) {
      keys.push_back(get_str(c, "key"));
      t.columns.push_back({get_str(c, "name"), get_str(c, "unit"), keys.back()});
    }
  // A column whose "<key>_p10" and "<key>_p90" follow it takes them back as its spread.
  std::vector<int> p10(keys.size(), -1), p90(keys.size(), -1);
  std::vector<bool> spread_column(keys.size(), false);
  for (std::size_t c = 0; c + 2 < keys.size(); ++c)
    if (keys[c + 1] == keys[c] + "_p10" && keys[c + 2] == keys[c] + "_p90") {
      p10[c] = static_cast<int>(c + 1);
      p90[c] = static_cast<int>(c + 2);
      spread_column[c + 1] = spread_column[c + 2] = true;
    }
  const auto rows = j.find("rows");
  if (rows != j.end() && rows->is_array())
    for (const json& r : *rows) {
      std::vector<Value> row;
      for (std::size_t c = 0; c < keys.size(); ++c) {
        if (spread_column[c]) continue;
        const auto at = [&r](const std::string& k) {
          const auto it = r.find(k);
          return it == r.end() ? json() : *it;
        };
        Value v = cell_from_json(at(keys[c]));
        if (p10[c] >= 0 && v.kind == Value::Kind::number) {
          v.p10 = as_number(at(keys[static_cast<std::size_t>(p10[c])]));
          v.p90 = as_number(at(keys[static_cast<std::size_t>(p90[c])]));
          // A ratio and its spread read at one precision.
          v.precision = std::max(v.precision, detail::reading_decimals(v.p10));
        }
        row.push_back(std::move(v));
      }
      t.rows.push_back(std::move(row));
    }
  std::vector<Column> columns;
  for (std::size_t c = 0; c < keys.size(); ++c)
    if (!spread_column[c]) columns.push_back(t.columns[c]);
  t.columns = std::move(columns);
  return t;
}

Chart chart_from_json(const json& j) {
  Chart c;
  c.id = get_str(j, "id");
  c.title = get_str(j, "title");
  const std::string kind = get_str(j, "kind");
  c.kind = kind == "bar"       ? Chart::Kind::bar
           : kind == "stack"   ? Chart::Kind::stack
           : kind == "heatmap" ? Chart::Kind::heatmap
                               : Chart::Kind::line;
  c.x_label = get_str(j, "x_label");
  c.x_unit = get_str(j, "x_unit");
  c.y_label = get_str(j, "y_label");
  c.y_unit = get_str(j, "y_unit");
  c.log_x = j.value("log_x", false);
  c.log_y = j.value("log_y", false);
  c.categories = get_strs(j, "categories");
  c.category_notes = get_strs(j, "category_notes");
  c.category_sizes = get_nums(j, "category_sizes");
  if (j.contains("stack_path") && j["stack_path"].is_number_unsigned())
    c.stack_path = j["stack_path"].get<std::size_t>();
  if (j.contains("y_rule") && j["y_rule"].is_number()) c.y_rule = j["y_rule"].get<double>();
  const auto series = j.find("series");
  if (series != j.end() && series->is_array())
    for (const json& s : *series)
      c.series.push_back({get_str(s, "name"), get_nums(s, "x"), get_nums(s, "y")});
  return c;
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

// Meta's fields by their JSON keys: what to_json writes and document_from_json reads back.
constexpr std::pair<const char*, std::string Meta::*> kMetaFields[] = {
    {"tool", &Meta::tool},
    {"version", &Meta::version},
    {"command", &Meta::command},
    {"date_utc", &Meta::date_utc},
    {"host", &Meta::host},
    {"toolkit", &Meta::toolkit},
    {"driver", &Meta::driver},
    {"device", &Meta::device},
    {"git_commit", &Meta::git_commit},
    {"driver_release", &Meta::driver_release}};

json to_json(const Meta& m) {
  json j = json::object();
  for (const auto& [key, field] : kMetaFields)
    // The driver's release is left out where the machine does not state it.
    if (field != &Meta::driver_release || !(m.*field).empty()) j[key] = str(m.*field);
  return j;
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
    if (s.charts_first) sections.back()["charts_first"] = true;
  }
  return {{"schema", kSchemaName},
          {"schema_version", kSchemaVersion},
          {"meta", to_json(d.meta)},
          {"title", str(d.title)},
          {"sections", std::move(sections)}};
}

Document document_from_json(const json& j) {
  if (!j.is_object() || get_str(j, "schema") != kSchemaName || !j.contains("sections") ||
      !j["sections"].is_array())
    throw std::invalid_argument(std::string("not a memhier report (no \"schema\": \"") +
                                kSchemaName + "\" with its sections)");
  Document d;
  d.title = get_str(j, "title");
  if (j.contains("meta") && j["meta"].is_object()) {
    const json& m = j["meta"];
    for (const auto& [key, field] : kMetaFields) d.meta.*field = get_str(m, key);
  }
  for (const json& s : j["sections"]) {
    Section sec;
    sec.id = get_str(s, "id");
    sec.title = get_str(s, "title");
    sec.paragraphs = get_strs(s, "paragraphs");
    if (s.contains("tables") && s["tables"].is_array())
      for (const json& t : s["tables"]) sec.tables.push_back(table_from_json(t));
    if (s.contains("charts") && s["charts"].is_array())
      for (const json& c : s["charts"]) sec.charts.push_back(chart_from_json(c));
    sec.charts_first = s.value("charts_first", sec.id == "summary");
    d.sections.push_back(std::move(sec));
  }
  return d;
}

}  // namespace memhier::report
