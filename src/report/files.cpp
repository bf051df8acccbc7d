#include "memhier/report/files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace memhier::report {
namespace {

// Writes all of `text` to `fd` and flushes it to the disk; false on any failure.
bool write_all(int fd, const std::string& text) {
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return ::fsync(fd) == 0;
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  // Beside the target (a rename within one file system), named for this process.
  const std::filesystem::path tmp =
      path.parent_path() / ("." + path.filename().string() + ".tmp." + std::to_string(::getpid()));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(errno) + ".");
  const bool written = write_all(fd, text);
  const int saved = errno;
  const bool closed = ::close(fd) == 0;
  std::error_code ec;
  if (!written || !closed) {
    std::filesystem::remove(tmp, ec);
    throw std::runtime_error("cannot write " + path.string() + ": " +
                             std::strerror(written ? errno : saved) + ".");
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    const std::string why = ec.message();
    std::filesystem::remove(tmp, ec);
    throw std::runtime_error("cannot write " + path.string() + ": " + why + ".");
  }
}

}  // namespace memhier::report
