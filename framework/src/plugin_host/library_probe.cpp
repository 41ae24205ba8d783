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
#include <filesystem>
#include <fstream>
#include <set>

#include "plugin_host/library.hpp"
#include "runner/version.hpp"

namespace runner::plugin_host {
namespace {

constexpr int kLoadSeconds = 60;  // a library still loading after this is taken for hung
constexpr char kLoaded = 'y';
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

// In the child: load it as the host would, say so, and end without running anything of the
// host's (no atexit handler, no flush of buffers the parent also holds).
[[noreturn]] void load_in_child(const std::string& path, int answer) {
  const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null >= 0) {
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
  }
  try {
    Library::load(path);
  } catch (...) {  // refused by the usual checks: the host's own load says why
  }
  const char loaded = kLoaded;
  const bool said = write(answer, &loaded, 1) == 1;
  _exit(said ? 0 : 1);
}

std::string how_it_ended(int status) {
  if (WIFSIGNALED(status)) {
    // The signal's name (SIGSEGV), not its description: "Segmentation fault" in a line reads
    // as the host's own crash.
    const int signal = WTERMSIG(status);
    const char* name = sigabbrev_np(signal);
    return "crashed with signal " + std::to_string(signal) + " (SIG" + (name ? name : "?") +
           ") while loading" +
           (signal == SIGABRT ? ": an exception from a constructor, or abort()" : "");
  }
  if (WIFEXITED(status))
    return "ended the process with exit code " + std::to_string(WEXITSTATUS(status)) +
           " while loading (a constructor that calls exit())";
  return "stopped while loading";
}

// nullopt when it loaded in the child; how it failed otherwise. Where no child can be started
// the library is not tried: the host loads it as it did before children.
std::optional<std::string> try_in_child(const std::string& path) {
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
  while ((ready = poll(&answer, 1, kLoadSeconds * 1000)) < 0 && errno == EINTR) {
  }
  char said = 0;
  const bool loaded = ready > 0 && read(ends[0], &said, 1) == 1 && said == kLoaded;
  close(ends[0]);
  if (ready == 0) kill(child, SIGKILL);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (loaded) return std::nullopt;
  if (ready == 0) return "did not finish loading in " + std::to_string(kLoadSeconds) + " s";
  return how_it_ended(status);
}

}  // namespace

std::optional<std::string> probe_failure(const std::string& path) {
  const std::string cache = cache_path();
  const std::string line = identity(path);
  if (!cache.empty() && !line.empty() && cached(cache, line)) return std::nullopt;
  std::optional<std::string> failure = try_in_child(path);
  if (!failure && !cache.empty() && !line.empty()) remember(cache, line);
  return failure;
}

}  // namespace runner::plugin_host
