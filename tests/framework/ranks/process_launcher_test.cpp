// The local launcher with /bin/sh ranks: exit codes, environment, a rank that dies, Ctrl-C, a rank
// that ignores SIGTERM, and that nothing of ours is left running or unreaped.
#include "ranks/process_launcher.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "runner/errors.hpp"
#include "runner_testing/error_message.hpp"

namespace runner::ranks {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

LaunchSpec shell_ranks(int world_size, const std::string& script) {
  LaunchSpec spec;
  spec.argv = {"/bin/sh", "-c", script};
  spec.world_size = world_size;
  spec.rank_env = [](int rank) {
    return std::map<std::string, std::string>{{"RANK", std::to_string(rank)}};
  };
  spec.grace = milliseconds(300);
  return spec;
}

LaunchResult launch(const LaunchSpec& spec) { return launch_ranks(spec, {}); }

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Every child this test process started has been reaped.
void expect_no_children_left() {
  errno = 0;
  EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

// Reaped, or a zombie that init has not reaped yet (a container's init may never do it).
bool process_gone(pid_t pid) {
  if (kill(pid, 0) != 0 && errno == ESRCH) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string fields;
  std::getline(stat, fields);
  std::size_t after_name = fields.rfind(')');
  return after_name != std::string::npos && fields.compare(after_name, 3, ") Z") == 0;
}

// A fresh folder for files the ranks write.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = ::testing::TempDir() + "launch_test_XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Shell commands: the rank's pid appears in `path` whole (written, then renamed), then the rank
// sleeps as that same process.
std::string write_pid_then_sleep(const std::string& path) {
  return "echo $$ > '" + path + ".tmp'; mv '" + path + ".tmp' '" + path + "'; exec sleep 60";
}

// The shell command that marks a rank ready (once its trap is set).
std::string touch_ready(const ScratchDir& scratch) {
  return "touch '" + scratch.file("ready") + "'$RANK;";
}

// True once every rank has touched its "ready<RANK>" file in `scratch`: its trap is set.
std::function<bool()> all_ready(const ScratchDir& scratch, int world_size) {
  return [&scratch, world_size] {
    for (int rank = 0; rank < world_size; ++rank)
      if (access(scratch.file("ready" + std::to_string(rank)).c_str(), F_OK) != 0) return false;
    return true;
  };
}

pid_t read_pid(const std::string& path) {
  std::ifstream in(path);
  pid_t pid = 0;
  in >> pid;
  return pid;
}

const RankExit& exit_of_rank(const LaunchResult& result, int rank) {
  for (const RankExit& exit : result.exits)
    if (exit.rank == rank) return exit;
  throw std::runtime_error("no exit for rank " + std::to_string(rank));
}

TEST(DescribeExit, SaysHowARankEnded) {
  EXPECT_EQ(describe_exit({0, 5, 0}), "exited with code 5");
  EXPECT_EQ(describe_exit({0, 0, 0}), "exited with code 0");
  EXPECT_EQ(describe_exit({0, -1, SIGKILL}), "was killed by signal 9 (SIGKILL)");
  EXPECT_EQ(describe_exit({0, -1, SIGSEGV}), "was killed by signal 11 (SIGSEGV)");
  EXPECT_EQ(describe_exit({0, -1, 60}), "was killed by signal 60");
  EXPECT_EQ(describe_exit({0, -1, 0}), "ended with an unknown status");
}

TEST(LaunchRanks, AllRanksExitZero) {
  LaunchResult result = launch(shell_ranks(3, "exit 0"));
  ASSERT_EQ(result.exits.size(), 3u);
  EXPECT_TRUE(result.succeeded());
  for (int rank = 0; rank < 3; ++rank) EXPECT_TRUE(exit_of_rank(result, rank).succeeded());
  expect_no_children_left();
}

TEST(LaunchRanks, ReportsEachRanksExitCode) {
  LaunchResult result = launch(shell_ranks(3, "exit $((RANK + 3))"));
  ASSERT_EQ(result.exits.size(), 3u);
  EXPECT_FALSE(result.succeeded());
  for (int rank = 0; rank < 3; ++rank) {
    EXPECT_EQ(exit_of_rank(result, rank).exit_code, rank + 3);
    EXPECT_EQ(exit_of_rank(result, rank).signal, 0);
  }
  expect_no_children_left();
}

TEST(LaunchRanks, RanksSeeTheLauncherEnvironmentWithTheSpecsOnTop) {
  setenv("RUNNER_LAUNCH_TEST_KEPT", "kept", 1);
  setenv("RUNNER_LAUNCH_TEST_REPLACED", "old", 1);
  LaunchSpec spec = shell_ranks(2,
                                "test \"$RUNNER_LAUNCH_TEST_KEPT\" = kept || exit 10;"
                                "test \"$RUNNER_LAUNCH_TEST_REPLACED\" = new || exit 11;"
                                "test \"$RUNNER_LAUNCH_TEST_EXTRA\" = \"a b\" || exit 12;"
                                "test \"$RUNNER_LAUNCH_TEST_PER_RANK\" = \"r$RANK\" || exit 13;"
                                "exit $((RANK + 20))");
  spec.env = {{"RUNNER_LAUNCH_TEST_REPLACED", "new"}, {"RUNNER_LAUNCH_TEST_EXTRA", "a b"}};
  spec.rank_env = [](int rank) {
    return std::map<std::string, std::string>{
        {"RANK", std::to_string(rank)},
        {"RUNNER_LAUNCH_TEST_PER_RANK", "r" + std::to_string(rank)}};
  };
  LaunchResult result = launch(spec);
  unsetenv("RUNNER_LAUNCH_TEST_KEPT");
  unsetenv("RUNNER_LAUNCH_TEST_REPLACED");
  ASSERT_EQ(result.exits.size(), 2u);
  EXPECT_EQ(exit_of_rank(result, 0).exit_code, 20);
  EXPECT_EQ(exit_of_rank(result, 1).exit_code, 21);
}

TEST(LaunchRanks, ASuccessfulRankDoesNotStopTheOthers) {
  LaunchSpec spec = shell_ranks(2, "test $RANK = 0 && exit 0; sleep 0.6; exit 0");
  spec.grace = milliseconds(50);
  LaunchResult result = launch(spec);
  ASSERT_EQ(result.exits.size(), 2u);
  EXPECT_EQ(result.exits[0].rank, 0);
  EXPECT_TRUE(result.succeeded());  // rank 1 was not stopped after rank 0 ended
}

TEST(LaunchRanks, AKilledRankEndsTheOthersAfterTheGrace) {
  ScratchDir scratch;
  std::string pid_file = scratch.file("sleeper.pid");
  // Rank 0 dies once rank 1 has written its pid, so the test can look for rank 1 afterwards.
  LaunchSpec spec = shell_ranks(2,
                                "if [ $RANK = 0 ]; then"
                                "  while [ ! -s '" +
                                    pid_file +
                                    "' ]; do sleep 0.05; done;"
                                    "  kill -9 $$;"
                                    "fi;" +
                                    write_pid_then_sleep(pid_file));
  Clock::time_point start = Clock::now();
  LaunchResult result = launch(spec);
  EXPECT_LT(seconds_since(start), 0.3 + 6.0);
  ASSERT_EQ(result.exits.size(), 2u);
  EXPECT_EQ(result.exits[0].rank, 0);
  EXPECT_EQ(result.exits[0].signal, SIGKILL);
  EXPECT_EQ(result.exits[0].exit_code, -1);
  // The kernel's out-of-memory killer may end a process elsewhere meanwhile: then it says so.
  EXPECT_EQ(describe_exit(result.exits[0]).rfind("was killed by signal 9 (SIGKILL)", 0), 0u);
  EXPECT_EQ(result.exits[1].rank, 1);
  EXPECT_EQ(result.exits[1].signal, SIGTERM);  // sleep stops at the first SIGTERM
  pid_t sleeper = read_pid(pid_file);
  ASSERT_GT(sleeper, 0);
  EXPECT_TRUE(process_gone(sleeper));
  expect_no_children_left();
}

TEST(LaunchRanks, AnInterruptSendsSigintToEveryRank) {
  ScratchDir scratch;
  // The trap kills its own sleep, so that no grandchild outlives the test (and holds ctest's
  // output pipe): the rank is ready once $child is known.
  LaunchSpec spec = shell_ranks(2,
                                "trap 'kill $child; exit 42' INT;"
                                "sleep 60 & child=$!;" +
                                    touch_ready(scratch) + "wait");
  spec.grace = milliseconds(5000);
  Clock::time_point start = Clock::now();
  LaunchResult result = launch_ranks(spec, all_ready(scratch, 2));
  EXPECT_LT(seconds_since(start), 3.0);  // well within the grace: SIGINT ended them, not SIGTERM
  ASSERT_EQ(result.exits.size(), 2u);
  EXPECT_EQ(exit_of_rank(result, 0).exit_code, 42);
  EXPECT_EQ(exit_of_rank(result, 1).exit_code, 42);
  expect_no_children_left();
}

// A non-interactive shell starts its background commands with SIGINT ignored, and a child
// inherits that: `runner ... &` in a script.
TEST(LaunchRanks, AnInterruptReachesRanksOfALauncherThatIgnoresSigint) {
  ScratchDir scratch;
  LaunchSpec spec = shell_ranks(2,
                                "trap 'kill $child; exit 42' INT;"
                                "sleep 60 & child=$!;" +
                                    touch_ready(scratch) + "wait");
  spec.grace = milliseconds(5000);
  struct sigaction ignore {
  }, before{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, &before);
  LaunchResult result = launch_ranks(spec, all_ready(scratch, 2));
  sigaction(SIGINT, &before, nullptr);
  ASSERT_EQ(result.exits.size(), 2u);
  EXPECT_EQ(exit_of_rank(result, 0).exit_code, 42);
  EXPECT_EQ(exit_of_rank(result, 1).exit_code, 42);
  expect_no_children_left();
}

TEST(LaunchRanks, ARankIgnoringSigtermIsKilledFiveSecondsLater) {
  ScratchDir scratch;
  LaunchSpec spec = shell_ranks(1, "trap '' INT TERM;" + touch_ready(scratch) + "exec sleep 60");
  spec.grace = milliseconds(100);
  std::function<bool()> ready = all_ready(scratch, 1);
  std::optional<Clock::time_point> interrupted_at;
  auto interrupted = [&] {
    if (!interrupted_at && ready()) interrupted_at = Clock::now();
    return interrupted_at.has_value();
  };
  LaunchResult result = launch_ranks(spec, interrupted);
  ASSERT_TRUE(interrupted_at);
  double elapsed = seconds_since(*interrupted_at);
  // An interrupt waits a second, not the grace, before SIGTERM; both were ignored.
  EXPECT_GE(elapsed, 1.0 + 5.0);
  EXPECT_LT(elapsed, 1.0 + 6.0);
  EXPECT_EQ(result.exits.at(0).signal, SIGKILL);
}

// Rank 1 stops itself; rank 0 then fails. The stopped rank cannot end on its own, nor take
// SIGTERM: it is killed at once, not after the grace, and its exit says it was stopped.
TEST(LaunchRanks, AStoppedRankIsKilledAtOnceWhenAnotherFails) {
  LaunchSpec spec = shell_ranks(2,
                                "if [ \"$RANK\" = 1 ]; then kill -STOP $$; fi;"
                                "sleep 1; exit 3");
  spec.grace = milliseconds(30000);
  const Clock::time_point start = Clock::now();
  LaunchResult result = launch(spec);
  EXPECT_LT(seconds_since(start), 10.0);  // far from the grace's 30 s
  EXPECT_EQ(exit_of_rank(result, 0).exit_code, 3);
  EXPECT_EQ(exit_of_rank(result, 1).signal, SIGKILL);
  EXPECT_EQ(exit_of_rank(result, 1).stopped_by, SIGSTOP);
  EXPECT_EQ(exit_of_rank(result, 0).stopped_by, 0);
  expect_no_children_left();
}

TEST(LaunchRanks, RanksDieWithTheLauncher) {
  ScratchDir scratch;
  std::string pid_file = scratch.file("rank.pid");
  pid_t launcher = fork();
  ASSERT_GE(launcher, 0);
  if (launcher == 0) {
    LaunchSpec spec = shell_ranks(1, write_pid_then_sleep(pid_file));
    launch(spec);
    _exit(0);
  }
  Clock::time_point start = Clock::now();
  while (access(pid_file.c_str(), F_OK) != 0 && seconds_since(start) < 5.0)
    std::this_thread::sleep_for(milliseconds(20));
  pid_t rank = read_pid(pid_file);
  kill(launcher, SIGKILL);
  waitpid(launcher, nullptr, 0);
  ASSERT_GT(rank, 0);
  while (!process_gone(rank) && seconds_since(start) < 5.0)
    std::this_thread::sleep_for(milliseconds(20));
  EXPECT_TRUE(process_gone(rank));  // PR_SET_PDEATHSIG killed it with the launcher
}

TEST(LaunchRanks, AFileThatCannotBeExecutedExitsWith127) {
  ScratchDir scratch;
  std::string not_a_program = scratch.file("not_a_program");
  std::ofstream(not_a_program) << "\x7f"
                                  "ELF but not really\n";
  chmod(not_a_program.c_str(), 0755);
  LaunchSpec spec;
  spec.argv = {not_a_program};
  LaunchResult result = launch(spec);
  ASSERT_EQ(result.exits.size(), 1u);
  EXPECT_EQ(result.exits[0].exit_code, 127);
  expect_no_children_left();
}

TEST(LaunchRanks, AMissingExecutableIsARunError) {
  LaunchSpec spec;
  spec.argv = {"/nonexistent/runner"};
  try {
    launch(spec);
    ADD_FAILURE() << "no error";
  } catch (const RunError& error) {
    EXPECT_EQ(std::string(error.what()),
              "cannot run ranks of /nonexistent/runner: No such file or directory");
  }
}

TEST(LaunchRanks, AFailedStartKillsAndReapsTheRanksAlreadyStarted) {
  LaunchSpec spec = shell_ranks(3, "exec sleep 60");
  spec.rank_env = [](int rank) -> std::map<std::string, std::string> {
    if (rank == 2) throw std::runtime_error("no environment for rank 2");
    return {{"RANK", std::to_string(rank)}};
  };
  Clock::time_point start = Clock::now();
  // Rank 2's own error comes out, not one of the cleanup's.
  EXPECT_EQ(runner::testing::message_of<std::runtime_error>([&] { launch(spec); }),
            "no environment for rank 2");
  EXPECT_LT(seconds_since(start), 2.0);
  expect_no_children_left();
}

TEST(LaunchRanks, AnInterruptCheckThatThrowsLeavesNoRank) {
  LaunchSpec spec = shell_ranks(2, "exec sleep 60");
  auto interrupted = []() -> bool { throw std::runtime_error("broken check"); };
  EXPECT_EQ(
      runner::testing::message_of<std::runtime_error>([&] { launch_ranks(spec, interrupted); }),
      "broken check");
  expect_no_children_left();
}

}  // namespace
}  // namespace runner::ranks
