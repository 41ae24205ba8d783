// The strategy comparisons of experiments/: their plans, and on a tiny GPT-2 that every
// strategy trains the same steps as ddp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "experiment_files.hpp"
#include "results/read_runs.hpp"
#include "results/results.hpp"
#include "run_binary.hpp"

using ::testing::HasSubstr;

namespace runner::testing {
namespace {

const std::string kTinyGpt2 =
    " --set model.preset=tiny --set dataset.seq_len=64 --set dataset.vocab_size=512";

size_t plans_in(const std::string& out) {
  size_t plans = 0;
  for (size_t at = out.find("# plan per rank:"); at != std::string::npos;
       at = out.find("# plan per rank:", at + 1))
    ++plans;
  return plans;
}

TEST(StrategyExperiments, Gpt2SmallStrategiesPlansEveryStrategy) {
  const Output o = run_runner("--dry-run " + kExperiments + "gpt2_small_strategies.toml");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(plans_in(o.out), 7u) << o.out;
  for (const char* run :
       {"strategy=ddp", "strategy=zero(stage=1)", "strategy=zero(stage=3)",
        "strategy=tensor(degree=2)", "strategy=pipeline(schedule=1f1b, stages=2)"})
    EXPECT_THAT(o.out, HasSubstr(run)) << run << " in\n" << o.out;
}

// Seed 001's model: every run planned, the model state per rank falling from ddp to zero-3,
// and a machine that cannot hold a run refuses it with the numbers before any rank starts.
TEST(StrategyExperiments, Gpt2OnePointSixBPlansEveryRunAndIsRefusedWhereItCannotFit) {
  const Output dry = run_runner("--dry-run " + kExperiments + "gpt2_1p6b_strategies.toml");
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_EQ(plans_in(dry.out), 20u);
  EXPECT_THAT(dry.out, HasSubstr("1,557,611,200 parameters")) << dry.out;
  // 8 ranks: fp32 weights whole (ddp, 5.80 GiB) or an eighth of them (zero-3, 0.73 GiB); split
  // 8 ways (tensor), every block's but 6 * 1600 of its weights an eighth, the embeddings and
  // ln_f whole: 48 * (9600 + (12 * 1600^2 + 7 * 1600) / 8) + 82,052,800 = 266,900,800 (0.99 GiB).
  EXPECT_THAT(dry.out, HasSubstr("0-7          5.80 GiB")) << dry.out;
  EXPECT_THAT(dry.out, HasSubstr("0-7          0.73 GiB")) << dry.out;
  EXPECT_THAT(dry.out, HasSubstr("0-7          0.99 GiB")) << dry.out;

  const Output refused = run_runner(kExperiments +
                                    "gpt2_1p6b_strategies.toml --set strategy.world_size=2 "
                                    "--set train.device=cpu --set experiment.results=" +
                                    scratch_dir("p6b_" + std::to_string(getpid())) + "/r.h5");
  EXPECT_EQ(refused.exit_code, 2) << refused.out;
  EXPECT_THAT(refused.err, HasSubstr("for its 2 ranks on this machine")) << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("of memory available (run strategy=ddp")) << refused.err;
}

// Seed 001's model on one machine: one rank whose plan holds the fp32 weights and gradients
// whole (1,557,611,200 * 4 bytes = 5.80 GiB each) and its AdamW state in files; on a tiny
// GPT-2 the same layout trains its 3 steps.
TEST(StrategyExperiments, Gpt2OnePointSixBOnOneMachinePlansOneRankAndTrainsOnTiny) {
  const std::string file = kExperiments + "gpt2_1p6b_one_machine.toml";
  const Output dry = run_runner("--dry-run " + file);
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_EQ(plans_in(dry.out), 1u);
  EXPECT_THAT(dry.out, HasSubstr("zero stage 3 over 1 ranks")) << dry.out;
  EXPECT_THAT(dry.out, HasSubstr("optimizer state in files")) << dry.out;
  EXPECT_THAT(dry.out, HasSubstr("0            5.80 GiB     5.80 GiB")) << dry.out;

  const std::string dir = scratch_dir("one_machine_" + std::to_string(getpid()));
  const Output tiny =
      run_runner(file + " -q" + kTinyGpt2 + " --set experiment.results=" + dir + "/r.h5");
  ASSERT_EQ(tiny.exit_code, 0) << tiny.err;
  const auto runs = results::read_runs(dir + "/r.h5");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, results::Status::completed) << runs[0].error;
  EXPECT_EQ(runs[0].steps.size(), 3u);
}

// Every strategy of the sweep follows ddp step for step, each with its plan, and the model
// state per rank falls from stage to stage.
TEST(StrategyExperiments, Gpt2StrategiesOnTinyFollowDdpStepForStep) {
  const std::string dir = scratch_dir("strategies_" + std::to_string(getpid()));
  const Output o = run_runner(kExperiments + "gpt2_small_strategies.toml -q" + kTinyGpt2 +
                              " --set experiment.results=" + dir + "/r.h5");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto runs = results::read_runs(dir + "/r.h5");
  ASSERT_EQ(runs.size(), 7u);
  const auto& ddp = runs[0];
  ASSERT_EQ(ddp.header.sweep_point.at(0).second, results::SweepValue(std::string("ddp")));
  ASSERT_EQ(ddp.steps.size(), 10u);
  for (const auto& run : runs) {
    ASSERT_EQ(run.status, results::Status::completed) << run.error;
    ASSERT_EQ(run.steps.size(), ddp.steps.size());
    for (size_t i = 0; i < ddp.steps.size(); ++i)
      EXPECT_NEAR(run.steps[i].loss, ddp.steps[i].loss, 1e-5 * ddp.steps[i].loss)
          << run.header.label << " step " << i + 1;
    EXPECT_EQ(run.summary->parameters, 136960) << "counted before the strategy shards them";
  }
  for (const auto& run : runs) EXPECT_GT(run.summary->estimated_memory_per_rank_bytes.at(0), 0);
  // Pipeline stages wait for each other's data; data-parallel and tensor-parallel ranks do not.
  for (size_t i = 0; i < runs.size(); ++i)
    if (i < 5)
      EXPECT_EQ(runs[i].epochs.at(0).bubble_fraction, 0) << runs[i].header.label;
    else
      EXPECT_GT(runs[i].epochs.at(0).bubble_fraction, 0) << runs[i].header.label;
  // Every layout of 2 Gloo ranks waits for its collectives some of each epoch, and no longer
  // than the epoch lasted.
  for (const auto& run : runs)
    for (const auto& epoch : run.epochs) {
      EXPECT_GT(epoch.communication_s, 0) << run.header.label;
      EXPECT_LT(epoch.communication_s, epoch.duration_s) << run.header.label;
    }
  // Model state per rank, measured by the counting allocator after the last step, fp32 AdamW:
  // 4 bytes of weights, 4 of gradients and 8 of state per parameter, whole or halved.
  const double ladder[] = {16, 12, 10, 8};
  for (size_t i = 0; i < 4; ++i)
    for (double bytes : runs[i].summary->state_memory_per_rank_bytes)
      EXPECT_NEAR(bytes / 136960, ladder[i], 0.1 * ladder[i]) << runs[i].header.label;
  // tensor: 16 bytes per parameter a rank holds, the blocks' split ones halved. gpt2 tiny
  // (hidden 64, 2 blocks, 512 tokens, 64 positions): 2 * (6 * 64 + (12 * 64^2 + 7 * 64) / 2)
  // + 512 * 64 + 64 * 64 + 2 * 64 = 87,360.
  for (double bytes : runs[4].summary->state_memory_per_rank_bytes)
    EXPECT_NEAR(bytes, 16.0 * 87360, 0.1 * 16 * 87360) << runs[4].header.label;
}

// The single-run GPT-2 file that `runner plan` lays out: its layouts on 2 devices ranked (the
// rates given: the search, not the calibration, is under test), and on a tiny GPT-2 it
// trains as it is, ddp on 2 ranks.
TEST(StrategyExperiments, Gpt2SmallPlansOnTwoDevicesAndTrainsOnTiny) {
  const std::string file = kExperiments + "gpt2_small.toml";
  const Output plan = run_runner("plan " + file +
                                 " --devices 2 --top 3 --tflops fp32=0.1 --tflops bf16=0.2 "
                                 "--bandwidth 1 --memory-bandwidth 10");
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_THAT(plan.out, HasSubstr("runner plan " + file + ": 2 CPU devices")) << plan.out;
  EXPECT_THAT(plan.out, HasSubstr("; batch 8\n")) << plan.out;
  const std::string dir = scratch_dir("gpt2_small_" + std::to_string(getpid()));
  const Output tiny = run_runner(file + " -q" + kTinyGpt2 + " --set train.device=cpu" +
                                 " --set experiment.results=" + dir + "/r.h5");
  ASSERT_EQ(tiny.exit_code, 0) << tiny.err;
  const auto runs = results::read_runs(dir + "/r.h5");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, results::Status::completed) << runs[0].error;
  EXPECT_EQ(runs[0].steps.size(), 4u);
  EXPECT_EQ(runs[0].header.environment.at("world_size"), "2");
}

}  // namespace
}  // namespace runner::testing
