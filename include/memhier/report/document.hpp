// The report's data model: plain records that every writer renders the same way.
// No CUDA here: a report never touches the device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "memhier/results/check.hpp"

namespace memhier::report {

/// printf-style formatting into a std::string (figures in claims, notes and captions).
__attribute__((format(printf, 1, 2))) std::string strf(const char* f, ...);

inline constexpr int kSchemaVersion = 1;
inline constexpr const char* kSchemaName = "memhier.report";

/// One table cell: empty, text, or a number shown with a fixed precision (a median may
/// carry its spread: the 10th and 90th percentiles it was taken over).
struct Value {
  enum class Kind { empty, text, number };
  Kind kind = Kind::empty;
  std::string text;
  double number = 0.0;
  int precision = 0;                                      ///< digits after the point when shown
  double p10 = std::numeric_limits<double>::quiet_NaN();  ///< the spread, where both are finite
  double p90 = std::numeric_limits<double>::quiet_NaN();

  static Value none() { return {}; }
  static Value str(std::string s) { return {Kind::text, std::move(s), 0.0, 0}; }
  static Value num(double v, int precision = 0) { return {Kind::number, {}, v, precision}; }
  static Value integer(std::int64_t v) { return {Kind::number, {}, static_cast<double>(v), 0}; }
  /// A number, or an empty cell where it is not finite (nothing was measured).
  static Value num_or_none(double v, int precision = 0);
  /// A median with its 10th and 90th percentiles ("0.85 (0.83-0.87)" in the text formats,
  /// with an en dash;
  /// JSON and CSV give the three numbers), or an empty cell where the median is not finite.
  static Value median_or_none(double median, double p10, double p90, int precision);

  /// Whether the cell is a number with a spread.
  bool has_spread() const;
  /// As shown in text formats ("12.50", "0.85 (0.83-0.87)" with a spread, "n/a" for
  /// non-finite numbers, "" for empty).
  std::string display() const;
};

struct Column {
  std::string name;
  std::string unit;  ///< "", "B", "GB/s", "cycles", "%", ...
  std::string key;   ///< JSON/CSV key; derived from name when empty
};

struct Table {
  std::string id;  ///< stable, used for anchors and file names
  std::string title;
  std::string caption;
  std::vector<Column> columns;
  std::vector<std::vector<Value>> rows;  ///< each row has columns.size() cells
  std::vector<std::string> notes;

  /// The index of the column with this JSON key, or -1.
  int column(const std::string& key) const;
};

struct Series {
  std::string name;
  std::vector<double> x;  ///< ignored by bar charts (categories instead)
  std::vector<double> y;
};

/// A line chart, a grouped bar chart, or a stack: one band per category, top first, each
/// wider than the one above (a memory hierarchy), labelled beside it with its note. Or a
/// heat map: one series per row, top first (its name the row's label, x the columns'
/// positions, y the cells' values in y_unit, NaN for a cell not measured); x_label and
/// x_unit name the columns, y_label the rows.
struct Chart {
  enum class Kind { line, bar, stack, heatmap };
  std::string id;
  std::string title;
  Kind kind = Kind::line;
  std::string x_label, x_unit;
  std::string y_label, y_unit;
  bool log_x = false;
  bool log_y = false;
  std::vector<std::string> categories;  ///< bar charts: one per y value; stack: one per band
  /// stack: the text beside each band (its figures); bar: lines ('\n') under each label.
  std::vector<std::string> category_notes;
  /// stack: each band's capacity in bytes (NaN where unknown); a band's width grows with it.
  std::vector<double> category_sizes;
  /// stack: the first this many bands are the path data travels, drawn as the pyramid; the
  /// others are spaces beside that path, drawn apart below it. 0: every band is on the path.
  std::size_t stack_path = 0;
  /// Line and bar charts: a rule across the plot at this value of y, the axis reaching it
  /// (parity: a ratio of 1); NaN for none.
  double y_rule = std::numeric_limits<double>::quiet_NaN();
  std::vector<Series> series;
};

struct Section {
  std::string id;
  std::string title;
  std::vector<std::string> paragraphs;
  std::vector<Table> tables;
  std::vector<Chart> charts;
  bool charts_first = false;  ///< draw the charts before the tables (the report's summary)
  /// The claims checked here, as data: the Claims section gathers these, never the tables.
  std::vector<results::Check> checks;
};

/// Where and how the figures were made.
struct Meta {
  std::string tool = "memhier";
  std::string version;
  std::string command;   ///< the command line that produced the document
  std::string date_utc;  ///< ISO 8601
  std::string host;
  std::string toolkit;  ///< "CUDA 13.0"
  std::string driver;   ///< empty without a GPU
  std::string device;   ///< "NVIDIA H100 80GB HBM3 (cc 9.0)" or "none"
  std::string git_commit;
  /// The kernel module's release ("580.159.04") where Linux states it, else empty: `driver`
  /// is the CUDA version the driver supports, the same across most driver updates.
  std::string driver_release;
};

struct Document {
  std::string title;
  Meta meta;
  std::vector<Section> sections;
};

}  // namespace memhier::report
