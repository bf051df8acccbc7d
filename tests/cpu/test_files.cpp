// Report files are written whole: a temporary file beside the target, renamed over it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "memhier/report/files.hpp"

namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(ReportFiles, ReplacesTheFileAndLeavesNothingElse) {
  const fs::path dir = fs::temp_directory_path() / ("memhier_files_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  memhier::report::write_file_atomically(dir / "results.json", "first\n");
  memhier::report::write_file_atomically(dir / "results.json", std::string(1 << 20, 'x'));
  EXPECT_EQ(read(dir / "results.json"), std::string(1 << 20, 'x'));
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 1);
  fs::remove_all(dir);
}

TEST(ReportFiles, AFolderThatIsNotThereIsOneSentenceAndNoFile) {
  const fs::path p = fs::temp_directory_path() / "memhier_no_such_folder" / "report.md";
  try {
    memhier::report::write_file_atomically(p, "text");
    ADD_FAILURE() << "wrote into a missing folder";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cannot write " + p.string() + ": ", 0), 0u) << e.what();
  }
  EXPECT_FALSE(fs::exists(p));
}

}  // namespace
