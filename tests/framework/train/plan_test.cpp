// The run plan: gpt2's estimator against the bytes its built layers hold, the plan against
// the tensors' measured peak of a run, the budget check, and MFU.
#include <gtest/gtest.h>

#include <runner_testing/run_fixtures.hpp>
#include "config/load_experiment.hpp"
#include "measure/cpu_memory.hpp"
#include "measure/mfu.hpp"
#include "plan/estimate.hpp"
#include "plan/measure_model.hpp"
#include "plugin_host/op_library.hpp"
#include "train/trainer.hpp"

namespace runner::train {
namespace {

using runner::testing::fixture_registry;
using runner::testing::MemoryWriter;

// GPT-2 of the given shape on random tokens of `tokens`.
std::string gpt2(const std::string& shape, int64_t tokens, const std::string& train_keys,
                 double dropout = 0.0) {
  return "[experiment]\nname = \"plan\"\nseed = 3\n"
         "[dataset]\nname = \"random_tokens\"\nsize = 100000\ntest_size = 8\nseq_len = " +
         std::to_string(tokens) + "\nvocab_size = 2048\n[model]\nname = \"gpt2\"\n" + shape +
         "\ndropout = " + std::to_string(dropout) +
         "\n[optimizer]\nname = \"adamw\"\nlr = 1e-3\n"
         "[train]\nepochs = 1\nthreads = 2\ntest_batch_size = 8\nlog_every = 1\n" +
         train_keys;
}

const char* kSmallShape =
    "preset = \"tiny\"\nhidden = 128\nheads = 4\nlayers = 3\nseq_len = 128\nvocab_size = 2048";

config::RunConfig run_of(const plugin_host::Registry& registry, const std::string& text) {
  return config::parse_experiment(text, "plan.toml", {}, registry).runs.at(0);
}

ModelEstimate measured_gpt2(const plugin_host::Registry& registry, const config::RunConfig& run,
                            Precision precision) {
  auto dataset = registry.make_dataset(run.dataset, DatasetContext{0});
  plugin_host::RegistryOpLibrary ops(registry, run.ops);
  auto model = registry.make_model(run.model, ModelContext{dataset->info(), &ops, precision});
  return plan::measure_model(*model, dataset->get_batch(Split::train, torch::arange(2)), precision);
}

void expect_estimate_near_measure(const std::string& text, Precision precision) {
  auto registry = fixture_registry();
  const auto run = run_of(registry, text);
  auto dataset = registry.make_dataset(run.dataset, DatasetContext{0});
  plugin_host::RegistryOpLibrary ops(registry, run.ops);
  const auto estimated =
      *registry.estimate_model(run.model, ModelContext{dataset->info(), &ops, precision});
  const auto measured = measured_gpt2(registry, run, precision);
  ASSERT_EQ(estimated.layers.size(), measured.layers.size());
  for (size_t i = 0; i < measured.layers.size(); ++i) {
    EXPECT_EQ(estimated.layers[i].parameters, measured.layers[i].parameters) << "layer " << i;
    // What the built layers say of themselves: their FLOPs and the weight they read tied.
    EXPECT_DOUBLE_EQ(estimated.layers[i].forward_flops, measured.layers[i].forward_flops) << i;
    EXPECT_EQ(estimated.layers[i].tied_parameters, measured.layers[i].tied_parameters) << i;
    EXPECT_EQ(estimated.layers[i].tied_owner, measured.layers[i].tied_owner) << i;
    EXPECT_NEAR(estimated.layers[i].held_bytes, measured.layers[i].held_bytes,
                0.1 * measured.layers[i].held_bytes)
        << "layer " << i;
    EXPECT_NEAR(estimated.layers[i].output_bytes, measured.layers[i].output_bytes,
                0.01 * measured.layers[i].output_bytes)
        << "layer " << i;
  }
  EXPECT_NEAR(estimated.loss_bytes, measured.loss_bytes, 0.1 * measured.loss_bytes);
}

TEST(Plan, Gpt2EstimatorMatchesWhatItsBuiltLayersHold) {
  expect_estimate_near_measure(gpt2(kSmallShape, 64, ""), Precision::fp32);
}

TEST(Plan, Gpt2EstimatorMatchesWhatItsBuiltLayersHoldWithDropout) {
  expect_estimate_near_measure(gpt2(kSmallShape, 64, "", 0.1), Precision::fp32);
}

TEST(Plan, Gpt2EstimatorMatchesWhatItsBuiltLayersHoldInBf16) {
  expect_estimate_near_measure(gpt2(kSmallShape, 64, ""), Precision::bf16);
}

// Trains 3 steps of `micro` samples per micro-batch and returns (estimated, measured) peak.
std::pair<double, double> planned_and_measured(int64_t micro, const std::string& techniques) {
  auto registry = fixture_registry();
  const std::string keys = "batch_size = " + std::to_string(2 * micro) +
                           "\nmicro_batches = 2\nmax_steps_per_epoch = 3\n" + techniques;
  auto experiment =
      config::parse_experiment(gpt2(kSmallShape, 64, keys), "plan.toml", {}, registry);
  std::ostringstream out;
  record::Console console(out, true, false);
  MemoryWriter writer;
  const results::Summary summary = train_run(experiment.runs.at(0), registry, console, writer);
  return {summary.estimated_memory_per_rank_bytes.at(0), summary.tensor_peak_per_rank_bytes.at(0)};
}

void expect_plan_within_15_percent(int64_t micro, const std::string& techniques) {
  const auto [planned, measured] = planned_and_measured(micro, techniques);
  EXPECT_GT(measured, 0);
  EXPECT_NEAR(planned, measured, 0.15 * measured)
      << "micro-batch " << micro << " " << techniques << ": planned " << planned / 1048576
      << " MiB, measured " << measured / 1048576 << " MiB";
}

TEST(Plan, PredictsTheMeasuredPeakAtMicroBatch4And8) {
  expect_plan_within_15_percent(4, "");
  expect_plan_within_15_percent(8, "");
}

TEST(Plan, PredictsTheMeasuredPeakWithCheckpointing) {
  expect_plan_within_15_percent(4, "activation_checkpointing = \"layers\"\n");
  expect_plan_within_15_percent(8, "activation_checkpointing = \"layers\"\n");
}

TEST(Plan, PredictsTheMeasuredPeakInBf16) {
  expect_plan_within_15_percent(4, "precision = \"bf16\"\n");
  expect_plan_within_15_percent(8, "precision = \"bf16\"\n");
  expect_plan_within_15_percent(8, "precision = \"bf16\"\nactivation_checkpointing = \"layers\"\n");
}

TEST(Plan, CheckpointingPlansLessThanKeepingActivations) {
  const auto kept = planned_and_measured(8, "");
  const auto checkpointed = planned_and_measured(8, "activation_checkpointing = \"layers\"\n");
  EXPECT_LT(checkpointed.first, kept.first);
  EXPECT_LT(checkpointed.second, kept.second);
}

TEST(Mfu, TrainingFlopsAreThreeForwardsOrFourWithCheckpointing) {
  EXPECT_DOUBLE_EQ(measure::training_flops_per_sample(10, false), 30);
  EXPECT_DOUBLE_EQ(measure::training_flops_per_sample(10, true), 40);
}

TEST(Mfu, PeakComesFromTheKeyThenKnownGpusThenNone) {
  EXPECT_DOUBLE_EQ(measure::peak_tflops(100, "NVIDIA H100 80GB HBM3", Precision::bf16), 100);
  EXPECT_DOUBLE_EQ(measure::peak_tflops(0, "NVIDIA H100 80GB HBM3", Precision::bf16), 989);
  EXPECT_DOUBLE_EQ(measure::peak_tflops(0, "NVIDIA H100 PCIe", Precision::bf16), 756);
  EXPECT_DOUBLE_EQ(measure::peak_tflops(0, "NVIDIA A100-SXM4-40GB", Precision::fp16), 312);
  EXPECT_DOUBLE_EQ(measure::peak_tflops(0, "NVIDIA A100-SXM4-40GB", Precision::fp32), 19.5);
  EXPECT_DOUBLE_EQ(measure::peak_tflops(0, "", Precision::bf16), 0);  // a CPU
  EXPECT_DOUBLE_EQ(measure::peak_tflops(0, "Tesla T4", Precision::fp16), 0);
}

TEST(Mfu, IsAchievedOverPeakTimesRanks) {
  EXPECT_DOUBLE_EQ(measure::model_flops_utilisation(400, 989, 1), 400.0 / 989);
  EXPECT_DOUBLE_EQ(measure::model_flops_utilisation(400, 1000, 2), 0.2);
  EXPECT_DOUBLE_EQ(measure::model_flops_utilisation(400, 0, 1), 0);
}

TEST(Mfu, ARunWithAConfiguredPeakRecordsIt) {
  auto registry = fixture_registry();
  auto experiment = config::parse_experiment(
      gpt2(kSmallShape, 64, "batch_size = 4\nmax_steps_per_epoch = 2\npeak_tflops = 0.5\n"),
      "plan.toml", {}, registry);
  std::ostringstream out;
  record::Console console(out, true, false);
  MemoryWriter writer;
  const auto summary = train_run(experiment.runs.at(0), registry, console, writer);
  EXPECT_GT(summary.tflops, 0);
  EXPECT_DOUBLE_EQ(summary.mfu, summary.tflops / 0.5);
}

}  // namespace
}  // namespace runner::train
