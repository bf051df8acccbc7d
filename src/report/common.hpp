// Helpers shared by the report writers (private to src/report): escaping, keys, ids,
// number formatting. Everything here is locale-independent so output is deterministic.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "memhier/report/document.hpp"
#include "memhier/report/writers.hpp"

namespace memhier::report::detail {

/// Lowercase ASCII slug: runs of characters outside [a-z0-9] (and `keep`) become one `sep`.
std::string slug(std::string_view s, char sep, std::string_view keep = {});

/// JSON/CSV keys of a table's columns: given key or slug of the name, made unique.
std::vector<std::string> column_keys(const Table& t);

/// The table as the data formats (JSON, CSV) write it: each column where some cell has a
/// spread is followed by "<name> p10" and "<name> p90" columns (keys "<key>_p10", "<key>_p90")
/// holding the percentiles as plain numbers, so the data keep every figure.
Table split_spreads(const Table& t);

/// "name (unit)", or just "name" when the unit is empty.
std::string header_label(const Column& c);

/// The cell at (row, col); a missing cell (short row) reads as empty.
const Value& cell(const Table& t, std::size_t row, std::size_t col);

/// True when every non-empty cell of the column is a number (and there is at least one).
bool numeric_column(const Table& t, std::size_t col);

/// Shortest text that reads back to the same double; integers without exponent or ".0".
/// Non-finite values give "".
std::string format_full(double v);

/// Fixed-point with `decimals` digits, never "-0".
std::string format_fixed(double v, int decimals);

/// Digits after the point that give a number about three significant digits for reading
/// (none from 100 up, "0.951", "0.0833"), never more than 9.
int reading_decimals(double v);

/// A number rounded for reading (reading_decimals), "" when not finite.
std::string format_reading(double v);

/// Escape for XML/HTML text and attribute values; drops characters XML 1.0 forbids.
std::string xml_escape(std::string_view s);

/// Replace invalid UTF-8 sequences with U+FFFD (JSON serialisation rejects them).
std::string utf8_valid(std::string_view s);

/// Number of code points (a terminal-width estimate good enough for aligned columns).
std::size_t text_width(std::string_view s);

/// Control characters (newline, tab, ...) become spaces: one cell is one line.
std::string one_line(std::string_view s);

/// At most one blank line in a row, and exactly one newline at the end.
std::string tidy_blank_lines(const std::string& s);

/// (label, value) pairs of the non-empty meta fields, in a fixed order.
std::vector<std::pair<std::string, std::string>> meta_fields(const Meta& m);

/// Unique, anchor-safe ids for every section, table and chart of a document, in order.
struct DocumentIds {
  std::vector<std::string> sections;
  std::vector<std::vector<std::string>> tables;  ///< [section][table]
  std::vector<std::vector<std::string>> charts;  ///< [section][chart]
};
DocumentIds assign_ids(const Document& d);

/// Tables with more rows than this are folded by default (HTML, Markdown).
inline constexpr std::size_t kFoldedRows = 6;
/// Tables with more rows than this are left out of the terminal by default (named instead).
inline constexpr std::size_t kTerminalRows = 12;

/// Whether the edition folds table `t` of section `s` (HTML and Markdown: behind a
/// disclosure): never in the full edition; otherwise every table but the first of a section
/// without a chart when it has at most kFoldedRows rows (a chart draws its figures, and the
/// tables after the first are its detail, often the claims the Claims section gathers).
bool folded(const Section& s, std::size_t t, const Edition& e);

/// Every chart's width in px.
inline constexpr double kSvgWidth = 720;

/// A coordinate as SVG text: one decimal, none when whole (0 for a non-finite value).
std::string svg_px(double v);

/// The opening every chart kind shares, kSvgWidth x `height` px: the <svg> element (with the
/// XML namespace when `standalone`), the chart's title, a white background and its heading.
std::string svg_open(const Chart& c, bool standalone, double height);

/// The chart as SVG; `standalone` adds the XML namespace (not needed inline in HTML5).
std::string svg_chart(const Chart& c, bool standalone);

/// A stack chart (the hierarchy pyramid) as SVG; its height grows with its bands.
std::string svg_stack(const Chart& c, bool standalone);

/// A heat map (rows of cells coloured by value) as SVG; its height grows with its rows.
std::string svg_heatmap(const Chart& c, bool standalone);

/// Indices of the columns worth showing: all of them, except a column empty in every row
/// of a table that has rows (a ratio with no reference in this run, a note nobody wrote).
std::vector<std::size_t> shown_columns(const Table& t);

}  // namespace memhier::report::detail
