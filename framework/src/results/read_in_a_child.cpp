// The trial read in a forked child: a child that crashes makes the file a DataError, as damaged.
#include "results/read_in_a_child.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <string>

#include "runner/errors.hpp"

namespace runner::results::detail {
namespace {

bool in_the_child = false;

const char* crash_name(int signal) {
  switch (signal) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGABRT: return "SIGABRT";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    default: return nullptr;
  }
}

}  // namespace

void read_first_in_a_child(const std::string& path, const std::function<void()>& read) {
  if (in_the_child) return;
  const pid_t child = fork();
  if (child < 0) return;
  if (child == 0) {
    in_the_child = true;
    try {
      read();
    } catch (...) {
    }
    _exit(0);  // not exit: the parent's atexit handlers would close its HDF5 files from here
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  // The child exits 0 whatever its read threw; another code is a sanitizer's death.
  std::string crash;
  if (WIFSIGNALED(status) && crash_name(WTERMSIG(status)))
    crash = crash_name(WTERMSIG(status));
  else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
    crash = "exit code " + std::to_string(WEXITSTATUS(status));
  if (crash.empty()) return;
  throw DataError(path + ": damaged: reading it crashes the HDF5 library (" + crash +
                      " in a trial read): a reference inside the file points at nothing",
                  "the file was changed or cut by something other than runner");
}

}  // namespace runner::results::detail
