// The heat map: one row of cells per series, each cell coloured by its value on a scale of
// eight steps from the lowest value to the highest. A row's runs of one colour are drawn as
// one rectangle, so a map of 132 SMs x 256 pages stays a small SVG.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "common.hpp"

namespace memhier::report::detail {

namespace {

constexpr double kWidth = kSvgWidth;
constexpr double kTop = 48;  // below the title
constexpr double kLeft = 76;
constexpr double kRight = kWidth - 24;
constexpr int kLevels = 8;

// The Okabe-Ito blue (low) to its vermillion (high), as the hierarchy pyramid shades.
std::string level_colour(int level) {
  const double t = static_cast<double>(level) / (kLevels - 1);
  const auto mix = [t](int a, int b) { return static_cast<int>(std::lround(a + (b - a) * t)); };
  return fmt::format("#{:02X}{:02X}{:02X}", mix(0x00, 0xD5), mix(0x72, 0x5E), mix(0xB2, 0x00));
}

std::string label_of(const std::string& name, const std::string& unit) {
  return unit.empty() ? name : name.empty() ? unit : name + " (" + unit + ")";
}

// A value's step on the scale [lo, hi]; -1 for a cell not measured.
int level_of(double v, double lo, double hi) {
  if (!std::isfinite(v)) return -1;
  if (!(hi > lo)) return 0;
  return std::clamp(static_cast<int>((v - lo) / (hi - lo) * kLevels), 0, kLevels - 1);
}

}  // namespace

std::string svg_heatmap(const Chart& c, bool standalone) {
  const std::size_t rows = c.series.size();
  std::size_t cols = 0;
  double lo = INFINITY, hi = -INFINITY;
  for (const Series& s : c.series) {
    cols = std::max(cols, s.y.size());
    for (double v : s.y)
      if (std::isfinite(v)) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
  }
  const bool any = std::isfinite(lo);
  const double row_h = rows ? std::clamp(420.0 / static_cast<double>(rows), 2.0, 16.0) : 16.0;
  const double plot_h = std::max(1.0, static_cast<double>(rows)) * row_h;
  const double cell_w = (kRight - kLeft) / static_cast<double>(std::max<std::size_t>(cols, 1));
  const double bottom = kTop + plot_h;
  const double height = bottom + 92;
  std::string out = svg_open(c, standalone, height);
  // Cells not measured show this grey.
  fmt::format_to(std::back_inserter(out),
                 "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#e8eaed\"/>\n",
                 svg_px(kLeft), svg_px(kTop), svg_px(kRight - kLeft), svg_px(plot_h));
  out += "<g class=\"cells\" shape-rendering=\"crispEdges\">\n";
  for (std::size_t r = 0; r < rows; ++r) {
    const std::vector<double>& y = c.series[r].y;
    const double top = kTop + static_cast<double>(r) * row_h;
    std::size_t start = 0;
    while (start < y.size()) {
      const int level = level_of(y[start], lo, hi);
      std::size_t end = start + 1;
      while (end < y.size() && level_of(y[end], lo, hi) == level) ++end;
      if (level >= 0)
        fmt::format_to(std::back_inserter(out),
                       "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>\n",
                       svg_px(kLeft + static_cast<double>(start) * cell_w), svg_px(top),
                       svg_px(static_cast<double>(end - start) * cell_w), svg_px(row_h),
                       level_colour(level));
      start = end;
    }
  }
  out += "</g>\n";
  // Row labels, as many as fit 12 px apart.
  const std::size_t every = static_cast<std::size_t>(std::ceil(12.0 / row_h));
  for (std::size_t r = 0; r < rows; r += every)
    fmt::format_to(std::back_inserter(out),
                   "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" font-size=\"10\" "
                   "fill=\"#57606a\">{}</text>\n",
                   svg_px(kLeft - 4), svg_px(kTop + (static_cast<double>(r) + 0.5) * row_h + 3.5),
                   xml_escape(c.series[r].name));
  fmt::format_to(std::back_inserter(out),
                 "<text transform=\"translate(14,{}) rotate(-90)\" text-anchor=\"middle\" "
                 "font-size=\"12\" fill=\"#1f2328\">{}</text>\n",
                 svg_px(kTop + plot_h / 2), xml_escape(c.y_label));
  // Column ticks at the ends and the quarters, labelled with the columns' positions.
  const std::vector<double>& xs = rows ? c.series.front().x : std::vector<double>{};
  for (int q = 0; q <= 4 && cols > 0; ++q) {
    const std::size_t i = (cols - 1) * static_cast<std::size_t>(q) / 4;
    const double x = kLeft + (static_cast<double>(i) + 0.5) * cell_w;
    const double value = i < xs.size() ? xs[i] : static_cast<double>(i);
    fmt::format_to(std::back_inserter(out),
                   "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#57606a\"/>\n"
                   "<text x=\"{0}\" y=\"{3}\" text-anchor=\"middle\" font-size=\"11\" "
                   "fill=\"#57606a\">{4}</text>\n",
                   svg_px(x), svg_px(bottom), svg_px(bottom + 4), svg_px(bottom + 16),
                   xml_escape(format_reading(value)));
  }
  fmt::format_to(std::back_inserter(out),
                 "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"12\" "
                 "fill=\"#1f2328\">{}</text>\n",
                 svg_px((kLeft + kRight) / 2), svg_px(bottom + 34),
                 xml_escape(label_of(c.x_label, c.x_unit)));
  if (!any) {
    fmt::format_to(std::back_inserter(out),
                   "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"13\" "
                   "fill=\"#8c959f\">no data</text>\n",
                   svg_px((kLeft + kRight) / 2), svg_px(kTop + plot_h / 2 + 4));
  } else {
    // The scale: one swatch per step, the lowest and highest values at its ends.
    const double sw = 28, y0 = bottom + 50;
    const double x0 = (kLeft + kRight) / 2 - sw * kLevels / 2;
    for (int l = 0; l < kLevels; ++l)
      fmt::format_to(std::back_inserter(out),
                     "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"12\" fill=\"{}\"/>\n",
                     svg_px(x0 + sw * l), svg_px(y0), svg_px(sw), level_colour(l));
    fmt::format_to(std::back_inserter(out),
                   "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" font-size=\"11\" "
                   "fill=\"#1f2328\">{}</text>\n"
                   "<text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"#1f2328\">{}</text>\n",
                   svg_px(x0 - 6), svg_px(y0 + 10), xml_escape(format_fixed(lo, 0)),
                   svg_px(x0 + sw * kLevels + 6), svg_px(y0 + 10),
                   xml_escape(format_fixed(hi, 0) + (c.y_unit.empty() ? "" : " " + c.y_unit)));
  }
  out += "</svg>\n";
  return out;
}

}  // namespace memhier::report::detail
