// The one progress line commands show on stderr while they measure.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <string>

namespace memhier::cli {

class ProgressLine {
 public:
  explicit ProgressLine(std::string prefix) : prefix_(std::move(prefix)), tty_(isatty(2) != 0) {}
  ~ProgressLine() { done(); }
  /// Shows "prefix: step" (rewritten in place on a terminal, one line per step otherwise).
  void step(const std::string& what) {
    ++n_;
    if (tty_)
      std::fprintf(stderr, "\r\033[K%s [%d] %s", prefix_.c_str(), n_, what.c_str());
    else
      std::fprintf(stderr, "%s [%d] %s\n", prefix_.c_str(), n_, what.c_str());
    std::fflush(stderr);
    shown_ = true;
  }
  void done() {
    if (tty_ && shown_) std::fprintf(stderr, "\r\033[K");
    shown_ = false;
  }

 private:
  std::string prefix_;
  bool tty_;
  bool shown_ = false;
  int n_ = 0;
};

}  // namespace memhier::cli
