// Writers: one Document, many formats. All output is deterministic for a given
// Document (golden-file tested).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "memhier/report/document.hpp"

namespace memhier::report {

/// How much of a document the text formats show. The default is the edition a person reads
/// through: in HTML and Markdown every table folded behind a disclosure under its name but a
/// short first table of a section without a chart; in the terminal, which draws no chart, the
/// long tables (more than 12 rows) left out and named. `full` shows every table open.
struct Edition {
  bool full = false;
};

/// The document as the text formats show it, in every edition: a paragraph said in an earlier
/// section is not repeated (the ladders' shared method, a stage's one reason for not running);
/// a chart's category or series with no finite value is not drawn (an empty slot reads as zero).
Document for_reading(const Document& d);

/// A document read back from its JSON (to_json's form, or a results.json), so that a recorded
/// run renders again without a GPU: numbers keep three significant digits for reading, a
/// column's "_p10"/"_p90" keys become the spread of its cells again. Throws
/// std::invalid_argument (one sentence) for JSON that is not a memhier report.
Document document_from_json(const nlohmann::json& j);

/// Boxed, aligned plain-text table for a terminal (units in the header).
std::string to_terminal(const Table& t);

/// Whole document for a terminal: title, meta line, sections with their tables.
std::string to_terminal(const Document& d, Edition e = {});

/// RFC 4180 CSV of one table: header row "name (unit)", numbers at full precision.
std::string to_csv(const Table& t);

/// GitHub-flavoured Markdown of the whole document.
std::string to_markdown(const Document& d, Edition e = {});

/// {"schema": "memhier.report", "schema_version": 1, "meta": {...}, "sections": [...]}.
nlohmann::json to_json(const Document& d);
nlohmann::json to_json(const Table& t);  ///< {"id","title","columns","rows":[{key: value}]}
nlohmann::json to_json(const Meta& m);

/// One self-contained SVG chart (axes, ticks, log scales, legend, units).
std::string to_svg(const Chart& c);

/// One self-contained HTML file: inline CSS, tables and inline SVG charts.
std::string to_html(const Document& d, Edition e = {});

}  // namespace memhier::report
