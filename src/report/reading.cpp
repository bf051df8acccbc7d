// The document as a person reads it: what every text format leaves out of a run's sections
// (a repeated paragraph, a chart slot with nothing in it), whatever edition they write.
#include <algorithm>
#include <cmath>
#include <set>

#include "common.hpp"
#include "memhier/report/writers.hpp"

namespace memhier::report {

namespace {

bool any_finite(const std::vector<double>& v) {
  return std::any_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

// A bar chart without the categories no series measured, and any chart without the series
// that hold no finite value: their slots would read as zero.
Chart without_empty_slots(const Chart& c) {
  Chart out = c;
  out.series.clear();
  for (const Series& s : c.series)
    if (any_finite(s.y)) out.series.push_back(s);
  if (c.kind != Chart::Kind::bar || out.series.empty()) return out;
  std::vector<std::size_t> keep;
  for (std::size_t i = 0; i < c.categories.size(); ++i)
    if (std::any_of(out.series.begin(), out.series.end(), [i](const Series& s) {
          return i < s.y.size() && std::isfinite(s.y[i]);
        }))
      keep.push_back(i);
  if (keep.size() == c.categories.size()) return out;
  out.categories.clear();
  for (std::size_t i : keep) out.categories.push_back(c.categories[i]);
  for (Series& s : out.series) {
    std::vector<double> y;
    for (std::size_t i : keep) y.push_back(i < s.y.size() ? s.y[i] : NAN);
    s.y = std::move(y);
  }
  return out;
}

}  // namespace

Document for_reading(const Document& d) {
  Document out = d;
  std::set<std::string> said;
  for (Section& s : out.sections) {
    std::vector<std::string> paragraphs;
    for (std::string& p : s.paragraphs)
      if (said.insert(p).second) paragraphs.push_back(std::move(p));
    s.paragraphs = std::move(paragraphs);
    for (Chart& c : s.charts) c = without_empty_slots(c);
  }
  return out;
}

namespace detail {

bool folded(const Section& s, std::size_t t, const Edition& e) {
  return !e.full && (!s.charts.empty() || t != 0 || s.tables[t].rows.size() > kFoldedRows);
}

}  // namespace detail

}  // namespace memhier::report
