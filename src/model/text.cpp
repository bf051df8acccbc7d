// The formatter that cannot truncate (text.hpp): measure, then write.
#include "memhier/model/text.hpp"

#include <cstdio>

namespace memhier::model {

std::string vstrf(const char* f, va_list ap) {
  va_list measure;
  va_copy(measure, ap);
  const int n = std::vsnprintf(nullptr, 0, f, measure);
  va_end(measure);
  if (n <= 0) return {};
  std::string s(static_cast<std::size_t>(n) + 1, '\0');
  std::vsnprintf(s.data(), s.size(), f, ap);
  s.resize(static_cast<std::size_t>(n));
  return s;
}

std::string strf(const char* f, ...) {
  va_list ap;
  va_start(ap, f);
  std::string s = vstrf(f, ap);
  va_end(ap);
  return s;
}

}  // namespace memhier::model
