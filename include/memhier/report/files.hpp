// Files written whole or not at all: a reader, or a run killed halfway, finds the previous
// complete file or the new complete one, never a truncated one.
#pragma once

#include <filesystem>
#include <string>

namespace memhier::report {

/// Writes `text` to a temporary file in `path`'s folder, flushes it to disk and renames it
/// over `path` (atomic on one file system). Throws std::runtime_error (one sentence) when
/// it cannot, leaving `path` as it was.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

}  // namespace memhier::report
