// thread_start_problem: the threads a run asks for start, or the refusal names the count and the
// limit of processes and threads (ulimit -u) that stopped them, without waiting.
#include "machine/thread_start.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <string>

using ::testing::HasSubstr;

namespace runner::machine {
namespace {

TEST(ThreadStart, TheThreadsAskedForStart) {
  EXPECT_EQ(thread_start_problem(0), std::nullopt);
  EXPECT_EQ(thread_start_problem(8), std::nullopt);
}

constexpr uid_t kNobody = 65534;

// The problem of starting `beside` threads in a child limited to one process and thread, as a user
// the limit binds (root is exempt from it: the child becomes nobody then). A child that
// hangs is ended by its alarm.
std::string problem_under_a_process_limit_of_one(int beside) {
  std::array<int, 2> pipe_ends{};
  if (pipe(pipe_ends.data()) != 0) return "pipe failed";
  const pid_t child = fork();
  if (child == 0) {
    close(pipe_ends[0]);
    alarm(20);
    if (geteuid() == 0 && (setgid(kNobody) != 0 || setuid(kNobody) != 0)) _exit(3);
    const rlimit one{1, 1};
    if (setrlimit(RLIMIT_NPROC, &one) != 0) _exit(4);
    const std::string problem = thread_start_problem(beside).value_or("");
    const bool written =
        write(pipe_ends[1], problem.data(), problem.size()) == static_cast<ssize_t>(problem.size());
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

TEST(ThreadStart, AProcessLimitIsOneLineNamingTheCountAndTheLimit) {
  const std::string problem = problem_under_a_process_limit_of_one(3);
  EXPECT_THAT(problem, HasSubstr("cannot start 3 threads beside this one: ")) << problem;
  EXPECT_THAT(problem, HasSubstr("this user may run 1 processes and threads (ulimit -u)"))
      << problem;
  EXPECT_EQ(problem.find('\n'), std::string::npos) << problem;
}

}  // namespace
}  // namespace runner::machine
