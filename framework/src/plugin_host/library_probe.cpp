// Loading a plugin library in a child process first, and the cache of the ones that loaded.
#include "plugin_host/library_probe.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <set>

#include "plugin_host/library.hpp"
#include "runner/errors.hpp"
#include "runner/version.hpp"

namespace runner::plugin_host {
namespace {

constexpr char kLoaded = 'y';
constexpr char kThrew = 't';                       // followed by what the exception says
constexpr char kExited = 'x';                      // a constructor called exit()
constexpr std::uintmax_t kLargestCache = 1 << 20;  // past it the cache starts over

// The cache file, or "" where there is no folder to keep it in.
std::string cache_path() {
  std::filesystem::path folder;
  if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache && *cache)
    folder = cache;
  else if (const char* home = std::getenv("HOME"); home && *home)
    folder = std::filesystem::path(home) / ".cache";
  else
    return "";
  return (folder / "runner" / ("loaded-plugins-" RUNNER_VERSION)).string();
}

// A library as the cache knows it: what changes when it is rebuilt, replaced or edited.
std::string identity(const std::string& path) {
  struct stat s {};
  if (stat(path.c_str(), &s) != 0) return "";
  return std::to_string(s.st_dev) + " " + std::to_string(s.st_ino) + " " +
         std::to_string(s.st_size) + " " + std::to_string(s.st_ctim.tv_sec) + "." +
         std::to_string(s.st_ctim.tv_nsec) + " " + path;
}

bool cached(const std::string& cache, const std::string& line) {
  std::ifstream in(cache);
  for (std::string kept; std::getline(in, kept);)
    if (kept == line) return true;
  return false;
}

// One line appended (O_APPEND: runners that add at once do not overwrite each other); a
// cache that cannot be written only costs the next run its children again.
void remember(const std::string& cache, const std::string& line) {
  std::error_code error;
  std::filesystem::create_directories(std::filesystem::path(cache).parent_path(), error);
  if (std::filesystem::file_size(cache, error) > kLargestCache && !error)
    std::filesystem::remove(cache, error);
  const int fd = open(cache.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  const std::string text = line + "\n";
  [[maybe_unused]] const ssize_t written =
      write(fd, text.data(), text.size());  // short: tried again
  close(fd);
}

int child_answer = -1;  // the child's end of the pipe, for its terminate handler

// In the child, with an exception in flight: says what it says and ends.
[[noreturn]] void say_what_was_thrown() {
  std::string text(1, kThrew);
  try {
    throw;
  } catch (const std::exception& e) {
    text += e.what();
  } catch (...) {
    text += "an exception that is no std::exception";
  }
  [[maybe_unused]] const ssize_t written = write(child_answer, text.data(), text.size());
  _exit(1);
}

// In the child, the first of exit()'s handlers (the last registered): a constructor's exit()
// ends the child here, before the handlers and static destructors it inherited from the host
// run in a second process (HDF5's would flush the host's open files).
[[noreturn]] void end_at_exit() {
  const char exited = kExited;
  [[maybe_unused]] const ssize_t written = write(child_answer, &exited, 1);
  _exit(1);
}

// In the child: load it as the host would, say so, and end without running anything of the
// host's (no atexit handler, no flush of buffers the parent also holds). An exception out of a
// constructor ends in std::terminate where the C library's loader is built without unwinding
// (glibc 2.36) and comes out of dlopen where it is not (2.41): both say what it was.
[[noreturn]] void load_in_child(const std::string& path, int answer) {
  const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null >= 0) {
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
  }
  child_answer = answer;
  std::set_terminate(say_what_was_thrown);
  std::atexit(end_at_exit);
  try {
    Library::load(path);
  } catch (const Error&) {  // refused by the usual checks: the host's own load says why
  } catch (...) {
    say_what_was_thrown();
  }
  const char loaded = kLoaded;
  const bool said = write(answer, &loaded, 1) == 1;
  _exit(said ? 0 : 1);
}

// The child's answer: "" when it said nothing.
std::string answer_of(int fd) {
  char text[512];
  const ssize_t got = read(fd, text, sizeof text);
  return got > 0 ? std::string(text, static_cast<size_t>(got)) : "";
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string how_it_ended(int status) {
  if (WIFSIGNALED(status)) {
    // The signal's name (SIGSEGV), not its description: "Segmentation fault" in a line reads
    // as the host's own crash.
    const int signal = WTERMSIG(status);
    const char* name = sigabbrev_np(signal);
    return "crashed with signal " + std::to_string(signal) + " (SIG" + (name ? name : "?") +
           ") while loading" + (signal == SIGABRT ? ": abort() from a constructor" : "");
  }
  if (WIFEXITED(status))
    return "ended the process with exit code " + std::to_string(WEXITSTATUS(status)) +
           " while loading (a constructor that calls _exit())";
  return "stopped while loading";
}

// nullopt when it loaded in the child; how it failed otherwise. Where no child can be started
// the library is not tried: the host loads it as it did before children.
std::optional<std::string> try_in_child(const std::string& path, int limit_seconds) {
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0) return std::nullopt;
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child == 0) {
    close(ends[0]);
    load_in_child(path, ends[1]);
  }
  close(ends[1]);
  if (child < 0) {
    close(ends[0]);
    return std::nullopt;
  }
  pollfd answer{ends[0], POLLIN, 0};
  int ready = 0;
  while ((ready = poll(&answer, 1, limit_seconds * 1000)) < 0 && errno == EINTR) {
  }
  const std::string said = ready > 0 ? answer_of(ends[0]) : "";
  close(ends[0]);
  if (ready == 0) kill(child, SIGKILL);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (said == std::string(1, kLoaded)) return std::nullopt;
  if (said == std::string(1, kExited))
    return "called exit() while loading (a constructor that ends the process)";
  if (!said.empty() && said[0] == kThrew)
    return "threw an exception while loading: " + first_line(said.substr(1));
  if (ready == 0) return "did not finish loading in " + std::to_string(limit_seconds) + " s";
  return how_it_ended(status);
}

}  // namespace

std::optional<std::string> probe_failure(const std::string& path, int limit_seconds) {
  const std::string cache = cache_path();
  const std::string line = identity(path);
  if (!cache.empty() && !line.empty() && cached(cache, line)) return std::nullopt;
  std::optional<std::string> failure = try_in_child(path, limit_seconds);
  if (!failure && !cache.empty() && !line.empty()) remember(cache, line);
  return failure;
}

}  // namespace runner::plugin_host
