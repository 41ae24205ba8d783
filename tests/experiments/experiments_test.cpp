// Tests of the shipped experiments: each one runs, plans or skips as its file says.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/cuda.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "experiment_files.hpp"
#include "results/read_runs.hpp"
#include "results/results.hpp"
#include "run_binary.hpp"

using ::testing::HasSubstr;
using ::testing::Not;

namespace runner::testing {
namespace {

namespace fs = std::filesystem;

std::string fmt_gib(double bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
  return text;
}

// CIFAR-10 binary files of `records` random images each: 1 label byte + 3072 pixel bytes.
std::string write_small_cifar(int records) {
  const std::string dir = scratch_dir("cifar_" + std::to_string(getpid()));
  std::mt19937 random(7);
  for (const char* name : {"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin",
                           "data_batch_4.bin", "data_batch_5.bin", "test_batch.bin"}) {
    std::ofstream out(dir + "/" + name, std::ios::binary);
    for (int r = 0; r < records; ++r) {
      out.put(static_cast<char>(r % 10));
      for (int i = 0; i < 3072; ++i) out.put(static_cast<char>(random() % 256));
    }
  }
  return dir;
}

constexpr size_t kBriefSteps = 2;

struct BriefRun {
  Output output;
  std::string results;  // the results file
};

// Two training steps of one epoch and two test batches, results in a scratch file; `data`
// points it at local data.
BriefRun run_briefly(const std::string& file, const std::string& data) {
  const std::string results = scratch_dir("exp_" + std::to_string(getpid()) + "_" + file) + "/r.h5";
  return {run_runner(kExperiments + file + " -q --set train.epochs=1" +
                     " --set train.max_steps_per_epoch=" + std::to_string(kBriefSteps) +
                     " --set train.max_eval_steps=" + std::to_string(kBriefSteps) +
                     " --set experiment.results=" + results + " " + data),
          results};
}

// An experiment file and the number of runs its sweep expands to.
struct Brief {
  std::string file;
  size_t runs;
};

std::ostream& operator<<(std::ostream& out, const Brief& brief) { return out << brief.file; }

// Every run of the sweep completed its one epoch, and each of its steps logged a finite loss.
void expect_brief_runs_completed(const Brief& brief, const std::string& results_file) {
  const auto runs = results::read_runs(results_file);
  ASSERT_EQ(runs.size(), brief.runs) << brief.file;
  for (const auto& run : runs) {
    EXPECT_EQ(run.status, results::Status::completed) << run.header.label << ": " << run.error;
    EXPECT_EQ(run.epochs.size(), 1u) << run.header.label;
    ASSERT_EQ(run.steps.size(), kBriefSteps) << run.header.label;
    for (const auto& step : run.steps)
      EXPECT_TRUE(std::isfinite(step.loss)) << run.header.label << " step " << step.step;
  }
}

const std::string kOnFashionMnist = "--set dataset.data_dir=" + kFashionMnist +
                                    " --set dataset.download=false --set dataset.test_size=200";

class MnistExperiment : public ::testing::TestWithParam<Brief> {};

TEST_P(MnistExperiment, RunsOnFashionMnist) {
  if (!have_fashion_mnist()) GTEST_SKIP() << "no Fashion-MNIST in " << kFashionMnist;
  const BriefRun run = run_briefly(GetParam().file, kOnFashionMnist);
  ASSERT_EQ(run.output.exit_code, 0) << run.output.err;
  expect_brief_runs_completed(GetParam(), run.results);
}

// Runs: the product of the sweep's lists, or their length in zip mode.
INSTANTIATE_TEST_SUITE_P(
    Files, MnistExperiment,
    ::testing::Values(Brief{"quickstart.toml", 1}, Brief{"mnist_lenet.toml", 1},
                      Brief{"mnist_lenet_augmented.toml", 1},
                      Brief{"mnist_num_workers_sweep.toml", 4}, Brief{"conv_depth.toml", 2},
                      Brief{"fused_conv_relu_vs_builtin.toml", 6}, Brief{"lenet_gelu.toml", 4}));

TEST(Experiments, LenetPoolsWithTheMaxPool2dOpByName) {
  if (!have_fashion_mnist()) GTEST_SKIP() << "no Fashion-MNIST in " << kFashionMnist;
  const Output o =
      run_briefly("quickstart.toml", kOnFashionMnist + " --set model.pool=max_pool2d").output;
  EXPECT_EQ(o.exit_code, 0) << o.err;
  const Output unknown =
      run_briefly("quickstart.toml", kOnFashionMnist + " --set model.pool=min").output;
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;  // a config error: no op named min
  EXPECT_THAT(unknown.err, HasSubstr("max_pool2d")) << unknown.err;
}

TEST(Experiments, FusedConvReluTableShowsPhasesAndSavedActivations) {
  if (!have_fashion_mnist()) GTEST_SKIP() << "no Fashion-MNIST in " << kFashionMnist;
  const std::string dir = scratch_dir("fused_" + std::to_string(getpid()));
  const Output o = run_runner(kExperiments + "fused_conv_relu_vs_builtin.toml" +
                              " --set train.epochs=1 --set train.max_steps_per_epoch=2" +
                              " --set experiment.results=" + dir + "/r.h5 " + kOnFashionMnist);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  for (const char* column : {"forward", "backward", "saved act", "backend_conv"})
    EXPECT_THAT(o.out, HasSubstr(column)) << column << " in\n" << o.out;
  EXPECT_THAT(o.out, Not(HasSubstr("failed"))) << o.out;
}

class CifarExperiment : public ::testing::TestWithParam<Brief> {};

TEST_P(CifarExperiment, RunsOnCifarFormatFiles) {
  const std::string data = write_small_cifar(40);
  const BriefRun run =
      run_briefly(GetParam().file, "--set dataset.data_dir=" + data +
                                       " --set train.batch_size=8 --set train.test_batch_size=40");
  ASSERT_EQ(run.output.exit_code, 0) << run.output.err;
  expect_brief_runs_completed(GetParam(), run.results);
}

INSTANTIATE_TEST_SUITE_P(Files, CifarExperiment,
                         ::testing::Values(Brief{"cifar_lenet.toml", 1}, Brief{"cifar_vgg.toml", 1},
                                           Brief{"cifar_cnn_augmented.toml", 1}));

TEST(Experiments, Gpt2TinyTrainsAndReportsPerplexity) {
  const std::string dir = scratch_dir("gpt2_tiny_" + std::to_string(getpid()));
  const Output o = run_runner(kExperiments + "gpt2_tiny.toml --set train.epochs=1" +
                              " --set train.max_steps_per_epoch=3 --set dataset.test_size=16" +
                              " --set experiment.results=" + dir + "/r.h5");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("ppl")) << o.out;
  EXPECT_THAT(o.out, HasSubstr("test ppl")) << o.out;
}

TEST(Experiments, Gpt2XlDryRunSizesItWithoutAllocating) {
  const Output o = run_runner("--dry-run " + kExperiments + "gpt2_xl.toml");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("1,557,611,200 parameters (from the model's options")) << o.out;
  // The plan's rows: fp32 weights and gradients, 4 bytes per parameter each.
  EXPECT_THAT(o.out, HasSubstr("# plan per rank:")) << o.out;
  EXPECT_THAT(o.out, HasSubstr(fmt_gib(4.0 * 1557611200) + "     " + fmt_gib(4.0 * 1557611200)))
      << o.out;
}

// `extra`: more arguments, after the brief ones.
std::vector<results::RunRecord> runs_of_brief(const std::string& file, Output* printed = nullptr,
                                              const std::string& extra = "") {
  const std::string dir = scratch_dir("dist_" + std::to_string(getpid()) + "_" + file);
  const Output o =
      run_runner(kExperiments + file + " --set train.epochs=1" +
                 " --set train.max_steps_per_epoch=2 --set train.max_eval_steps=2" +
                 " --set experiment.results=" + dir + "/r.h5 " + kOnFashionMnist + " " + extra);
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("results: ")) << "the table is printed\n" << o.out;
  if (printed) *printed = o;
  return results::read_runs(dir + "/r.h5");
}

// The lines of the table a sweep printed at its end: from its header to "results: ".
std::vector<std::string> table_lines(const std::string& out) {
  std::vector<std::string> lines;
  std::istringstream in(out.substr(out.rfind("\nrun ") + 1));
  for (std::string line; std::getline(in, line) && line.rfind("results: ", 0) != 0;)
    lines.push_back(line);
  return lines;
}

TEST(Experiments, MnistDdpComparesOneRankWithTwo) {
  if (!have_fashion_mnist()) GTEST_SKIP() << "no Fashion-MNIST in " << kFashionMnist;
  auto runs = runs_of_brief("mnist_ddp.toml");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].header.environment.at("world_size"), "1");
  EXPECT_EQ(runs[1].header.environment.at("world_size"), "2");
  for (const auto& run : runs) EXPECT_EQ(run.status, results::Status::completed) << run.error;
}

TEST(Experiments, DdpSurvivesAKilledRankByARestartFromItsCheckpoint) {
  if (!have_fashion_mnist()) GTEST_SKIP() << "no Fashion-MNIST in " << kFashionMnist;
  const std::string dir = scratch_dir("killed_rank_" + std::to_string(getpid()));
  const Output o = run_runner(kExperiments + "ddp_survives_a_killed_rank.toml" +
                              " --set train.max_steps_per_epoch=12 --set train.max_eval_steps=2" +
                              " --set checkpoint.every_steps=4 --set fault.step=10" +
                              " --set experiment.results=" + dir + "/r.h5 " + kOnFashionMnist);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("rank 1 was killed by signal 9 (SIGKILL)")) << o.out;
  // Step 4's checkpoint is complete when step 9 starts (the save of step 8 waits for it).
  EXPECT_THAT(o.out, ::testing::ContainsRegex("\\(step [48]\\); [0-9.]+ s of training lost"))
      << o.out;
  EXPECT_THAT(table_lines(o.out).at(0), HasSubstr("time lost")) << o.out;
  const auto runs = results::read_runs(dir + "/r.h5");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, results::Status::completed) << runs[0].error;
  ASSERT_EQ(runs[0].restarts.size(), 1u);
  EXPECT_TRUE(runs[0].restarts[0].resumed_step == 4 || runs[0].restarts[0].resumed_step == 8);
  EXPECT_EQ(runs[0].steps.size(), 12u);
}

// Rank 1 five times as slow: the other rank waits for it, and the table names it.
TEST(Experiments, DdpStragglerNamesTheRankTheOtherWaitedFor) {
  if (!have_fashion_mnist()) GTEST_SKIP() << "no Fashion-MNIST in " << kFashionMnist;
  Output printed;
  auto runs = runs_of_brief("ddp_straggler.toml", &printed,
                            "--set fault.factor=5 --set train.max_steps_per_epoch=6");
  ASSERT_EQ(runs.size(), 2u);
  for (const auto& run : runs) EXPECT_EQ(run.status, results::Status::completed) << run.error;
  const auto& slow = runs[1];
  EXPECT_THAT(slow.header.label, HasSubstr("slow"));
  ASSERT_EQ(slow.epochs.size(), 1u);
  EXPECT_EQ(slow.epochs[0].slowest_rank, 1.0);
  EXPECT_GT(slow.epochs[0].communication_max_s, slow.epochs[0].communication_min_s);
  const std::vector<std::string> table = table_lines(printed.out);
  ASSERT_FALSE(table.empty()) << printed.out;
  for (const char* column : {"comm max", "slowest", "step time"})
    EXPECT_THAT(table.at(0), HasSubstr(column)) << printed.out;
}

// The flagship: its table compares communication, step time and throughput within 120
// characters, each skipped run one short row whose reason is said once below.
TEST(Experiments, NcclVsGlooRunsGlooAndSkipsNcclWithoutGpus) {
  if (!have_fashion_mnist()) GTEST_SKIP() << "no Fashion-MNIST in " << kFashionMnist;
  Output printed;
  auto runs = runs_of_brief("ddp_nccl_vs_gloo.toml", &printed);
  ASSERT_EQ(runs.size(), 4u);
  const std::vector<std::string> table = table_lines(printed.out);
  ASSERT_GE(table.size(), 6u) << printed.out;
  for (const char* column : {"comm", "step time", "samples/s"})
    EXPECT_THAT(table[0], HasSubstr(column)) << printed.out;
  for (const auto& line : table) EXPECT_LE(line.size(), 120u) << line;
  // Without CUDA an nccl run must be skipped with the reason: one that completes fell back to
  // gloo without saying so.
  const bool cuda = torch::cuda::is_available();
  for (const auto& run : runs) {
    const bool nccl = run.header.label.find("nccl") != std::string::npos;
    if (nccl && !cuda) {
      EXPECT_EQ(run.status, results::Status::skipped) << run.header.label << ": " << run.error;
      EXPECT_THAT(run.error, HasSubstr("backend nccl needs")) << run.error;
    } else {
      EXPECT_EQ(run.status, results::Status::completed) << run.header.label << ": " << run.error;
    }
    if (!nccl) {
      EXPECT_EQ(run.summary->peak_memory_per_rank_bytes.size(), 2u);
    }
  }
}

TEST(Experiments, BatchSizeSweepRunsFourLocalBatchesOnTwoRanks) {
  if (!have_fashion_mnist()) GTEST_SKIP() << "no Fashion-MNIST in " << kFashionMnist;
  auto runs = runs_of_brief("batch_size_sweep.toml");
  ASSERT_EQ(runs.size(), 4u);
  for (const auto& run : runs) {
    EXPECT_EQ(run.status, results::Status::completed) << run.error;
    EXPECT_EQ(run.header.environment.at("world_size"), "2");
  }
}

TEST(Experiments, DpVsDdpSkipsDpWithFewerThanTwoGpus) {
  if (!have_fashion_mnist()) GTEST_SKIP() << "no Fashion-MNIST in " << kFashionMnist;
  auto runs = runs_of_brief("dp_vs_ddp.toml");
  ASSERT_EQ(runs.size(), 2u);
  if (torch::cuda::device_count() < 2) {
    EXPECT_EQ(runs[0].status, results::Status::skipped) << runs[0].error;
    EXPECT_THAT(runs[0].error, HasSubstr("strategy dp needs at least 2 CUDA devices"))
        << runs[0].error;
  } else {
    EXPECT_EQ(runs[0].status, results::Status::completed) << runs[0].error;
  }
  EXPECT_EQ(runs[1].status, results::Status::completed) << runs[1].error;
}

TEST(Experiments, Gpt2TechniquesPlansEightRuns) {
  const Output o = run_runner("--dry-run " + kExperiments + "gpt2_techniques.toml");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  size_t plans = 0;
  for (size_t at = o.out.find("# plan per rank:"); at != std::string::npos;
       at = o.out.find("# plan per rank:", at + 1))
    ++plans;
  EXPECT_EQ(plans, 8u) << o.out;
  EXPECT_THAT(o.out, HasSubstr("124,439,808 parameters")) << o.out;
}

// The same sweep on a tiny GPT-2: every run trains, and the table sets the plan beside the
// measured peak.
TEST(Experiments, Gpt2TechniquesTableShowsPlannedAndMeasuredMemory) {
  const std::string dir = scratch_dir("techniques_" + std::to_string(getpid()));
  const Output o = run_runner(kExperiments + "gpt2_techniques.toml --set model.preset=tiny" +
                              " --set dataset.seq_len=64 --set dataset.vocab_size=512" +
                              " --set experiment.results=" + dir + "/r.h5");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  for (const char* column : {"est mem", "tensor peak", "TFLOPS", "micro_batches"})
    EXPECT_THAT(o.out, HasSubstr(column)) << column << " in\n" << o.out;
  auto runs = results::read_runs(dir + "/r.h5");
  ASSERT_EQ(runs.size(), 8u);
  for (const auto& run : runs) {
    ASSERT_EQ(run.status, results::Status::completed) << run.error;
    EXPECT_GT(run.summary->tensor_peak_per_rank_bytes.at(0), 0);
    EXPECT_GT(run.summary->estimated_memory_per_rank_bytes.at(0), 0);
  }
}

TEST(Experiments, EveryFileIsCovered) {
  const std::vector<std::string> covered{"quickstart.toml",
                                         "mnist_lenet.toml",
                                         "mnist_lenet_augmented.toml",
                                         "mnist_num_workers_sweep.toml",
                                         "conv_depth.toml",
                                         "cifar_lenet.toml",
                                         "cifar_vgg.toml",
                                         "cifar_cnn_augmented.toml",
                                         "gpt2_tiny.toml",
                                         "gpt2_small.toml",
                                         "gpt2_xl.toml",
                                         "fused_conv_relu_vs_builtin.toml",
                                         "lenet_gelu.toml",
                                         "mnist_ddp.toml",
                                         "ddp_nccl_vs_gloo.toml",
                                         "ddp_survives_a_killed_rank.toml",
                                         "ddp_straggler.toml",
                                         "batch_size_sweep.toml",
                                         "dp_vs_ddp.toml",
                                         "gpt2_techniques.toml",
                                         "gpt2_small_strategies.toml",
                                         "gpt2_1p6b_strategies.toml",
                                         "gpt2_1p6b_one_machine.toml"};
  for (const auto& entry : fs::directory_iterator(kExperiments)) {
    const std::string name = entry.path().filename().string();
    EXPECT_NE(std::find(covered.begin(), covered.end(), name), covered.end())
        << name << " has no test here";
  }
}

}  // namespace
}  // namespace runner::testing
