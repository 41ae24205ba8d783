// Tests of stopping the binary: SIGKILL keeps finished epochs, Ctrl-C, SIGTERM and SIGHUP stop it
// cleanly, a closed stdout or stderr stops nothing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "checkpoint/folders.hpp"
#include "results/read_runs.hpp"
#include "results/results.hpp"
#include "run_binary.hpp"

using ::testing::HasSubstr;

namespace runner::testing {
namespace {

pid_t start_runner(const std::string& args, const std::string& out) {
  pid_t pid = fork();
  if (pid == 0) {
    std::string command = "exec " RUNNER_BINARY_DIR "/bin/runner " + args + " >" + out + " 2>&1";
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

bool wait_for_text(const std::string& path, const std::string& text, std::chrono::seconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (read_file(path).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// A blobs run of 1000 epochs of 125 steps: long enough to be stopped in the middle. `tables`
// follow [train].
std::string long_experiment(const std::string& dir, const std::string& tables = "") {
  std::string text = blobs_experiment(dir + "/r.h5", "epochs = 1000\n" + tables);
  text.replace(text.find("epochs = 1\n"), 11, "");
  text.replace(text.find("name = \"blobs\"\n[model]"), 15, "name = \"blobs\"\ntrain_size = 4000\n");
  write_file(dir + "/exp.toml", text);
  return dir + "/exp.toml";
}

// Whether epoch 2 was printed before the signal went, and how the runner ended.
struct Stopped {
  bool reached;
  int status;
};

// Runs `experiment` and sends `signal` once its epoch 2 is printed.
Stopped stop_in_epoch_2(const std::string& dir, const std::string& experiment, int signal) {
  pid_t pid = start_runner("--plugin-path " + fixture_plugins() + " " + experiment, dir + "/out");
  const bool reached = wait_for_text(dir + "/out", "epoch 2/1000", std::chrono::seconds(120));
  kill(pid, signal);
  int status = 0;
  waitpid(pid, &status, 0);
  return {reached, status};
}

TEST(Kill, SigkillMidRunLeavesEveryFinishedEpochReadable) {
  std::string dir = scratch_dir("sigkill");
  long_experiment(dir);
  pid_t pid =
      start_runner("--plugin-path " + fixture_plugins() + " " + dir + "/exp.toml", dir + "/out");
  bool reached = wait_for_text(dir + "/out", "epoch 3/1000", std::chrono::seconds(120));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(reached) << read_file(dir + "/out");
  EXPECT_TRUE(WIFSIGNALED(status));

  auto runs = results::read_runs(dir + "/r.h5");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, results::Status::running) << "killed, never finished";
  EXPECT_TRUE(runs[0].abandoned) << "no process writes the file any more";
  EXPECT_THAT(run_runner("report " + dir + "/r.h5").out, HasSubstr("killed?"));
  ASSERT_GE(runs[0].epochs.size(), 3u);
  EXPECT_EQ(runs[0].epochs[2].epoch, 3);
  EXPECT_GT(runs[0].epochs[2].test_accuracy, 0.0);
  EXPECT_GE(runs[0].steps.size(), 3u * 125);
}

TEST(Kill, CtrlCRecordsTheRunAsInterruptedAndExitsWith130) {
  std::string dir = scratch_dir("sigint");
  const auto [reached, status] = stop_in_epoch_2(dir, long_experiment(dir), SIGINT);
  ASSERT_TRUE(reached) << read_file(dir + "/out");
  ASSERT_TRUE(WIFEXITED(status)) << read_file(dir + "/out");
  EXPECT_EQ(WEXITSTATUS(status), 130);
  auto runs = results::read_runs(dir + "/r.h5");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, results::Status::failed);
  EXPECT_EQ(runs[0].error, "interrupted by signal 2");
  EXPECT_GE(runs[0].epochs.size(), 2u);
  const std::string out = read_file(dir + "/out");
  EXPECT_THAT(out, HasSubstr("runner: stopped by signal 2: run " + runs[0].header.run_id +
                             " saved no checkpoint to go on from: it starts over when run "
                             "again"))
      << out;
}

// Ctrl-C in a run that saves checkpoints: the last line names its latest checkpoint and a
// command that goes on from it as printed.
TEST(Kill, CtrlCNamesTheLastCheckpointAndACommandThatGoesOnFromIt) {
  std::string dir = scratch_dir("sigint_checkpoint");
  const std::string experiment =
      long_experiment(dir, "[checkpoint]\nevery_steps = 50\nkeep = 1000\n");
  ASSERT_TRUE(stop_in_epoch_2(dir, experiment, SIGINT).reached) << read_file(dir + "/out");
  const std::string out = read_file(dir + "/out");
  const auto run = results::read_runs(dir + "/r.h5").at(0);
  const auto latest = checkpoint::latest_complete(run.checkpoints);
  ASSERT_TRUE(latest.has_value()) << out;
  const std::string said = "runner: stopped by signal 2: run " + run.header.run_id +
                           " goes on from its last checkpoint, " + *latest + ", with: ";
  const size_t at = out.find(said);
  ASSERT_NE(at, std::string::npos) << out;
  const size_t from = at + said.size();
  const std::string command = out.substr(from, out.find('\n', from) - from);
  EXPECT_THAT(command,
              HasSubstr("--plugin-path " + fixture_plugins() + " " + experiment + " --resume"));

  // The command as printed (its runner by its full path) goes on from that checkpoint.
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string line = "exec " + command + " >" + dir + "/resumed 2>&1";
    execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  const bool reached =
      wait_for_text(dir + "/resumed", "resuming from " + *latest, std::chrono::seconds(120));
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(reached) << read_file(dir + "/resumed");
}

// A closed terminal: the run stops as under SIGTERM, recorded, its checkpoints kept.
TEST(Kill, SighupRecordsTheRunAsInterruptedAndKeepsItsCheckpoint) {
  std::string dir = scratch_dir("sighup");
  const std::string experiment =
      long_experiment(dir, "[checkpoint]\nevery_steps = 50\nkeep = 1000\n");
  const auto [reached, status] = stop_in_epoch_2(dir, experiment, SIGHUP);
  const std::string out = read_file(dir + "/out");
  ASSERT_TRUE(reached) << out;
  ASSERT_TRUE(WIFEXITED(status)) << out;
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGHUP);
  const auto run = results::read_runs(dir + "/r.h5").at(0);
  EXPECT_EQ(run.status, results::Status::failed);
  EXPECT_EQ(run.error, "interrupted by signal 1");
  EXPECT_TRUE(checkpoint::latest_complete(run.checkpoints).has_value()) << out;
}

// `runner exp.toml | head -1`: the reader of one of its outputs is gone from the start, and the
// run still trains to its end and is recorded as completed.
TEST(Kill, AClosedStdoutOrStderrLeavesTheRunTrainingToItsEnd) {
  for (const int closed : {STDOUT_FILENO, STDERR_FILENO}) {
    std::string dir = scratch_dir("closed_output_" + std::to_string(closed));
    std::string text = blobs_experiment(dir + "/r.h5", "epochs = 3\n");
    text.replace(text.find("epochs = 1\n"), 11, "");
    write_file(dir + "/exp.toml", text);
    int ends[2];
    ASSERT_EQ(pipe(ends), 0);
    pid_t pid = fork();
    if (pid == 0) {
      const std::string other = closed == STDOUT_FILENO ? "2>" : ">";
      const std::string command = "exec " RUNNER_BINARY_DIR "/bin/runner --plugin-path " +
                                  fixture_plugins() + " " + dir + "/exp.toml " + other + dir +
                                  "/out";
      dup2(ends[1], closed);
      close(ends[0]);
      close(ends[1]);
      execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(ends[0]);
    close(ends[1]);
    int status = 0;
    waitpid(pid, &status, 0);
    const std::string out = read_file(dir + "/out");
    ASSERT_TRUE(WIFEXITED(status)) << "closed fd " << closed << ", signal "
                                   << (WIFSIGNALED(status) ? WTERMSIG(status) : 0) << ": " << out;
    EXPECT_EQ(WEXITSTATUS(status), 0) << out;
    const auto runs = results::read_runs(dir + "/r.h5");
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].status, results::Status::completed);
    EXPECT_EQ(runs[0].epochs.size(), 3u);
  }
}

TEST(Kill, SigtermStopsCheckOpsTimingAndPrintsWhatItHas) {
  std::string dir = scratch_dir("check_op_sigterm");
  pid_t pid = start_runner("check-op gelu --repeat 100000 --shapes 64x1024", dir + "/out");
  bool reached = wait_for_text(dir + "/out", "check-op gelu", std::chrono::seconds(120));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  const std::string out = read_file(dir + "/out");
  ASSERT_TRUE(reached) << out;
  ASSERT_TRUE(WIFEXITED(status)) << out;
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM);
  EXPECT_THAT(out, HasSubstr("timing (median; op / reference):")) << out;
  EXPECT_THAT(out,
              HasSubstr("check-op interrupted by signal 15: the last timing is the median of "))
      << out;
}

}  // namespace
}  // namespace runner::testing
