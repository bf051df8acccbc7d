// The stack chart: a memory hierarchy drawn as a pyramid of bands, fastest on top, each
// labelled beside it with its figures. The bands widen with depth, not with any figure,
// so the picture reads the same on every card; the numbers are in the text.
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
  const double height = kTop + static_cast<double>(n) * (kBand + kGap) + 30;
  std::string out = svg_open(c, standalone, height);
  const double centre = kLeft + kWide / 2;
  const auto edge = [n](double k) {  // the pyramid's width at edge k of n
    return n == 0 ? kWide : kNarrow + (kWide - kNarrow) * k / static_cast<double>(n);
  };
  for (std::size_t i = 0; i < n; ++i) {
    const double y0 = kTop + static_cast<double>(i) * (kBand + kGap);
    const double y1 = y0 + kBand;
    // The band's slanted sides follow the pyramid's outline through the gap above it.
    const double w0 = edge(static_cast<double>(i) + kGap / (kBand + kGap));
    const double w1 = edge(static_cast<double>(i) + 1);
    const std::string note = i < c.category_notes.size() ? c.category_notes[i] : std::string();
    fmt::format_to(std::back_inserter(out),
                   "<g class=\"band\"><path d=\"M{},{}H{}L{},{}H{}Z\" fill=\"{}\"/>\n"
                   "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"14\" "
                   "font-weight=\"600\" fill=\"#ffffff\">{}</text>\n",
                   svg_px(centre - w0 / 2), svg_px(y0), svg_px(centre + w0 / 2),
                   svg_px(centre + w1 / 2), svg_px(y1), svg_px(centre - w1 / 2), band_colour(i, n),
                   svg_px(centre), svg_px(y0 + kBand / 2 + 5), xml_escape(c.categories[i]));
    fmt::format_to(std::back_inserter(out),
                   "<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"#c0c6cc\" "
                   "stroke-dasharray=\"3 3\"/>\n",
                   svg_px(centre + (w0 + w1) / 4 + 6), svg_px(kTextX - 6), svg_px(y0 + kBand / 2));
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
                 "<text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"#57606a\">top to bottom: "
                 "nearer the SM to farther from it</text>\n</svg>\n",
                 svg_px(kLeft), svg_px(height - 10));
  return out;
}

}  // namespace memhier::report::detail
