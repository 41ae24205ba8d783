// A start of the host that only prints its version, with its stderr kept.
#include "launcher/trial_start.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

namespace runner::launcher {
namespace {

constexpr size_t kMostKept = size_t{64} * 1024;

[[noreturn]] void become_host(const std::string& host, int errors_fd) {
  const int null_fd = open("/dev/null", O_RDWR);
  if (null_fd >= 0) {
    dup2(null_fd, STDIN_FILENO);
    dup2(null_fd, STDOUT_FILENO);
  }
  dup2(errors_fd, STDERR_FILENO);
  char version[] = "--version";
  std::string path = host;
  char* argv[] = {path.data(), version, nullptr};
  execv(path.c_str(), argv);
  const std::string why = "cannot start " + host + ": " + std::strerror(errno) + "\n";
  const ssize_t ignored = write(STDERR_FILENO, why.data(), why.size());
  static_cast<void>(ignored);
  _exit(127);
}

std::string read_all(int fd) {
  std::string text;
  char chunk[4096];
  for (;;) {
    const ssize_t got = read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    if (text.size() < kMostKept) text.append(chunk, static_cast<size_t>(got));
  }
  return text.substr(0, kMostKept);
}

int wait_for(pid_t child) {
  int status = 0;
  while (waitpid(child, &status, 0) < 0)
    if (errno != EINTR) throw std::system_error(errno, std::generic_category(), "waitpid");
  return status;
}

}  // namespace

TrialStart start_once(const std::string& host) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0)
    throw std::system_error(errno, std::generic_category(), "pipe");
  const pid_t child = fork();
  if (child < 0) {
    const int error = errno;
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    throw std::system_error(error, std::generic_category(), "fork");
  }
  if (child == 0) become_host(host, pipe_fds[1]);
  close(pipe_fds[1]);
  TrialStart trial;
  trial.errors = read_all(pipe_fds[0]);
  close(pipe_fds[0]);
  const int status = wait_for(child);
  trial.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
  trial.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return trial;
}

}  // namespace runner::launcher
