// Restarts of a failed run's ranks (train.max_restarts, --max-restarts) and the faults
// [fault] injects: each restart goes on from the newest complete checkpoint, or the start, to
// the losses of a run that never failed, and every attempt is kept in the results file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "results/read_runs.hpp"
#include "results/results.hpp"
#include "run_binary.hpp"

using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace runner::testing {
namespace {

// The blobs fixture (512 samples) for 2 epochs at a global batch of 32: 32 steps, on 2 ddp ranks
// unless `rest` says otherwise, with linear_probe unless `model_keys` names another model.
// Returns the runner's arguments.
std::string blobs_run(const std::string& dir, const std::string& name, const std::string& rest,
                      const std::string& model_keys = "") {
  const std::string strategy = rest.find("[strategy]") == std::string::npos
                                   ? "[strategy]\nname = \"ddp\"\nworld_size = 2\ntimeout_s = 20\n"
                                   : "";
  write_file(dir + "/" + name + ".toml",
             "[experiment]\nname = \"blobs\"\nresults = \"" + dir + "/" + name + ".h5\"\n" +
                 "[dataset]\nname = \"blobs\"\n[model]\n" +
                 (model_keys.find("name =") == 0 ? "" : "name = \"linear_probe\"\n") + model_keys +
                 "[train]\nepochs = 2\nbatch_size = 32\nthreads = 1\n"
                 "[optimizer]\nname = \"sgd\"\nlr = 0.5\n" +
                 strategy + rest);
  return "--plugin-path " + fixture_plugins() + " " + dir + "/" + name + ".toml";
}

results::RunRecord only_run(const std::string& path) {
  auto runs = results::read_runs(path);
  EXPECT_EQ(runs.size(), 1u);
  return runs.at(0);
}

// Bit for bit: a restart goes on from the very state the checkpoint kept.
void expect_same_losses(const results::RunRecord& run, const results::RunRecord& plain) {
  ASSERT_EQ(run.steps.size(), plain.steps.size());
  for (size_t k = 0; k < plain.steps.size(); ++k)
    EXPECT_EQ(run.steps[k].loss, plain.steps[k].loss) << "step " << k + 1;
  ASSERT_EQ(run.epochs.size(), plain.epochs.size());
  for (size_t e = 0; e < plain.epochs.size(); ++e)
    EXPECT_EQ(run.epochs[e].test_accuracy, plain.epochs[e].test_accuracy) << "epoch " << e + 1;
}

// A save is written in the background, and waited for by the next: when step 9 starts, step
// 4's checkpoint is complete, step 8's may be.
constexpr const char* kEveryFourSteps = "[checkpoint]\nevery_steps = 4\n";
constexpr const char* kKillRank1AtStep11 = "[fault]\nkind = \"kill\"\nrank = 1\nstep = 11\n";

// The cause's start: the rank's last state (published each beat) says where it was seen last.
constexpr const char* kRank1Killed = "rank 1 was killed by signal 9 (SIGKILL), last seen ";

bool one_of_the_two_checkpoints(int64_t step) { return step == 4 || step == 8; }

TEST(Restarts, AKilledRankGoesOnFromTheNewestCheckpointToTheLossesOfARunThatNeverFailed) {
  const std::string dir = scratch_dir("restart_killed");
  Output plain = run_runner(blobs_run(dir, "plain", kEveryFourSteps));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  Output out =
      run_runner(blobs_run(dir, "killed", std::string(kEveryFourSteps) + kKillRank1AtStep11) +
                 " --max-restarts 1");
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_THAT(out.out, HasSubstr("rank 1 was killed by signal 9 (SIGKILL)")) << out.out;
  EXPECT_THAT(out.out, HasSubstr("restart 1 of 1 from ")) << out.out;
  EXPECT_THAT(out.out, ::testing::ContainsRegex("\\(step [48]\\); [0-9.]+ s of training lost"))
      << out.out;

  const auto run = only_run(dir + "/killed.h5");
  EXPECT_EQ(run.status, results::Status::completed);
  ASSERT_EQ(run.restarts.size(), 1u);
  const auto& restart = run.restarts[0];
  EXPECT_EQ(restart.attempt, 1);
  EXPECT_THAT(restart.cause, StartsWith(kRank1Killed)) << restart.cause;
  EXPECT_TRUE(one_of_the_two_checkpoints(restart.resumed_step)) << restart.resumed_step;
  EXPECT_EQ(std::filesystem::path(restart.resumed_from).filename().string().rfind("step-", 0), 0u)
      << restart.resumed_from;
  EXPECT_GT(restart.time_lost_s, 0);
  EXPECT_LT(restart.time_lost_s, 60);
  EXPECT_FALSE(restart.failed_at.empty());
  EXPECT_EQ(run.resumed_from, restart.resumed_from);
  expect_same_losses(run, only_run(dir + "/plain.h5"));
}

// Rank 0 dies while the checkpoint of step 8 is written: every shard on disk, the manifest not
// yet committed. That checkpoint is never taken: the restart goes on from step 4's.
TEST(Restarts, ACheckpointTheKillCutShortIsNeverTaken) {
  const std::string dir = scratch_dir("restart_mid_checkpoint");
  Output plain = run_runner(blobs_run(dir, "plain", kEveryFourSteps));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  Output out = run_runner(
      blobs_run(dir, "killed",
                std::string(kEveryFourSteps) +
                    "[fault]\nkind = \"kill\"\nrank = 0\nstep = 8\nin = \"checkpoint\"\n") +
      " --max-restarts 1");
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_THAT(out.out, HasSubstr("rank 0 was killed by signal 9 (SIGKILL)")) << out.out;
  const auto run = only_run(dir + "/killed.h5");
  ASSERT_EQ(run.restarts.size(), 1u);
  EXPECT_EQ(run.restarts[0].resumed_step, 4);
  EXPECT_THAT(run.restarts[0].resumed_from, ::testing::EndsWith("step-000000004"));
  expect_same_losses(run, only_run(dir + "/plain.h5"));
}

class RestartedLayout : public ::testing::TestWithParam<Layout> {};

// Rank 1 killed under each sharded or split layout: the restart loads every rank's shard and
// the run goes on to the losses of the same layout never killed.
TEST_P(RestartedLayout, GoesOnToTheLossesOfARunThatNeverFailed) {
  const std::string dir = scratch_dir("restart_" + GetParam().name);
  const std::string strategy =
      "[strategy]\nworld_size = 2\ntimeout_s = 20\n" + GetParam().strategy + "\n";
  const std::string model = "name = \"layered_probe\"\n";
  Output plain = run_runner(blobs_run(dir, "plain", strategy + kEveryFourSteps, model));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  Output out =
      run_runner(blobs_run(dir, "killed", strategy + kEveryFourSteps + kKillRank1AtStep11, model) +
                 " --max-restarts 1");
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto run = only_run(dir + "/killed.h5");
  ASSERT_EQ(run.restarts.size(), 1u);
  EXPECT_THAT(run.restarts[0].cause, StartsWith(kRank1Killed)) << run.restarts[0].cause;
  EXPECT_TRUE(one_of_the_two_checkpoints(run.restarts[0].resumed_step));
  expect_same_losses(run, only_run(dir + "/plain.h5"));
}

INSTANTIATE_TEST_SUITE_P(Strategies, RestartedLayout, ::testing::ValuesIn(sharded_layouts()),
                         layout_name);

TEST(Restarts, ARunWithoutACheckpointStartsOverAndSaysSo) {
  const std::string dir = scratch_dir("restart_from_start");
  Output plain = run_runner(blobs_run(dir, "plain", ""));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  Output out = run_runner(blobs_run(dir, "killed", kKillRank1AtStep11) + " --max-restarts 2");
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_THAT(out.out, HasSubstr("restart 1 of 2 from the start (no checkpoint yet)")) << out.out;
  const auto run = only_run(dir + "/killed.h5");
  EXPECT_EQ(run.status, results::Status::completed);
  ASSERT_EQ(run.restarts.size(), 1u) << "the fault strikes the first attempt only";
  EXPECT_EQ(run.restarts[0].resumed_from, "");
  EXPECT_EQ(run.restarts[0].resumed_step, 0);
  expect_same_losses(run, only_run(dir + "/plain.h5"));
}

TEST(Restarts, AnExhaustedBudgetFailsWithExit5AndKeepsEveryAttempt) {
  const std::string dir = scratch_dir("restart_exhausted");
  // The fixture's own fault strikes every attempt, as a real bug would.
  const std::string args =
      blobs_run(dir, "exp", "", "fail_at_step = 5\nfail_on_rank = 1\nfail_how = \"kill\"\n");
  Output out = run_runner(args + " --max-restarts 2");
  EXPECT_EQ(out.exit_code, 5) << out.err;
  EXPECT_THAT(out.err, HasSubstr(kRank1Killed)) << out.err;
  EXPECT_THAT(out.err, ::testing::ContainsRegex(" \\(after 2 restarts\\)\n")) << out.err;
  const auto run = only_run(dir + "/exp.h5");
  EXPECT_EQ(run.status, results::Status::failed);
  ASSERT_EQ(run.restarts.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(run.restarts[i].attempt, static_cast<int64_t>(i + 1));
    EXPECT_THAT(run.restarts[i].cause, StartsWith(kRank1Killed)) << run.restarts[i].cause;
  }
}

TEST(Restarts, AFailedCollectiveIsRestartedAndItsCauseNamesTheInjectedFault) {
  const std::string dir = scratch_dir("restart_collective");
  Output out =
      run_runner(blobs_run(dir, "exp",
                           std::string(kEveryFourSteps) +
                               "[fault]\nkind = \"fail_collective\"\nrank = 0\nstep = 10\n") +
                 " --max-restarts 1");
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto run = only_run(dir + "/exp.h5");
  ASSERT_EQ(run.restarts.size(), 1u);
  EXPECT_THAT(run.restarts[0].cause, StartsWith("rank ")) << run.restarts[0].cause;
  EXPECT_THAT(run.restarts[0].cause,
              HasSubstr("fault injected: fault.kind = \"fail_collective\" at step 10"));
  EXPECT_THAT(run.restarts[0].cause, HasSubstr(", step 10, ")) << run.restarts[0].cause;
  EXPECT_TRUE(one_of_the_two_checkpoints(run.restarts[0].resumed_step));
}

TEST(Restarts, AOneRankRunRestartsToo) {
  const std::string dir = scratch_dir("restart_one_rank");
  Output out = run_runner(blobs_run(dir, "exp",
                                    std::string("[strategy]\nname = \"single\"\n") +
                                        kEveryFourSteps + "[fault]\nkind = \"kill\"\nstep = 10\n") +
                          " --max-restarts 1");
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto run = only_run(dir + "/exp.h5");
  EXPECT_EQ(run.status, results::Status::completed);
  ASSERT_EQ(run.restarts.size(), 1u);
  EXPECT_THAT(run.restarts[0].cause,
              StartsWith("rank 0 was killed by signal 9 (SIGKILL), last seen "));
  EXPECT_TRUE(one_of_the_two_checkpoints(run.restarts[0].resumed_step));
}

// torchrun's --max-restarts starts every rank again with TORCHELASTIC_RESTART_COUNT raised:
// the runners go on from the newest complete checkpoint without being told --resume.
TEST(Restarts, RanksTorchrunStartsAgainGoOnFromTheNewestCheckpoint) {
  const std::string dir = scratch_dir("restart_torchrun");
  Output plain = run_runner(blobs_run(dir, "plain", kEveryFourSteps));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const std::string args =
      blobs_run(dir, "killed", std::string(kEveryFourSteps) + kKillRank1AtStep11);
  const std::vector<int> first = run_as_torchrun(2, args, dir);
  EXPECT_EQ(first, (std::vector<int>{5, 128 + 9})) << read_file(dir + "/out0");
  const std::vector<int> again = run_as_torchrun(2, args, dir, "TORCHELASTIC_RESTART_COUNT=1");
  ASSERT_EQ(again, (std::vector<int>{0, 0}))
      << read_file(dir + "/out0") << read_file(dir + "/out1");
  const std::string out = read_file(dir + "/out0");
  EXPECT_THAT(out, HasSubstr("torchrun restart 1: each unfinished run goes on from its newest "
                             "complete checkpoint"))
      << out;
  EXPECT_THAT(out, HasSubstr("resuming from " + dir + "/killed.checkpoints/")) << out;
  const auto run = only_run(dir + "/killed.h5");
  EXPECT_EQ(run.status, results::Status::completed);
  expect_same_losses(run, only_run(dir + "/plain.h5"));
  ASSERT_EQ(run.restarts.size(), 1u);  // kept as a local launch keeps its own
  EXPECT_EQ(run.restarts[0].attempt, 1);
  EXPECT_THAT(run.restarts[0].cause, HasSubstr("rank 1")) << run.restarts[0].cause;
  EXPECT_TRUE(one_of_the_two_checkpoints(run.restarts[0].resumed_step))
      << run.restarts[0].resumed_step;
  EXPECT_THAT(out, HasSubstr("  torchrun restart 1 after: " + run.restarts[0].cause)) << out;
}

TEST(Restarts, AConfigurationErrorIsNotRestarted) {
  const std::string dir = scratch_dir("restart_config_error");
  Output out = run_runner(blobs_run(dir, "exp", "[fault]\nkind = \"kill\"\nrank = 2\n") +
                          " --max-restarts 3");
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_THAT(out.err, HasSubstr("fault.rank = 2: the run has 2 ranks (0 to 1)")) << out.err;
  EXPECT_THAT(out.out, ::testing::Not(HasSubstr("restart 1"))) << out.out;
  EXPECT_TRUE(only_run(dir + "/exp.h5").restarts.empty());
}

TEST(Restarts, BadValuesAreOneLineErrorsNamingTheKey) {
  const std::string dir = scratch_dir("restart_bad_values");
  const std::string args = blobs_run(dir, "exp", "");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {" --max-restarts -1", "--max-restarts"},
      {" --max-restarts 100000", "--max-restarts"},
      {" --max-restarts many", "--max-restarts"},
      {" --set train.max_restarts=-2", "max_restarts"},
      {" --set fault.step=33 --set fault.kind=kill",
       "fault.step = 33: the run has 32 training steps"},
      {" --set fault.kind=explode", "fault.kind"},
      {" --set fault.factor=0.5 --set fault.kind=slow", "fault.factor"},
      {" --set fault.kind=kill --set fault.attempt=2 --max-restarts 1",
       "fault.attempt = 2: the run's ranks start at most 2 times (train.max_restarts = 1): the "
       "fault would never strike"},
  };
  for (const auto& [extra, named] : cases) {
    Output out = run_runner(args + extra);
    EXPECT_EQ(out.exit_code, 2) << extra << "\n" << out.err;
    EXPECT_THAT(out.err.substr(0, out.err.find('\n')), HasSubstr(named)) << extra << "\n"
                                                                         << out.err;
  }
}

TEST(Restarts, AStoppedRankThatComesBackBeforeTheTimeoutLetsTheRunComplete) {
  const std::string dir = scratch_dir("fault_stop");
  Output out = run_runner(
      blobs_run(dir, "exp", "[fault]\nkind = \"stop\"\nrank = 1\nstep = 3\nseconds = 3\n"));
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto run = only_run(dir + "/exp.h5");
  EXPECT_TRUE(run.restarts.empty());
  EXPECT_EQ(run.status, results::Status::completed);
  // Rank 0 waited out rank 1's stall in its collectives: 3 s, half of it in the mean over the
  // two ranks.
  double waited = 0;
  for (const auto& epoch : run.epochs) waited += epoch.communication_s;
  EXPECT_GT(waited, 1.2);
  // The stall's epoch names rank 1 as the rank the other waited for.
  ASSERT_FALSE(run.epochs.empty());
  EXPECT_EQ(run.epochs[0].slowest_rank, 1.0);
  EXPECT_GT(run.epochs[0].communication_max_s, 2.5);
  EXPECT_LT(run.epochs[0].communication_min_s, run.epochs[0].communication_max_s);
}

}  // namespace
}  // namespace runner::testing
