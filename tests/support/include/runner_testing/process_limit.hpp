// What an action says in a child process under a limit of processes and threads (ulimit -u),
// as a user the limit binds: root is exempt from it, so a child of root becomes nobody.
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <functional>
#include <string>

namespace runner::testing {

inline constexpr uid_t kNobody = 65534;

// The text `action` returns in a child limited to `nproc` processes and threads; a child that
// hangs is ended by its alarm, one that crashes is named with its status.
inline std::string said_under_process_limit(rlim_t nproc,
                                            const std::function<std::string()>& action) {
  std::array<int, 2> pipe_ends{};
  if (pipe(pipe_ends.data()) != 0) return "pipe failed";
  const pid_t child = fork();
  if (child == 0) {
    close(pipe_ends[0]);
    alarm(20);
    if (geteuid() == 0 && (setgid(kNobody) != 0 || setuid(kNobody) != 0)) _exit(3);
    const rlimit limit{nproc, nproc};
    if (setrlimit(RLIMIT_NPROC, &limit) != 0) _exit(4);
    const std::string said = action();
    const bool written =
        write(pipe_ends[1], said.data(), said.size()) == static_cast<ssize_t>(said.size());
    _exit(written ? 0 : 5);
  }
  close(pipe_ends[1]);
  std::string said;
  std::array<char, 512> buffer{};
  for (ssize_t got; (got = read(pipe_ends[0], buffer.data(), buffer.size())) > 0;)
    said.append(buffer.data(), static_cast<size_t>(got));
  close(pipe_ends[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return "the child ended with status " + std::to_string(status);
  return said;
}

}  // namespace runner::testing
