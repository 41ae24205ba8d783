// Forking, signalling and reaping the processes of one launch.
#include "ranks/rank_processes.hpp"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <optional>

#include "runner/errors.hpp"

namespace runner::ranks {
namespace {

// The exit status of a reaped child.
RankExit exit_of(int rank, int status) {
  if (WIFSIGNALED(status)) return {rank, -1, WTERMSIG(status)};
  return {rank, WEXITSTATUS(status), 0};
}

// Reaps `pid` if it has ended. ECHILD means something else reaped it (SIGCHLD ignored): it has
// ended, with a status nobody can read any more.
// A stopped or continued rank is noted in `stopped` and looked at again.
std::optional<RankExit> reap_if_ended(int rank, pid_t pid, std::map<pid_t, int>& stopped) {
  while (true) {
    int status = 0;
    const pid_t reaped = waitpid(pid, &status, WNOHANG | WUNTRACED | WCONTINUED);
    if (reaped < 0 && errno == EINTR) continue;
    if (reaped == 0) return std::nullopt;
    if (reaped > 0 && WIFSTOPPED(status)) {
      stopped[pid] = WSTOPSIG(status);
      continue;
    }
    if (reaped > 0 && WIFCONTINUED(status)) {
      stopped.erase(pid);
      continue;
    }
    RankExit exit = reaped < 0 ? RankExit{rank, -1, 0} : exit_of(rank, status);
    if (auto it = stopped.find(pid); it != stopped.end()) {
      exit.stopped_by = it->second;
      stopped.erase(it);
    }
    return exit;
  }
}

void reap_blocking(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

// Pointers into `strings`, ending with the null that execve expects.
std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (const std::string& s : strings) pointers.push_back(const_cast<char*>(s.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

// Between fork and exec only async-signal-safe calls: another thread of the launcher may have
// held a lock (malloc's) at the fork, and it stays locked in the child.
[[noreturn]] void become_rank(char* const argv[], char* const envp[], pid_t launcher) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The launcher died before prctl: nobody would ever stop this rank.
  if (getppid() != launcher) _exit(127);
  // A mask the launcher's thread inherited would keep SIGINT and SIGTERM from the rank, and so
  // would an ignored SIGINT: a non-interactive shell starts its background commands so. The
  // launcher stops its ranks with these two signals.
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction by_default {};
  by_default.sa_handler = SIG_DFL;
  sigaction(SIGINT, &by_default, nullptr);
  sigaction(SIGTERM, &by_default, nullptr);
  execve(argv[0], argv, envp);
  _exit(127);
}

}  // namespace

RankProcesses::~RankProcesses() {
  signal_all(SIGKILL);
  for (const auto& [rank, pid] : running_) reap_blocking(pid);
}

void RankProcesses::start(int rank, const RankCommand& command) {
  std::vector<char*> argv = c_strings(command.argv);
  std::vector<char*> envp = c_strings(command.env);
  running_.reserve(running_.size() + 1);  // so that recording the child cannot throw
  pid_t launcher = getpid();
  pid_t pid = fork();
  if (pid < 0)
    throw RunError("cannot start rank " + std::to_string(rank) +
                   ": fork failed: " + std::strerror(errno));
  if (pid == 0) become_rank(argv.data(), envp.data(), launcher);
  running_.emplace_back(rank, pid);
}

std::vector<RankExit> RankProcesses::reap_ended() {
  // Reserved up front: a throw after a reap would leave a reaped pid here to be signalled.
  std::vector<RankExit> ended;
  ended.reserve(running_.size());
  std::vector<std::pair<int, pid_t>> still_running;
  still_running.reserve(running_.size());
  for (const auto& [rank, pid] : running_) {
    if (std::optional<RankExit> exit = reap_if_ended(rank, pid, stopped_))
      ended.push_back(*exit);
    else
      still_running.emplace_back(rank, pid);
  }
  running_ = std::move(still_running);
  return ended;
}

void RankProcesses::signal_all(int signal) {
  for (const auto& [rank, pid] : running_) kill(pid, signal);
}

void RankProcesses::kill_stopped() {
  for (const auto& [rank, pid] : running_)
    if (stopped_.count(pid)) kill(pid, SIGKILL);
}

}  // namespace runner::ranks
