// printf-style formatting into a std::string as long as the text needs: the one formatter
// behind every sentence, caption and figure the floors write (never a fixed buffer that
// cuts a paragraph short).
#pragma once

#include <cstdarg>
#include <string>

namespace memhier::model {

/// `f` formatted with the arguments, whole whatever its length.
__attribute__((format(printf, 1, 2))) std::string strf(const char* f, ...);

/// strf over a va_list (for other printf-style wrappers); `ap` is consumed.
__attribute__((format(printf, 1, 0))) std::string vstrf(const char* f, va_list ap);

}  // namespace memhier::model
