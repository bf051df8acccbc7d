// Value and Table helpers: how a cell reads in the text formats (terminal, Markdown, HTML).
#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>

#include "common.hpp"
#include "memhier/model/text.hpp"
#include "memhier/report/document.hpp"

namespace memhier::report {

std::string Value::display() const {
  switch (kind) {
    case Kind::empty:
      return {};
    case Kind::text:
      return text;
    case Kind::number: {
      if (!std::isfinite(number)) return "n/a";
      // Fixed notation keeps large integers out of exponent form; the clamp bounds the width.
      const int digits = std::clamp(precision, 0, 17);
      std::string out = detail::format_fixed(number, digits);
      if (has_spread())  // an en dash between the percentiles
        out += " (" + detail::format_fixed(p10, digits) + "\xE2\x80\x93" +
               detail::format_fixed(p90, digits) + ")";
      return out;
    }
  }
  return {};
}

Value Value::num_or_none(double v, int precision) {
  return std::isfinite(v) ? num(v, precision) : none();
}

Value Value::median_or_none(double median, double p10, double p90, int precision) {
  Value v = num_or_none(median, precision);
  if (v.kind == Kind::number) {
    v.p10 = p10;
    v.p90 = p90;
  }
  return v;
}

bool Value::has_spread() const {
  return kind == Kind::number && std::isfinite(p10) && std::isfinite(p90);
}

int Table::column(const std::string& key) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i].key == key) return static_cast<int>(i);
  return -1;
}

std::string strf(const char* f, ...) {
  va_list ap;
  va_start(ap, f);
  std::string s = model::vstrf(f, ap);
  va_end(ap);
  return s;
}

}  // namespace memhier::report
