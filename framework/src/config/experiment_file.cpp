// Reading the experiment file: its type and size checked before it is opened, then read whole.
#include "config/experiment_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/file_kind.hpp"
#include "config/error_text.hpp"

namespace runner::config {
namespace {

namespace fs = std::filesystem;

const std::string kFileHint = "give the path of a .toml file";

[[noreturn]] void cannot_read(const std::string& path, const std::string& reason) {
  fail(path, "cannot read the experiment file: " + reason, "check its permissions");
}

void check_size(const std::string& path, std::uintmax_t bytes) {
  if (bytes <= kMaxExperimentFileBytes) return;
  fail(path,
       "is " + std::to_string(bytes) + " bytes, more than the " +
           std::to_string(kMaxExperimentFileBytes) + " an experiment file may have",
       kFileHint);
}

// By the path, before anything opens it: opening a FIFO waits for a writer.
void check_path(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (status.type() == fs::file_type::not_found)
    fail(path, "the experiment file does not exist", kFileHint);
  if (error) cannot_read(path, error.message());
  if (status.type() != fs::file_type::regular)
    fail(path, "is " + file_type_name(status.type()) + ", not a file", kFileHint);
  const std::uintmax_t bytes = fs::file_size(path, error);
  if (error) cannot_read(path, error.message());
  check_size(path, bytes);
}

// Closes the descriptor however the read ends.
struct OpenFile {
  int fd;
  ~OpenFile() {
    if (fd >= 0) ::close(fd);
  }
};

// At most one buffer past the limit, so that a file that grew after its check still stops
// there.
std::string read_bounded(int fd, const std::string& path) {
  std::string text;
  char buffer[1 << 16];
  while (text.size() <= kMaxExperimentFileBytes) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got == 0) return text;
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) cannot_read(path, std::strerror(errno));
    text.append(buffer, static_cast<size_t>(got));
  }
  fail(path,
       "grew past the " + std::to_string(kMaxExperimentFileBytes) +
           " bytes an experiment file may have while it was read",
       kFileHint);
}

}  // namespace

std::string read_experiment_file(const std::string& path) {
  check_path(path);
  // O_NONBLOCK: should the path become a FIFO after its check, the open still returns.
  const OpenFile file{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (file.fd < 0) cannot_read(path, std::strerror(errno));
  struct stat opened {};
  if (::fstat(file.fd, &opened) != 0) cannot_read(path, std::strerror(errno));
  if (!S_ISREG(opened.st_mode)) fail(path, "was replaced by no regular file", kFileHint);
  return read_bounded(file.fd, path);
}

}  // namespace runner::config
