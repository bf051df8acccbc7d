// What the profile's two halves share inside the bench library: the profiled run
// (profile.cpp) and the tables made of its counters (profile_section.cpp); explain's run
// (explain_run.cpp) takes its temporary files the same way.
#pragma once

#include <string>

namespace memhier::bench {

/// A variant that declines the shape (particles at an axpy shape): nothing to compare.
inline constexpr const char* kNotApplicable = "does not apply to this shape: ";

/// Whether `target` names a pattern set (shared-stride, global-stride), not a family.
bool is_pattern_set(const std::string& target);

/// A fresh temporary file's name (the file exists, empty), for ncu's log; throws
/// std::runtime_error when none can be made.
std::string temp_file(const char* what);

}  // namespace memhier::bench
