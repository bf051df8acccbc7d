// Value and Table helpers: how a cell reads in the text formats (terminal, Markdown, HTML).
#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>

#include "common.hpp"
#include "memhier/report/document.hpp"

namespace memhier::report {

std::string Value::display() const {
  switch (kind) {
    case Kind::empty:
      return {};
    case Kind::text:
      return text;
    case Kind::number:
      if (!std::isfinite(number)) return "n/a";
      // Fixed notation keeps large integers out of exponent form; the clamp bounds the width.
      return detail::format_fixed(number, std::clamp(precision, 0, 17));
  }
  return {};
}

Value Value::num_or_none(double v, int precision) {
  return std::isfinite(v) ? num(v, precision) : none();
}

int Table::column(const std::string& key) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i].key == key) return static_cast<int>(i);
  return -1;
}

std::string strf(const char* f, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

}  // namespace memhier::report
