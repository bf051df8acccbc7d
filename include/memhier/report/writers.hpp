// Writers: one Document, many formats. All output is deterministic for a given
// Document (golden-file tested).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "memhier/report/document.hpp"

namespace memhier::report {

/// Boxed, aligned plain-text table for a terminal (units in the header).
std::string to_terminal(const Table& t);

/// Whole document for a terminal: title, meta line, sections with their tables.
std::string to_terminal(const Document& d);

/// RFC 4180 CSV of one table: header row "name (unit)", numbers at full precision.
std::string to_csv(const Table& t);

/// GitHub-flavoured Markdown of the whole document.
std::string to_markdown(const Document& d);

/// {"schema": "memhier.report", "schema_version": 1, "meta": {...}, "sections": [...]}.
nlohmann::json to_json(const Document& d);
nlohmann::json to_json(const Table& t);  ///< {"id","title","columns","rows":[{key: value}]}
nlohmann::json to_json(const Meta& m);

/// One self-contained SVG chart (axes, ticks, log scales, legend, units).
std::string to_svg(const Chart& c);

/// One self-contained HTML file: inline CSS, tables and inline SVG charts.
std::string to_html(const Document& d);

}  // namespace memhier::report
