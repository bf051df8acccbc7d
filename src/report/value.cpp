// Value::display: how a cell reads in the text formats (terminal, Markdown, HTML).
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

std::string strf(const char* f, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

}  // namespace memhier::report
