// Distributed runs through the runner binary: ranks under torchrun's variables, local launches,
// and the faults a user meets (a rank killed or throwing, a missing rank, a port in use).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <torch/cuda.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <thread>

#include "results/read_runs.hpp"
#include "results/results.hpp"
#include "run_binary.hpp"

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

namespace runner::testing {
namespace {

using Clock = std::chrono::steady_clock;

size_t times_in(const std::string& text, const std::string& part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

constexpr int kTestSize = 500;

// LeNet-5 on 3200 Fashion-MNIST samples: 50 steps of a global batch of 64.
std::string lenet_experiment(const std::string& results, const std::string& strategy) {
  return "[experiment]\nname = \"lenet\"\nseed = 11\nresults = \"" + results + "\"\n" +
         "[dataset]\nname = \"mnist\"\ndata_dir = \"" + kFashionMnist + "\"\n" +
         "train_size = 3200\ntest_size = " + std::to_string(kTestSize) +
         "\n"
         "[model]\nname = \"lenet5\"\n"
         "[optimizer]\nname = \"adam\"\nlr = 1e-3\n"
         "[train]\nepochs = 1\nbatch_size = 64\nthreads = 1\n" +
         strategy;
}

results::RunRecord only_run(const std::string& path) {
  auto runs = results::read_runs(path);
  EXPECT_EQ(runs.size(), 1u);
  return runs.at(0);
}

TEST(Distributed, TwoTorchrunRanksFollowTheSingleRunStepForStep) {
  if (!have_fashion_mnist()) GTEST_SKIP() << "needs " << kFashionMnist;
  const std::string dir = scratch_dir("ddp_vs_single");
  write_file(dir + "/single.toml", lenet_experiment(dir + "/single.h5", ""));
  write_file(dir + "/ddp.toml",
             lenet_experiment(dir + "/ddp.h5", "[strategy]\nname = \"ddp\"\ntimeout_s = 60\n"));
  Output single = run_runner(dir + "/single.toml");
  ASSERT_EQ(single.exit_code, 0) << single.err;
  auto codes = run_as_torchrun(2, dir + "/ddp.toml", dir);
  ASSERT_EQ(codes, (std::vector<int>{0, 0}))
      << read_file(dir + "/out0") << read_file(dir + "/out1");

  auto one = only_run(dir + "/single.h5");
  auto two = only_run(dir + "/ddp.h5");
  EXPECT_EQ(two.status, results::Status::completed);
  EXPECT_EQ(two.header.environment.at("world_size"), "2");
  ASSERT_EQ(one.steps.size(), 50u);
  ASSERT_EQ(two.steps.size(), 50u);
  for (size_t k = 0; k < 50; ++k)
    EXPECT_NEAR(two.steps[k].loss, one.steps[k].loss, 1e-5 * std::abs(one.steps[k].loss))
        << "step " << k + 1;
  ASSERT_TRUE(two.summary.has_value());
  EXPECT_EQ(two.summary->peak_memory_per_rank_bytes.size(), 2u);
  // Parameters that agree to 1e-5 may flip a prediction on a near tie, but not two.
  EXPECT_NEAR(two.epochs.at(0).test_accuracy, one.epochs.at(0).test_accuracy, 1.0 / kTestSize);
  EXPECT_THAT(read_file(dir + "/out1"), Not(HasSubstr("epoch 1/1"))) << "rank 1 is quiet";
}

std::string blobs_ddp(const std::string& dir, const std::string& strategy_extra,
                      const std::string& model_extra = "") {
  std::string text = blobs_experiment(
      dir + "/r.h5",
      "threads = 1\n[optimizer]\nname = \"sgd\"\nlr = 0.5\n[strategy]\nname = \"ddp\"\n" +
          strategy_extra);
  text.replace(text.find("name = \"linear_probe\"\n"), 22,
               "name = \"linear_probe\"\n" + model_extra);
  write_file(dir + "/exp.toml", text);
  return "--plugin-path " + fixture_plugins() + " " + dir + "/exp.toml";
}

TEST(Distributed, NprocStartsLocalRanksAndRank0RecordsTheRun) {
  const std::string dir = scratch_dir("nproc");
  Output out = run_runner(blobs_ddp(dir, "") + " --nproc 2");
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_THAT(out.out, HasSubstr("2 ranks on this machine, gloo over 127.0.0.1:")) << out.out;
  auto run = only_run(dir + "/r.h5");
  EXPECT_EQ(run.status, results::Status::completed);
  EXPECT_EQ(run.header.environment.at("world_size"), "2");
  EXPECT_EQ(run.steps.size(), 16u);  // 512 samples, global batch 32
  EXPECT_GT(run.epochs.at(0).test_accuracy, 0.5);
}

TEST(Distributed, NprocTurnsASingleRunIntoDdp) {
  const std::string dir = scratch_dir("nproc_single");
  write_file(dir + "/exp.toml", blobs_experiment(dir + "/r.h5", "threads = 1\n"));
  Output out = run_runner("--plugin-path " + fixture_plugins() + " --nproc 2 " + dir + "/exp.toml");
  ASSERT_EQ(out.exit_code, 0) << out.err;
  auto run = only_run(dir + "/r.h5");
  EXPECT_THAT(run.header.config_toml, HasSubstr("name = \"ddp\""));
  EXPECT_EQ(run.header.environment.at("world_size"), "2");
}

TEST(Distributed, ASweepOverWorldSizesLaunchesEachRunsRanks) {
  const std::string dir = scratch_dir("world_sweep");
  Output out = run_runner(blobs_ddp(dir, "[sweep]\nstrategy.world_size = [1, 2]\n"));
  ASSERT_EQ(out.exit_code, 0) << out.err;
  auto runs = results::read_runs(dir + "/r.h5");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].header.environment.at("world_size"), "1");
  EXPECT_EQ(runs[1].header.environment.at("world_size"), "2");
  EXPECT_EQ(runs[1].status, results::Status::completed);
}

// No process of this test's folder may outlive the launcher. The bracket keeps the pattern
// from matching the shell that runs pgrep, whose command line holds the pattern itself.
bool ranks_left(const std::string& dir) {
  const std::string pattern = "[" + dir.substr(0, 1) + "]" + dir.substr(1) + "/exp.toml";
  return std::system(("pgrep -f '" + pattern + "' >/dev/null").c_str()) == 0;
}

TEST(Distributed, AKilledRankEndsTheRunNamingIt) {
  const std::string dir = scratch_dir("killed_rank");
  const auto start = Clock::now();
  Output out = run_runner(blobs_ddp(dir, "world_size = 2\ntimeout_s = 20\n",
                                    "fail_at_step = 5\nfail_on_rank = 1\nfail_how = \"kill\"\n"));
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(60));
  EXPECT_EQ(out.exit_code, 5) << out.err;
  EXPECT_THAT(out.err, HasSubstr("rank 1 was killed by signal 9 (SIGKILL)")) << out.err;
  auto run = only_run(dir + "/r.h5");
  EXPECT_EQ(run.status, results::Status::failed);
  EXPECT_THAT(run.error, ::testing::StartsWith("rank 1 was killed by signal 9 (SIGKILL), "))
      << run.error;
  EXPECT_FALSE(ranks_left(dir));
}

// Before, the launcher waited out a grace of the timeout plus 10 s after rank 0 gave up, then
// recorded the SIGKILL it sent the stopped rank as the cause.
TEST(Distributed, AStoppedRankIsNamedAndTheRunEndsAtTheTimeout) {
  const std::string dir = scratch_dir("stopped_rank");
  const auto start = Clock::now();
  Output out = run_runner(blobs_ddp(dir, "world_size = 2\ntimeout_s = 10\n",
                                    "fail_at_step = 5\nfail_on_rank = 1\nfail_how = \"stop\"\n"));
  // The timeout, rank 0's diagnosis and the ranks' start; the old way took over 35 s.
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(28));
  EXPECT_EQ(out.exit_code, 5) << out.err;
  // The hang report's first line: where the stopped rank was last seen (in a phase, or
  // completing a collective with rank 0 since its state), where rank 0 waits.
  const std::string cause = "rank 1 was stopped by signal 19 (SIGSTOP), last seen ";
  EXPECT_THAT(out.err, HasSubstr(cause)) << out.err;
  auto run = only_run(dir + "/r.h5");
  EXPECT_EQ(run.status, results::Status::failed);
  EXPECT_THAT(run.error, ::testing::StartsWith(cause)) << run.error;
  EXPECT_THAT(run.error,
              HasSubstr("; rank 0 waits in all_reduce #8 of world (ddp bucket 1 of 1, 80 B Float, "
                        "step 5, backward)"))
      << run.error;
  EXPECT_FALSE(ranks_left(dir));
}

TEST(Distributed, ARankThatThrowsEndsTheRunWithItsError) {
  const std::string dir = scratch_dir("throwing_rank");
  Output out = run_runner(
      blobs_ddp(dir, "world_size = 2\ntimeout_s = 20\n", "fail_at_step = 3\nfail_on_rank = 1\n"));
  EXPECT_EQ(out.exit_code, 3) << out.err;  // a plugin's error
  auto run = only_run(dir + "/r.h5");
  EXPECT_EQ(run.status, results::Status::failed);
  EXPECT_EQ(run.error.rfind("rank 1 failed: training step 3 failed:", 0), 0u) << run.error;
  // Rank 0 waits in backward's reduction of the step rank 1 failed in.
  EXPECT_THAT(out.err, ContainsRegex("rank 0: all_reduce #[0-9]+ of world \\(ddp bucket 1 of 1, "
                                     "[0-9.]+ [kM]?B Float, step 3, backward\\) failed: rank 1 "
                                     "failed"))
      << out.err;
  EXPECT_FALSE(ranks_left(dir));
}

TEST(Distributed, NcclWithoutGpusIsRecordedAsSkippedAndTheSweepGoesOn) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "this machine has GPUs: NCCL may run";
  const std::string dir = scratch_dir("nccl_skipped");
  Output out = run_runner(
      blobs_ddp(dir, "world_size = 2\n[sweep]\nstrategy.backend = [\"nccl\", \"gloo\"]\n"));
  ASSERT_EQ(out.exit_code, 0) << out.err;
  auto runs = results::read_runs(dir + "/r.h5");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].status, results::Status::skipped);
  EXPECT_THAT(runs[0].error, HasSubstr("backend nccl needs")) << runs[0].error;
  EXPECT_EQ(runs[1].status, results::Status::completed);
  EXPECT_THAT(out.out, HasSubstr("skipped"));
}

// On one GPU: every strategy under NCCL with one rank follows `single` on that GPU step for
// step (fp32), and each run records the GPU's NVML readings.
TEST(Distributed, OnOneGpuEachStrategyUnderNcclFollowsSingle) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "needs a CUDA device";
  const std::string dir = scratch_dir("nccl_one_gpu");
  const std::string one_rank = ", world_size = 1, backend = \"nccl\", timeout_s = 120 }";
  write_file(dir + "/exp.toml",
             "[experiment]\nname = \"nccl_one_gpu\"\nseed = 3\nresults = \"" + dir +
                 "/r.h5\"\n[dataset]\nname = \"random_tokens\"\nsize = 160\ntest_size = 8\n"
                 "seq_len = 32\nvocab_size = 256\n[model]\nname = \"gpt2\"\n"
                 "[optimizer]\nname = \"adamw\"\n[train]\nepochs = 1\nbatch_size = 8\n"
                 "test_batch_size = 8\ndevice = \"cuda\"\nlog_every = 1\n"
                 "[sweep]\nstrategy = [{ name = \"single\" }, { name = \"ddp\"" +
                 one_rank + ", { name = \"zero\", stage = 1" + one_rank +
                 ", { name = \"zero\", stage = 2" + one_rank + ", { name = \"zero\", stage = 3" +
                 one_rank + ", { name = \"tensor\", degree = 1" + one_rank +
                 ", { name = \"pipeline\", stages = 1" + one_rank + "]\n");
  Output out = run_runner(dir + "/exp.toml");
  ASSERT_EQ(out.exit_code, 0) << out.err;
  auto runs = results::read_runs(dir + "/r.h5");
  ASSERT_EQ(runs.size(), 7u);
  const auto& single = runs[0];
  ASSERT_EQ(single.steps.size(), 20u);
  for (const auto& run : runs) {
    EXPECT_EQ(run.status, results::Status::completed) << run.error;
    ASSERT_EQ(run.steps.size(), single.steps.size()) << run.header.label;
    for (size_t k = 0; k < single.steps.size(); ++k)
      EXPECT_NEAR(run.steps[k].loss, single.steps[k].loss, 1e-5 * std::abs(single.steps[k].loss))
          << run.header.label << " step " << k + 1;
    ASSERT_FALSE(run.epochs.empty());
    EXPECT_FALSE(std::isnan(run.epochs[0].gpu_utilization)) << run.header.label;
    EXPECT_GT(run.epochs[0].gpu_memory_used_bytes, 0) << run.header.label;
  }
  EXPECT_THAT(out.out, HasSubstr("GPU util")) << out.out;
}

TEST(Distributed, AWorldLargerThanTheMachineIsAConfigError) {
  const std::string dir = scratch_dir("too_many");
  Output out = run_runner(blobs_ddp(dir, "world_size = 4000\n"));
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_THAT(out.err,
              HasSubstr("strategy.world_size = 4000: a local launch starts at most one rank per"))
      << out.err;
}

TEST(Distributed, ANodeAddressOfAnotherMachineIsRefusedBeforeAnyRankStarts) {
  const std::string dir = scratch_dir("node_address_elsewhere");
  // 192.0.2.0/24 is for documentation only (RFC 5737): no machine has it.
  Output out = run_runner(blobs_ddp(dir, "world_size = 2\n"), "RUNNER_NODE_ADDR=192.0.2.1");
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_THAT(out.err, HasSubstr("RUNNER_NODE_ADDR = \"192.0.2.1\" is no address of this machine"))
      << out.err;
  EXPECT_THAT(out.out, Not(HasSubstr("ranks on this machine"))) << out.out;
}

TEST(Distributed, AGlobalBatchThatDoesNotDivideIsRefusedBeforeAnyRankStarts) {
  const std::string dir = scratch_dir("batch_not_dividing");
  Output out = run_runner(blobs_ddp(dir, "world_size = 2\n") + " --set train.batch_size=33");
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_THAT(out.err, HasSubstr("train.batch_size = 33 does not divide among 2 ranks")) << out.err;
  EXPECT_THAT(out.out, Not(HasSubstr("ranks on this machine"))) << out.out;
}

// One train sample on two ranks with drop_last: no rank would step (a train loss of 0). Refused
// on every rank before the first step, and said once, in one line naming the rank and the key.
TEST(Distributed, ARankWithoutTrainSamplesIsNamedBeforeTraining) {
  const std::string dir = scratch_dir("rank_without_train_samples");
  const auto start = Clock::now();
  Output out = run_runner(blobs_ddp(dir, "world_size = 2\ntimeout_s = 20\ndrop_last = true\n") +
                          " --set dataset.train_size=1 --set train.batch_size=2");
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_THAT(out.err, HasSubstr("the train split's 1 sample leaves rank 0 of 2 without one "
                                 "(strategy 'ddp', drop_last = true)"))
      << out.err;
  EXPECT_THAT(out.err, HasSubstr("hint: set strategy.drop_last = false")) << out.err;
  EXPECT_EQ(times_in(out.err, "without one"), 1u) << out.err;
  EXPECT_EQ(times_in(out.err, "hint:"), 1u) << out.err;
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(20));  // not the collective's timeout
  auto run = only_run(dir + "/r.h5");
  EXPECT_EQ(run.status, results::Status::failed);
  EXPECT_TRUE(run.steps.empty());
  EXPECT_FALSE(ranks_left(dir));
}

// One test sample on two ranks: stage 3 gathers its parameters in every test batch, so rank 0
// testing alone waited for rank 1 until the timeout.
TEST(Distributed, ARankWithoutTestSamplesIsNamedBeforeTraining) {
  const std::string dir = scratch_dir("rank_without_test_samples");
  const auto start = Clock::now();
  std::string args = blobs_ddp(dir, "world_size = 2\ntimeout_s = 20\nstage = 3\n") +
                     " --set dataset.test_size=1 --set dataset.train_size=2 "
                     "--set train.batch_size=2";
  args.replace(args.find("exp.toml"), 8, "zero.toml");
  std::string text = read_file(dir + "/exp.toml");
  text.replace(text.find("name = \"ddp\""), 12, "name = \"zero\"");
  write_file(dir + "/zero.toml", text);
  Output out = run_runner(args);
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_THAT(out.err, HasSubstr("the test split's 1 sample leaves rank 1 of 2 without one "
                                 "(strategy 'zero')"))
      << out.err;
  EXPECT_THAT(out.err, HasSubstr("hint: train on at most 1 ranks")) << out.err;
  EXPECT_EQ(times_in(out.err, "without one"), 1u) << out.err;
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(20));
}

// Test shards of 2 and 1 samples in batches of 1: both ranks step through one batch (rank 0's
// holds both its samples), so stage 3's gathers match, and all 3 samples are counted.
TEST(Distributed, TestShardsThatDifferByASampleStepThroughAsManyBatches) {
  const std::string dir = scratch_dir("uneven_test_shards");
  std::string args = blobs_ddp(dir, "world_size = 2\ntimeout_s = 20\nstage = 3\n") +
                     " --set dataset.test_size=3 --set train.test_batch_size=1";
  args.replace(args.find("exp.toml"), 8, "zero.toml");
  std::string text = read_file(dir + "/exp.toml");
  text.replace(text.find("name = \"ddp\""), 12, "name = \"zero\"");
  write_file(dir + "/zero.toml", text);
  const auto start = Clock::now();
  Output out = run_runner(args);
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(20));
  auto run = only_run(dir + "/r.h5");
  EXPECT_EQ(run.status, results::Status::completed);
  ASSERT_EQ(run.epochs.size(), 1u);
  // Accuracy over 3 samples: a multiple of a third.
  const double thirds = run.epochs[0].test_accuracy * 3;
  EXPECT_NEAR(thirds, std::round(thirds), 1e-9) << run.epochs[0].test_accuracy;
}

// A tiny GPT-2 on 2 ranks, a batch of 4 in 4 micro-batches.
std::string tiny_gpt2_in_four(const std::string& dir, const std::string& strategy) {
  const std::string path = dir + "/exp.toml";
  write_file(path, "[experiment]\nname = \"micro\"\nseed = 1\nresults = \"" + dir +
                       "/r.h5\"\n[dataset]\nname = \"random_tokens\"\nsize = 16\ntest_size = 2\n"
                       "seq_len = 8\nvocab_size = 32\n[model]\nname = \"gpt2\"\n"
                       "[optimizer]\nname = \"adamw\"\n[train]\nepochs = 1\nbatch_size = 4\n"
                       "micro_batches = 4\ntest_batch_size = 1\nthreads = 1\n"
                       "max_steps_per_epoch = 2\n[strategy]\n" +
                       strategy);
  return path;
}

TEST(Distributed, MicroBatchesDivideADataParallelReplicasShare) {
  const std::string dir = scratch_dir("micro_batches_of_a_replica");
  // A 2-stage pipeline is one replica of all 4 samples: 4 micro-batches of 1.
  Output pipeline = run_runner(
      tiny_gpt2_in_four(dir, "name = \"pipeline\"\nstages = 2\nworld_size = 2\n") + " --quiet");
  EXPECT_EQ(pipeline.exit_code, 0) << pipeline.err;
  // ddp's 2 replicas have 2 samples each.
  Output ddp = run_runner(tiny_gpt2_in_four(dir, "name = \"ddp\"\nworld_size = 2\n"));
  EXPECT_EQ(ddp.exit_code, 2);
  EXPECT_THAT(ddp.err, HasSubstr("train.micro_batches = 4 does not divide a replica's 2 samples"))
      << ddp.err;
}

TEST(Distributed, ARankThatNeverComesFailsTheRendezvousNamingIt) {
  const std::string dir = scratch_dir("missing_rank");
  blobs_ddp(dir, "timeout_s = 3\n");
  const auto start = Clock::now();
  Output out = run_runner("--plugin-path " + fixture_plugins() + " " + dir + "/exp.toml",
                          torchrun_environment(0, 2, free_port()));
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(30));
  EXPECT_EQ(out.exit_code, 5) << out.err;
  EXPECT_THAT(out.err, HasSubstr("rank 1 of 2 never joined")) << out.err;
}

TEST(Distributed, APortInUseIsNamed) {
  const std::string dir = scratch_dir("port_in_use");
  HeldPort held;
  Output out =
      run_runner(blobs_ddp(dir, "world_size = 2\n"), "MASTER_PORT=" + std::to_string(held.port()));
  EXPECT_EQ(out.exit_code, 5) << "a runtime error, not a config or plugin one\n" << out.err;
  EXPECT_THAT(out.err, HasSubstr("port " + std::to_string(held.port()) + " is in use")) << out.err;
  // runner's own line only, before LibTorch's store logs its failures to bind.
  EXPECT_THAT(out.err, Not(HasSubstr("[c10d]"))) << out.err;
  EXPECT_THAT(out.err, Not(HasSubstr("socket.cpp"))) << out.err;
  auto run = only_run(dir + "/r.h5");
  EXPECT_EQ(run.status, results::Status::failed) << "a launch that failed is no run in progress";
  EXPECT_THAT(run.error, HasSubstr("is in use")) << run.error;
}

TEST(Distributed, ABadMasterPortFailsTheRunNamingIt) {
  const std::string dir = scratch_dir("bad_master_port");
  Output out = run_runner(blobs_ddp(dir, "world_size = 2\n"), "MASTER_PORT=abc");
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_THAT(out.err, HasSubstr("MASTER_PORT = \"abc\" is not a port")) << out.err;
  auto run = only_run(dir + "/r.h5");
  EXPECT_EQ(run.status, results::Status::failed);
  EXPECT_THAT(run.error, HasSubstr("MASTER_PORT")) << run.error;
}

// Rank 0 of 2 under torchrun, alone: it waits in the rendezvous for a rank that never comes.
pid_t start_lonely_rank0(const std::string& dir) {
  blobs_ddp(dir, "timeout_s = 120\n");
  const std::string command = "exec env " + torchrun_environment(0, 2, free_port()) +
                              " " RUNNER_BINARY_DIR "/bin/runner --plugin-path " +
                              fixture_plugins() + " " + dir + "/exp.toml >" + dir + "/out 2>&1";
  const pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

TEST(Distributed, ASignalDuringTheRendezvousEndsItAtOnce) {
  const std::string dir = scratch_dir("signal_in_rendezvous");
  const pid_t pid = start_lonely_rank0(dir);
  const auto started = Clock::now();
  while (read_file(dir + "/out").find("run 1/1") == std::string::npos &&
         Clock::now() - started < std::chrono::seconds(60))
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::seconds(1));  // into the rendezvous
  const auto signalled = Clock::now();
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  // A second, with room for a loaded machine; the rendezvous would wait 120 s.
  EXPECT_LT(Clock::now() - signalled, std::chrono::seconds(5));
  const std::string out = read_file(dir + "/out");
  ASSERT_TRUE(WIFEXITED(status)) << out;
  EXPECT_EQ(WEXITSTATUS(status), 143) << out;
  EXPECT_THAT(out, HasSubstr("interrupted by signal 15")) << out;
  auto run = only_run(dir + "/r.h5");
  EXPECT_EQ(run.status, results::Status::failed);
  EXPECT_EQ(run.error, "interrupted by signal 15");
}

// Rank 1 stops for good at step 5 and rank 0 waits for it in an all-reduce: an interrupt of
// the launcher ends the run within seconds, not at the 120 s timeout.
TEST(Distributed, AnInterruptEndsARankHeldInACollective) {
  const std::string dir = scratch_dir("interrupt_in_collective");
  const std::string command =
      "exec " RUNNER_BINARY_DIR "/bin/runner " +
      blobs_ddp(dir, "world_size = 2\ntimeout_s = 120\n",
                "fail_at_step = 5\nfail_on_rank = 1\nfail_how = \"stop\"\n") +
      " >" + dir + "/out 2>&1";
  const pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  const auto started = Clock::now();
  while (read_file(dir + "/out").find("ranks on this machine") == std::string::npos &&
         Clock::now() - started < std::chrono::seconds(60))
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::seconds(3));  // rank 1 stopped, rank 0 waiting
  const auto signalled = Clock::now();
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_LT(Clock::now() - signalled, std::chrono::seconds(8));
  const std::string out = read_file(dir + "/out");
  ASSERT_TRUE(WIFEXITED(status)) << out;
  EXPECT_EQ(WEXITSTATUS(status), 130) << out;
  auto run = only_run(dir + "/r.h5");
  EXPECT_EQ(run.status, results::Status::failed);
  EXPECT_EQ(run.error, "interrupted by signal 2");
  EXPECT_FALSE(ranks_left(dir));
}

// Under torchrun, rank 1 hangs at step 5 and rank 0 waits for it in an all-reduce; a SIGTERM
// to rank 0 alone ends it within a second or so, not at the 120 s timeout.
TEST(Distributed, ASignalEndsATorchrunRankHeldInACollective) {
  const std::string dir = scratch_dir("signal_in_collective");
  const std::string args = blobs_ddp(dir, "timeout_s = 120\n",
                                     "fail_at_step = 5\nfail_on_rank = 1\nfail_how = \"hang\"\n");
  const int port = free_port();
  std::vector<pid_t> pids;
  for (int rank = 0; rank < 2; ++rank) {
    const std::string command = "exec env " + torchrun_environment(rank, 2, port) +
                                " " RUNNER_BINARY_DIR "/bin/runner " + args + " >" + dir + "/out" +
                                std::to_string(rank) + " 2>&1";
    const pid_t pid = fork();
    if (pid == 0) {
      execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    pids.push_back(pid);
  }
  const auto started = Clock::now();
  while (read_file(dir + "/out0").find("run 1/1") == std::string::npos &&
         Clock::now() - started < std::chrono::seconds(60))
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::seconds(3));  // rank 1 hangs, rank 0 waits
  const auto signalled = Clock::now();
  kill(pids[0], SIGTERM);
  int status = 0;
  waitpid(pids[0], &status, 0);
  const auto elapsed = Clock::now() - signalled;
  kill(pids[1], SIGKILL);
  waitpid(pids[1], nullptr, 0);
  EXPECT_LT(elapsed, std::chrono::seconds(5));
  const std::string out = read_file(dir + "/out0");
  ASSERT_TRUE(WIFEXITED(status)) << out;
  EXPECT_EQ(WEXITSTATUS(status), 143) << out;
  auto run = only_run(dir + "/r.h5");
  EXPECT_EQ(run.status, results::Status::failed);
  EXPECT_EQ(run.error, "interrupted by signal 15");
}

TEST(Distributed, ASingleStrategyUnderTwoTorchrunRanksIsRefused) {
  const std::string dir = scratch_dir("single_under_torchrun");
  write_file(dir + "/exp.toml", blobs_experiment(dir + "/r.h5"));
  auto codes =
      run_as_torchrun(2, "--plugin-path " + fixture_plugins() + " " + dir + "/exp.toml", dir);
  EXPECT_EQ(codes, (std::vector<int>{2, 2}));
  EXPECT_THAT(read_file(dir + "/out0"),
              HasSubstr("torchrun started 2 ranks, but strategy 'single' runs on one"))
      << read_file(dir + "/out0");
}

}  // namespace
}  // namespace runner::testing
