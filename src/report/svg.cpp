// SVG charts drawn by hand: line charts (linear or log axes) and grouped bar charts.
// Every coordinate is formatted by fmt (no locale) and every value checked finite first.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "common.hpp"
#include "memhier/report/writers.hpp"

namespace memhier::report {

namespace {

constexpr double kWidth = detail::kSvgWidth;
constexpr double kHeight = 420;
constexpr double kPlotLeft = 76;  // room for y tick labels and the rotated y label
constexpr double kPlotRight = kWidth - 24;
constexpr double kLegendTop = 44;  // below the title
constexpr double kLegendRow = 18;
constexpr double kNoteMinFont = 7;  // px: the smallest font a category note is drawn at

// Okabe-Ito palette: distinguishable under the common colour-vision deficiencies.
// Yellow goes last: it is the one hard to see on white.
constexpr const char* kPalette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                    "#E69F00", "#56B4E9", "#000000", "#F0E442"};
constexpr std::size_t kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);
constexpr std::size_t kMarkerShapes = 5;  // circle, square, triangle, diamond, inverted triangle

const char* colour(std::size_t series) {
  return kPalette[series % kPaletteSize];
}

// Rough advance width of a sans-serif string; only used for layout, never for correctness.
double text_px(const std::string& s, double font_size) {
  return static_cast<double>(detail::text_width(s)) * font_size * 0.58;
}

std::string axis_title(const std::string& label, const std::string& unit) {
  if (unit.empty()) return label;
  if (label.empty()) return unit;
  return label + " (" + unit + ")";
}

struct Tick {
  double value;       ///< data value (not its logarithm)
  std::string label;  ///< empty: a tick without a label
  bool major;         ///< major ticks get a darker grid line
};

// Maps data values to pixels along one axis; lo < hi always holds.
struct Scale {
  bool log = false;
  double lo = 0.0, hi = 1.0;  ///< domain: data units, or log10 of them on a log axis
  double p0 = 0.0, p1 = 1.0;  ///< pixel range for lo and hi
  std::vector<Tick> ticks;

  bool usable(double v) const { return std::isfinite(v) && (!log || v > 0.0); }
  double pos(double v) const {
    const double t = log ? std::log10(v) : v;
    return p0 + (t - lo) / (hi - lo) * (p1 - p0);
  }
};

// 1, 2 or 5 times a power of ten, nearest range/target on a log scale (as d3 picks ticks).
double nice_step(double range, int target) {
  const double raw = range / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / mag;
  const double m = f >= 7.071 ? 10.0 : f >= 3.162 ? 5.0 : f >= 1.414 ? 2.0 : 1.0;
  return m * mag;
}

// Linear tick label; k/M/G/T above 10^4 so labels stay short.
std::string linear_label(double v, double step, double max_abs) {
  static const char* const kSuffix[] = {"", "k", "M", "G", "T"};
  int k = 0;
  if (max_abs >= 1e4) k = std::min(4, static_cast<int>(std::floor(std::log10(max_abs) / 3.0)));
  const double scale = std::pow(10.0, 3 * k);
  const int decimals =
      std::clamp(-static_cast<int>(std::floor(std::log10(step / scale) + 1e-9)), 0, 9);
  if (std::fabs(v) < step * 1e-6) return "0";
  return detail::format_fixed(v / scale, decimals) + kSuffix[k];
}

// Label of m x 10^e on a log axis: "2", "500", "10k", "1M", "0.05", or "1e-6" when extreme.
std::string log_label(int m, int e) {
  static const char* const kSuffix[] = {"", "k", "M", "G", "T"};
  if (e >= 0 && e < 15) {
    long long mant = m;
    for (int i = 0; i < e % 3; ++i) mant *= 10;
    return std::to_string(mant) + kSuffix[e / 3];
  }
  if (e < 0 && e >= -4) return detail::format_fixed(m * std::pow(10.0, e), -e);
  return fmt::format("{}e{}", m, e);
}

Scale linear_scale(const std::vector<double>& values, bool include_zero) {
  double mn = HUGE_VAL;
  double mx = -HUGE_VAL;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    mn = std::min(mn, v);
    mx = std::max(mx, v);
  }
  if (mn > mx) {  // no finite value at all
    mn = 0.0;
    mx = 1.0;
  }
  if (include_zero) {
    mn = std::min(mn, 0.0);
    mx = std::max(mx, 0.0);
  }
  // All values equal (or nearly): open a window around them instead of dividing by zero.
  if (!(mx - mn > 1e-9 * std::max(std::fabs(mn), std::fabs(mx)))) {
    if (mn == 0.0) {
      mx = 1.0;
    } else {
      const double pad = std::fabs(mn) * 0.5;
      mn = include_zero && mn >= 0.0 ? 0.0 : mn - pad;
      mx = include_zero && mx <= 0.0 ? 0.0 : mx + pad;
    }
  }
  Scale s;
  double step = nice_step(mx - mn, 5);
  s.lo = std::floor(mn / step) * step;
  s.hi = std::ceil(mx / step) * step;
  if (!std::isfinite(step) || !std::isfinite(s.lo) || !std::isfinite(s.hi) || !(s.hi > s.lo)) {
    s.lo = 0.0;
    s.hi = 1.0;
    step = 0.2;
  }
  const double max_abs = std::max(std::fabs(s.lo), std::fabs(s.hi));
  const auto first = static_cast<long long>(std::ceil(s.lo / step - 1e-9));
  const auto last = static_cast<long long>(std::floor(s.hi / step + 1e-9));
  for (long long i = first; i <= last && i - first <= 50; ++i) {
    const double v = static_cast<double>(i) * step;
    s.ticks.push_back({v, linear_label(v, step, max_abs), true});
  }
  return s;
}

Scale log_scale(const std::vector<double>& values) {
  double mn = HUGE_VAL;
  double mx = -HUGE_VAL;
  for (double v : values) {
    if (!std::isfinite(v) || v <= 0.0) continue;  // no logarithm for these
    mn = std::min(mn, v);
    mx = std::max(mx, v);
  }
  Scale s;
  s.log = true;
  int elo = 0;
  int ehi = 1;
  if (mn <= mx) {
    // Whole decades: every log axis then shows at least two labelled powers of ten.
    elo = static_cast<int>(std::floor(std::log10(mn) + 1e-9));
    ehi = static_cast<int>(std::ceil(std::log10(mx) - 1e-9));
    if (ehi <= elo) {
      --elo;
      ++ehi;
    }
  }
  s.lo = elo;
  s.hi = ehi;
  const int decades = ehi - elo;
  const int label_every = (decades + 7) / 8;  // at most about eight decade labels
  const bool minor_ticks = decades <= 6;
  const bool minor_labels = decades <= 2;  // 1-2-5 labels only where there is room
  for (int e = elo; e <= ehi; ++e) {
    const bool labelled = (e - elo) % label_every == 0;
    s.ticks.push_back({std::pow(10.0, e), labelled ? log_label(1, e) : std::string(), true});
    if (!minor_ticks || e == ehi) continue;
    for (int m = 2; m <= 9; ++m) {
      const bool label = minor_labels && (m == 2 || m == 5);
      s.ticks.push_back({m * std::pow(10.0, e), label ? log_label(m, e) : std::string(), false});
    }
  }
  return s;
}

Scale make_scale(const std::vector<double>& values, bool log, bool include_zero) {
  return log ? log_scale(values) : linear_scale(values, include_zero);
}

// One marker shape per series, so series differ by more than colour.
// `cls` tells plotted points ("marker") from the legend's sample ("legend-marker").
std::string marker(std::size_t series, double x, double y, const std::string& tooltip,
                   const char* cls = "marker") {
  const std::string body = "<title>" + detail::xml_escape(tooltip) + "</title>";
  const std::string cx = detail::svg_px(x);
  const std::string cy = detail::svg_px(y);
  switch (series % kMarkerShapes) {
    case 0:
      return fmt::format("<circle class=\"{}\" cx=\"{}\" cy=\"{}\" r=\"3.5\">{}</circle>", cls, cx,
                         cy, body);
    case 1:
      return fmt::format(
          "<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"6.6\" height=\"6.6\">{}</rect>", cls,
          detail::svg_px(x - 3.3), detail::svg_px(y - 3.3), body);
    case 2:
      return fmt::format("<path class=\"{}\" d=\"M{},{}L{},{}L{},{}Z\">{}</path>", cls, cx,
                         detail::svg_px(y - 4.6), detail::svg_px(x + 4.2), detail::svg_px(y + 3),
                         detail::svg_px(x - 4.2), detail::svg_px(y + 3), body);
    case 3:
      return fmt::format("<path class=\"{}\" d=\"M{},{}L{},{}L{},{}L{},{}Z\">{}</path>", cls, cx,
                         detail::svg_px(y - 4.6), detail::svg_px(x + 4.2), cy, cx,
                         detail::svg_px(y + 4.6), detail::svg_px(x - 4.2), cy, body);
    default:
      return fmt::format("<path class=\"{}\" d=\"M{},{}L{},{}L{},{}Z\">{}</path>", cls, cx,
                         detail::svg_px(y + 4.6), detail::svg_px(x + 4.2), detail::svg_px(y - 3),
                         detail::svg_px(x - 4.2), detail::svg_px(y - 3), body);
  }
}

std::string series_name(const Chart& c, std::size_t i) {
  return c.series[i].name.empty() ? "series " + std::to_string(i + 1) : c.series[i].name;
}

// Tooltip number: rounded for reading (the tables and the JSON keep every digit), with its unit.
std::string value_text(double v, const std::string& unit) {
  return detail::format_reading(v) + (unit.empty() ? "" : " " + unit);
}

// Legend items flow left to right and wrap; returns the y just below the last row.
double draw_legend(const Chart& c, std::string& out) {
  if (c.series.empty()) return kLegendTop;
  double x = kPlotLeft;
  double y = kLegendTop;
  out += "<g class=\"legend\" font-size=\"12\">\n";
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const std::string name = series_name(c, i);
    const double w = 30 + text_px(name, 12) + 18;
    if (x + w > kWidth - 16 && x > kPlotLeft) {
      x = kPlotLeft;
      y += kLegendRow;
    }
    const double mid = y + 5;
    if (c.kind == Chart::Kind::line) {
      fmt::format_to(
          std::back_inserter(out),
          "<g fill=\"{0}\" stroke=\"{0}\"><line x1=\"{1}\" y1=\"{2}\" x2=\"{3}\" y2=\"{2}\" "
          "stroke-width=\"2\"/>{4}</g>\n",
          colour(i), detail::svg_px(x), detail::svg_px(mid), detail::svg_px(x + 24),
          marker(i, x + 12, mid, name, "legend-marker"));
    } else {
      fmt::format_to(std::back_inserter(out),
                     "<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"12\" fill=\"{}\"/>\n",
                     detail::svg_px(x + 5), detail::svg_px(mid - 6), colour(i));
    }
    fmt::format_to(std::back_inserter(out), "<text x=\"{}\" y=\"{}\" fill=\"#222\">{}</text>\n",
                   detail::svg_px(x + 30), detail::svg_px(mid + 4), detail::xml_escape(name));
    x += w;
  }
  out += "</g>\n";
  return y + kLegendRow;
}

// Left edge of the plot: wide enough for the longest y tick label beside the y title.
double plot_left(const Scale& ys) {
  double widest = 0;
  for (const Tick& t : ys.ticks) widest = std::max(widest, text_px(t.label, 11));
  return std::clamp(34 + widest + 10, kPlotLeft, 200.0);
}

void draw_y_axis(const Scale& ys, double left, double right, const std::string& title,
                 std::string& out) {
  out += "<g class=\"y-axis\" font-size=\"11\" fill=\"#333\">\n";
  for (const Tick& t : ys.ticks) {
    const double y = ys.pos(t.value);
    fmt::format_to(std::back_inserter(out),
                   "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\"/>\n"
                   "<line x1=\"{4}\" y1=\"{1}\" x2=\"{0}\" y2=\"{1}\" stroke=\"#333\"/>\n",
                   detail::svg_px(left), detail::svg_px(y), detail::svg_px(right),
                   t.major ? "#dddddd" : "#f0f0f0", detail::svg_px(left - (t.major ? 5 : 3)));
    if (!t.label.empty()) {
      fmt::format_to(std::back_inserter(out),
                     "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
                     detail::svg_px(left - 8), detail::svg_px(y + 4), detail::xml_escape(t.label));
    }
  }
  const double mid = (ys.p0 + ys.p1) / 2;
  fmt::format_to(std::back_inserter(out),
                 "<text x=\"20\" y=\"{0}\" transform=\"rotate(-90 20 {0})\" text-anchor=\"middle\" "
                 "font-size=\"12\">{1}</text>\n</g>\n",
                 detail::svg_px(mid), detail::xml_escape(title));
}

void draw_frame(double left, double top, double right, double bottom, std::string& out) {
  fmt::format_to(
      std::back_inserter(out), "<path d=\"M{0},{1}V{2}H{3}\" fill=\"none\" stroke=\"#333\"/>\n",
      detail::svg_px(left), detail::svg_px(top), detail::svg_px(bottom), detail::svg_px(right));
}

void draw_x_title(const std::string& title, double left, double right, std::string& out) {
  if (title.empty()) return;
  fmt::format_to(
      std::back_inserter(out),
      "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"12\" fill=\"#333\">{}</text>\n",
      detail::svg_px((left + right) / 2), detail::svg_px(kHeight - 12), detail::xml_escape(title));
}

void draw_no_data(double left, double top, double right, double bottom, std::string& out) {
  fmt::format_to(std::back_inserter(out),
                 "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"13\" fill=\"#777\">no "
                 "data</text>\n",
                 detail::svg_px((left + right) / 2), detail::svg_px((top + bottom) / 2));
}

struct Point {
  double x, y;
};

// The chart's rule (Chart::y_rule), dashed across the plot above the data, with its value.
void draw_y_rule(const Chart& c, const Scale& ys, double left, double right, std::string& out) {
  if (!ys.usable(c.y_rule)) return;
  const double y = ys.pos(c.y_rule);
  fmt::format_to(
      std::back_inserter(out),
      "<line class=\"rule\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" "
      "stroke=\"#cf222e\" stroke-width=\"1.5\" stroke-dasharray=\"6 3\"><title>{3}</title>"
      "</line>\n",
      detail::svg_px(left), detail::svg_px(y), detail::svg_px(right),
      detail::xml_escape(value_text(c.y_rule, c.y_unit)));
}

void draw_line_chart(const Chart& c, double top, std::string& out) {
  const double right = kPlotRight;
  const double bottom = kHeight - 52;
  // A point is drawable when both coordinates survive their axis (finite; positive on log).
  Scale probe_x;
  probe_x.log = c.log_x;
  Scale probe_y;
  probe_y.log = c.log_y;
  std::vector<double> xs;
  std::vector<double> ys_values;
  const auto x_of = [](const Series& s, std::size_t i) {
    return s.x.empty() ? static_cast<double>(i) : s.x[i];  // no x given: the index
  };
  const auto count = [](const Series& s) {
    return s.x.empty() ? s.y.size() : std::min(s.x.size(), s.y.size());
  };
  for (const Series& s : c.series) {
    for (std::size_t i = 0; i < count(s); ++i) {
      if (probe_x.usable(x_of(s, i)) && probe_y.usable(s.y[i])) {
        xs.push_back(x_of(s, i));
        ys_values.push_back(s.y[i]);
      }
    }
  }
  if (!xs.empty() && probe_y.usable(c.y_rule)) ys_values.push_back(c.y_rule);  // in reach
  Scale xs_scale = make_scale(xs, c.log_x, false);
  Scale ys_scale = make_scale(ys_values, c.log_y, false);
  const double left = plot_left(ys_scale);
  xs_scale.p0 = left;
  xs_scale.p1 = right;
  ys_scale.p0 = bottom;
  ys_scale.p1 = top;

  draw_y_axis(ys_scale, left, right, axis_title(c.y_label, c.y_unit), out);
  out += "<g class=\"x-axis\" font-size=\"11\" fill=\"#333\">\n";
  for (const Tick& t : xs_scale.ticks) {
    const double x = xs_scale.pos(t.value);
    fmt::format_to(std::back_inserter(out),
                   "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\"/>\n"
                   "<line x1=\"{0}\" y1=\"{2}\" x2=\"{0}\" y2=\"{4}\" stroke=\"#333\"/>\n",
                   detail::svg_px(x), detail::svg_px(top), detail::svg_px(bottom),
                   t.major ? "#dddddd" : "#f0f0f0", detail::svg_px(bottom + (t.major ? 5 : 3)));
    if (!t.label.empty()) {
      fmt::format_to(std::back_inserter(out),
                     "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     detail::svg_px(x), detail::svg_px(bottom + 18), detail::xml_escape(t.label));
    }
  }
  out += "</g>\n";
  draw_frame(left, top, right, bottom, out);
  draw_x_title(axis_title(c.x_label, c.x_unit), left, right, out);
  if (xs.empty()) draw_no_data(left, top, right, bottom, out);

  for (std::size_t si = 0; si < c.series.size(); ++si) {
    const Series& s = c.series[si];
    const std::string name = series_name(c, si);
    fmt::format_to(std::back_inserter(out), "<g class=\"series\" fill=\"{0}\" stroke=\"{0}\">\n",
                   colour(si));
    // A skipped point (NaN, or non-positive on a log axis) breaks the line: no false bridge.
    std::vector<std::vector<Point>> runs(1);
    std::string markers;
    for (std::size_t i = 0; i < count(s); ++i) {
      const double x = x_of(s, i);
      const double y = s.y[i];
      if (!xs_scale.usable(x) || !ys_scale.usable(y)) {
        if (!runs.back().empty()) runs.emplace_back();
        continue;
      }
      const Point p{xs_scale.pos(x), ys_scale.pos(y)};
      runs.back().push_back(p);
      markers += marker(si, p.x, p.y,
                        name + ": " + value_text(x, c.x_unit) + ", " + value_text(y, c.y_unit)) +
                 "\n";
    }
    for (const auto& run : runs) {
      if (run.size() < 2) continue;
      out += "<polyline fill=\"none\" stroke-width=\"2\" stroke-linejoin=\"round\" points=\"";
      for (std::size_t i = 0; i < run.size(); ++i) {
        if (i != 0) out.push_back(' ');
        out += detail::svg_px(run[i].x) + "," + detail::svg_px(run[i].y);
      }
      out += "\"/>\n";
    }
    // White outline keeps overlapping markers of different series apart.
    out += "<g stroke=\"#ffffff\" stroke-width=\"1\">\n" + markers + "</g>\n</g>\n";
  }
  if (!xs.empty()) draw_y_rule(c, ys_scale, left, right, out);
}

void draw_bar_chart(const Chart& c, double top, std::string& out) {
  std::size_t ncat = c.categories.size();
  if (ncat == 0) {
    for (const Series& s : c.series) ncat = std::max(ncat, s.y.size());
  }
  std::vector<std::string> labels(ncat);
  for (std::size_t i = 0; i < ncat; ++i) {
    labels[i] = i < c.categories.size() ? c.categories[i] : std::to_string(i + 1);
  }
  std::vector<double> values;
  for (const Series& s : c.series) {
    for (std::size_t i = 0; i < std::min(s.y.size(), ncat); ++i) values.push_back(s.y[i]);
  }
  Scale probe;
  probe.log = c.log_y;
  const bool any_value =
      std::any_of(values.begin(), values.end(), [&probe](double v) { return probe.usable(v); });
  if (any_value && probe.usable(c.y_rule)) values.push_back(c.y_rule);  // the rule in reach
  Scale ys = make_scale(values, c.log_y, true);  // linear value axes start at zero
  double left = plot_left(ys);
  const double right = kPlotRight;
  const double n = static_cast<double>(std::max<std::size_t>(ncat, 1));
  double group = (right - left) / n;
  double widest = 0;
  for (const std::string& l : labels) widest = std::max(widest, text_px(l, 11));
  // Labels wider than their group are turned 35 degrees, and the plot gives them room.
  const bool slanted = widest > group - 6;
  if (slanted) {
    // The first label, turned, reaches cos 35 deg of its width left of its group's middle
    // (with a margin on the width estimate): the plot starts far enough right to hold it.
    const double reach = 0.82 * widest * 1.1 + 6;
    left = std::max(left, (reach - right / (2 * n)) / (1 - 1 / (2 * n)));
    group = (right - left) / n;
  }
  // Upright labels may carry notes, a line each under the label (the shapes a bar was at).
  std::vector<std::vector<std::string>> notes(ncat);
  std::size_t note_lines = 0;
  for (std::size_t i = 0; i < ncat && !slanted && i < c.category_notes.size(); ++i) {
    for (std::size_t at = 0; at <= c.category_notes[i].size();) {
      const std::size_t end = std::min(c.category_notes[i].find('\n', at), c.category_notes[i].size());
      const std::string line = c.category_notes[i].substr(at, end - at);
      at = end + 1;
      if (line.empty()) continue;
      // A line too wide for its group even at the smallest note font breaks at its spaces.
      if (text_px(line, kNoteMinFont) <= group - 4 || line.find(' ') == std::string::npos) {
        notes[i].push_back(line);
        continue;
      }
      for (std::size_t w = 0; w <= line.size();) {
        const std::size_t space = std::min(line.find(' ', w), line.size());
        if (space > w) notes[i].push_back(line.substr(w, space - w));
        w = space + 1;
      }
    }
    note_lines = std::max(note_lines, notes[i].size());
  }
  const double bottom =
      kHeight - (slanted ? 30 + std::min(widest * 0.6, 150.0) : 52 + 13.0 * static_cast<double>(note_lines));

  ys.p0 = bottom;
  ys.p1 = top;
  draw_y_axis(ys, left, right, axis_title(c.y_label, c.y_unit), out);

  out += "<g class=\"x-axis\" font-size=\"11\" fill=\"#333\">\n";
  for (std::size_t i = 0; i < ncat; ++i) {
    const double x = left + group * (static_cast<double>(i) + 0.5);
    const double y = bottom + 16;
    if (slanted) {
      fmt::format_to(std::back_inserter(out),
                     "<text x=\"{0}\" y=\"{1}\" transform=\"rotate(-35 {0} {1})\" "
                     "text-anchor=\"end\">{2}</text>\n",
                     detail::svg_px(x + 4), detail::svg_px(y - 4), detail::xml_escape(labels[i]));
    } else {
      fmt::format_to(std::back_inserter(out),
                     "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     detail::svg_px(x), detail::svg_px(y), detail::xml_escape(labels[i]));
      for (std::size_t l = 0; l < notes[i].size(); ++l) {
        const double font = std::clamp((group - 4) / (text_px(notes[i][l], 1.0) + 1e-9),
                                       kNoteMinFont, 10.0);
        // Still too wide at the smallest font (one long word): squeezed into its group.
        const std::string squeeze =
            text_px(notes[i][l], font) > group - 4
                ? fmt::format(" textLength=\"{}\" lengthAdjust=\"spacingAndGlyphs\"",
                              detail::svg_px(group - 4))
                : std::string();
        fmt::format_to(std::back_inserter(out),
                       "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"{}\"{} "
                       "fill=\"#57606a\">{}</text>\n",
                       detail::svg_px(x), detail::svg_px(y + 13.0 * static_cast<double>(l + 1)),
                       detail::svg_px(font), squeeze, detail::xml_escape(notes[i][l]));
      }
    }
  }
  out += "</g>\n";

  // Bars grow from zero on a linear axis and from the bottom edge on a log axis.
  const double base = ys.log ? bottom : ys.pos(std::clamp(0.0, ys.lo, ys.hi));
  const double nser = static_cast<double>(std::max<std::size_t>(c.series.size(), 1));
  const double bar_w = group * 0.8 / nser;
  bool any_bar = false;
  for (std::size_t si = 0; si < c.series.size(); ++si) {
    const Series& s = c.series[si];
    fmt::format_to(std::back_inserter(out), "<g class=\"series\" fill=\"{}\">\n", colour(si));
    for (std::size_t i = 0; i < std::min(s.y.size(), ncat); ++i) {
      if (!ys.usable(s.y[i])) continue;
      const double y = ys.pos(s.y[i]);
      const double x =
          left + group * static_cast<double>(i) + group * 0.1 + bar_w * static_cast<double>(si);
      fmt::format_to(std::back_inserter(out),
                     "<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" "
                     "height=\"{}\"><title>{}</title></rect>\n",
                     detail::svg_px(x), detail::svg_px(std::min(y, base)),
                     detail::svg_px(std::max(bar_w - 1, 1.0)), detail::svg_px(std::fabs(base - y)),
                     detail::xml_escape(series_name(c, si) + ", " + labels[i] + ": " +
                                        value_text(s.y[i], c.y_unit)));
      any_bar = true;
    }
    out += "</g>\n";
  }
  if (!ys.log && ys.lo < 0.0) {  // a visible zero line when bars go both ways
    fmt::format_to(std::back_inserter(out),
                   "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#333\"/>\n",
                   detail::svg_px(left), detail::svg_px(base), detail::svg_px(right));
  }
  if (any_bar) draw_y_rule(c, ys, left, right, out);
  draw_frame(left, top, right, bottom, out);
  draw_x_title(axis_title(c.x_label, c.x_unit), left, right, out);
  if (!any_bar) draw_no_data(left, top, right, bottom, out);
}

}  // namespace

namespace detail {

std::string svg_chart(const Chart& c, bool standalone) {
  if (c.kind == Chart::Kind::stack) return svg_stack(c, standalone);
  if (c.kind == Chart::Kind::heatmap) return svg_heatmap(c, standalone);
  std::string out = detail::svg_open(c, standalone, kHeight);
  // Many series push the plot down; keep at least 140 px of plot whatever the legend needs.
  const double top = std::min(draw_legend(c, out) + 8, kHeight - 52 - 140);
  if (c.kind == Chart::Kind::bar) {
    draw_bar_chart(c, top, out);
  } else {
    draw_line_chart(c, top, out);
  }
  out += "</svg>\n";
  return out;
}

}  // namespace detail

std::string to_svg(const Chart& c) {
  return detail::svg_chart(c, true);
}

}  // namespace memhier::report
