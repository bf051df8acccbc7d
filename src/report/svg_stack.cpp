// The stack chart: a memory hierarchy drawn as a pyramid of bands in the order data travels,
// fastest on top, each labelled beside it with its figures, then the spaces beside that path
// apart below it. A band's width grows with the log of its capacity where the chart gives one,
// else with its depth; the numbers are in the text.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "common.hpp"

namespace memhier::report::detail {

namespace {

constexpr double kWidth = kSvgWidth;
constexpr double kTop = 48;  // below the title
constexpr double kBand = 38;
constexpr double kGap = 6;
constexpr double kLeft = 24;
constexpr double kNarrow = 90;  // the top edge of the first band
constexpr double kWide = 270;   // the bottom edge of the last band
constexpr double kTextX = kLeft + kWide + 26;

// From the Okabe-Ito blue (fast, near) to its vermillion (slow, far): dark enough at every
// step for white text.
std::string band_colour(std::size_t i, std::size_t n) {
  const double t = n > 1 ? static_cast<double>(i) / static_cast<double>(n - 1) : 0.0;
  const auto mix = [t](int a, int b) { return static_cast<int>(std::lround(a + (b - a) * t)); };
  return fmt::format("#{:02X}{:02X}{:02X}", mix(0x00, 0xD5), mix(0x72, 0x5E), mix(0xB2, 0x00));
}

// The note in lines that fit beside the pyramid: its "  ·  "-separated figures, greedily
// (about 0.58 em a character: an estimate, as in the other charts).
std::vector<std::string> note_lines(const std::string& note) {
  static const std::string kSep = "  \xC2\xB7  ";
  const auto fits = [](const std::string& s) {
    return static_cast<double>(text_width(s)) * 13 * 0.58 <= kWidth - kTextX - 10;
  };
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= note.size()) {
    const std::size_t end = std::min(note.find(kSep, start), note.size());
    const std::string part = note.substr(start, end - start);
    if (!lines.empty() && fits(lines.back() + kSep + part))
      lines.back() += kSep + part;
    else
      lines.push_back(part);
    start = end + kSep.size();
  }
  return lines;
}

}  // namespace

std::string svg_stack(const Chart& c, bool standalone) {
  const std::size_t n = c.categories.size();
  const std::size_t path = c.stack_path == 0 ? n : std::min(c.stack_path, n);
  constexpr double kApart = 24;  // the gap and its label between the path and the spaces beside
  const double height = kTop + static_cast<double>(n) * (kBand + kGap) + 30 + (path < n ? kApart : 0);
  std::string out = svg_open(c, standalone, height);
  const double centre = kLeft + kWide / 2;
  // log2 of the capacities given: the smallest draws kNarrow wide, the largest kWide.
  double lo = INFINITY, hi = -INFINITY;
  for (std::size_t i = 0; i < std::min(n, c.category_sizes.size()); ++i)
    if (std::isfinite(c.category_sizes[i]) && c.category_sizes[i] > 0) {
      lo = std::min(lo, std::log2(c.category_sizes[i]));
      hi = std::max(hi, std::log2(c.category_sizes[i]));
    }
  const auto width = [&](std::size_t i) {
    const double size = i < c.category_sizes.size() ? c.category_sizes[i] : NAN;
    if (std::isfinite(size) && size > 0 && hi > lo)
      return kNarrow + (kWide - kNarrow) * (std::log2(size) - lo) / (hi - lo);
    if (std::isfinite(size) && size > 0) return (kNarrow + kWide) / 2;
    // No capacity: the path widens with depth; a space beside it is drawn narrow.
    return i < path ? kNarrow + (kWide - kNarrow) * static_cast<double>(i + 1) /
                                    static_cast<double>(std::max<std::size_t>(path, 1))
                    : kNarrow;
  };
  for (std::size_t i = 0; i < n; ++i) {
    const bool beside = i >= path;
    const double y0 = kTop + static_cast<double>(i) * (kBand + kGap) + (beside ? kApart : 0);
    if (beside && i == path)
      fmt::format_to(std::back_inserter(out),
                     "<text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"#57606a\">beside the "
                     "path: spaces in device memory with their own way to the SM</text>\n",
                     svg_px(kLeft), svg_px(y0 - 8));
    const double w = width(i);
    const std::string note = i < c.category_notes.size() ? c.category_notes[i] : std::string();
    fmt::format_to(std::back_inserter(out),
                   "<g class=\"band\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"3\" "
                   "fill=\"{}\"{}/>\n"
                   "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"14\" "
                   "font-weight=\"600\" fill=\"#ffffff\">{}</text>\n",
                   svg_px(centre - w / 2), svg_px(y0), svg_px(w), svg_px(kBand),
                   beside ? "#6E7781" : band_colour(i, path),
                   beside ? " stroke=\"#57606a\" stroke-dasharray=\"4 3\"" : "", svg_px(centre),
                   svg_px(y0 + kBand / 2 + 5), xml_escape(c.categories[i]));
    fmt::format_to(std::back_inserter(out),
                   "<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"#c0c6cc\" "
                   "stroke-dasharray=\"3 3\"/>\n",
                   svg_px(centre + w / 2 + 6), svg_px(kTextX - 6), svg_px(y0 + kBand / 2));
    const std::vector<std::string> lines = note_lines(note);
    for (std::size_t l = 0; l < lines.size(); ++l) {
      const double y = y0 + kBand / 2 + 4.5 +
                       15.0 * (static_cast<double>(l) - static_cast<double>(lines.size() - 1) / 2);
      fmt::format_to(std::back_inserter(out),
                     "<text x=\"{}\" y=\"{}\" font-size=\"13\" fill=\"{}\">{}</text>\n",
                     svg_px(kTextX), svg_px(y), note == "not measured" ? "#8c959f" : "#1f2328",
                     xml_escape(lines[l]));
    }
    out += "</g>\n";
  }
  fmt::format_to(std::back_inserter(out),
                 "<text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"#57606a\">top to bottom: the "
                 "way data travels, nearer the SM to farther{}</text>\n</svg>\n",
                 svg_px(kLeft), svg_px(height - 10),
                 hi >= lo ? "; width: capacity (log scale)" : "");
  return out;
}

}  // namespace memhier::report::detail
