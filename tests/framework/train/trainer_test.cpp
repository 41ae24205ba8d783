// Tests of the trainer: it learns and records, seeds repeat losses, phases, GPU readings, NaN.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include <cmath>

#include <runner_testing/run_fixtures.hpp>
#include "config/load_experiment.hpp"
#include "measure/cpu_memory.hpp"
#include "train/trainer.hpp"

using ::testing::HasSubstr;
using ::testing::Not;

namespace runner::train {
namespace {

using runner::testing::blobs_experiment;
using runner::testing::fixture_registry;
using runner::testing::MemoryWriter;

struct Trained {
  MemoryWriter writer;
  results::Summary summary;
};

std::unique_ptr<Trained> train(const plugin_host::Registry& registry, const std::string& text) {
  auto experiment = config::parse_experiment(text, "test.toml", {}, registry);
  std::ostringstream out;
  record::Console console(out, true, false);
  auto trained = std::make_unique<Trained>();
  trained->summary = train_run(experiment.runs.at(0), registry, console, trained->writer);
  return trained;
}

TEST(Trainer, LearnsBlobsAndRecordsEveryEpochAndStep) {
  auto registry = fixture_registry();
  auto t = train(registry, blobs_experiment());
  ASSERT_EQ(t->writer.epochs.size(), 2u);
  EXPECT_EQ(t->writer.steps.size(), 2u * 8);  // 256 / 32 steps per epoch
  EXPECT_EQ(t->writer.steps.back().step, 16);
  EXPECT_GT(t->summary.final_test_accuracy, 0.8);  // chance: 0.25
  EXPECT_LT(t->writer.epochs[1].train_loss, t->writer.epochs[0].train_loss);
  EXPECT_EQ(t->summary.per_class_accuracy.size(), 4u);
  EXPECT_EQ(t->summary.class_names[3], "blob3");
  EXPECT_EQ(t->summary.parameters, 4 * 4 + 4);
  EXPECT_DOUBLE_EQ(t->summary.flops_per_sample, 3.0 * 2 * 16);
  EXPECT_GT(t->writer.epochs[0].peak_memory_bytes, 0);
  EXPECT_GT(t->writer.epochs[0].samples_per_s, 0);
}

TEST(Trainer, TheSameSeedGivesABitIdenticalLossSequence) {
  auto registry = fixture_registry();
  auto a = train(registry, blobs_experiment());
  auto b = train(registry, blobs_experiment());
  ASSERT_EQ(a->writer.steps.size(), b->writer.steps.size());
  for (size_t i = 0; i < a->writer.steps.size(); ++i)
    EXPECT_EQ(a->writer.steps[i].loss, b->writer.steps[i].loss) << "step " << i + 1;
  auto other_seed = train(registry, blobs_experiment("[sweep]\n\"experiment.seed\" = [6]\n"));
  EXPECT_NE(a->writer.steps[3].loss, other_seed->writer.steps[3].loss);
}

// GPT-2 of (4, 64, 50257) logits: 51 MB, among the blocks the CPU allocator keeps for reuse.
std::string gpt2_of_large_logits() {
  return "[experiment]\nname = \"large_logits\"\nseed = 11\n"
         "[dataset]\nname = \"random_tokens\"\nsize = 1000\ntest_size = 4\nseq_len = 64\n"
         "vocab_size = 50257\n"
         "[model]\nname = \"gpt2\"\npreset = \"tiny\"\nhidden = 64\nheads = 2\nlayers = 2\n"
         "seq_len = 64\nvocab_size = 50257\n"
         "[optimizer]\nname = \"adamw\"\nlr = 1e-3\n"
         "[train]\nepochs = 1\nbatch_size = 4\ntest_batch_size = 4\nmax_steps_per_epoch = 50\n"
         "threads = 2\nlog_every = 1\n";
}

TEST(Trainer, KeepingLargeFreedBlocksChangesNoLossOverFiftySteps) {
  auto registry = fixture_registry();
  auto kept = train(registry, gpt2_of_large_logits());
  const int64_t bound = measure::limit_cached_cpu_bytes(0);
  auto fresh = train(registry, gpt2_of_large_logits());
  measure::limit_cached_cpu_bytes(bound);
  ASSERT_EQ(kept->writer.steps.size(), 50u);
  ASSERT_EQ(fresh->writer.steps.size(), 50u);
  for (size_t i = 0; i < 50; ++i)
    EXPECT_EQ(kept->writer.steps[i].loss, fresh->writer.steps[i].loss) << "step " << i + 1;
  EXPECT_EQ(kept->summary.final_test_loss, fresh->summary.final_test_loss);
}

TEST(Trainer, LoaderThreadsChangeTimingOnlyNotTheLosses) {
  auto registry = fixture_registry();
  auto inline_batches = train(registry, blobs_experiment());
  auto threaded = train(registry, blobs_experiment("num_workers = 2\nprefetch = 1\n"));
  ASSERT_EQ(inline_batches->writer.steps.size(), threaded->writer.steps.size());
  for (size_t i = 0; i < threaded->writer.steps.size(); ++i)
    EXPECT_EQ(inline_batches->writer.steps[i].loss, threaded->writer.steps[i].loss) << i + 1;
  for (const auto& epoch : threaded->writer.epochs) {
    EXPECT_GE(epoch.data_wait_s, 0);
    EXPECT_NEAR(epoch.data_wait_s + epoch.compute_s, epoch.duration_s, 1e-9);
  }
}

TEST(Trainer, AStepsDurationLeavesOutTheWaitForItsBatch) {
  auto registry = fixture_registry();
  // 8 steps an epoch, each batch read in 20 ms: the wait is most of an epoch.
  auto trained = train(registry, blobs_experiment("[sweep]\n\"dataset.read_delay_ms\" = [20]\n"));
  ASSERT_EQ(trained->writer.steps.size(), 16u);
  for (int64_t e = 0; e < 2; ++e) {
    const auto& epoch = trained->writer.epochs[e];
    EXPECT_GE(epoch.data_wait_s, 8 * 0.020) << epoch.epoch;
    double steps_s = 0;
    for (int64_t i = 0; i < 8; ++i) steps_s += trained->writer.steps[e * 8 + i].duration_s;
    // The steps and the waits are apart in time, and both inside the epoch.
    EXPECT_LE(steps_s + epoch.data_wait_s, epoch.duration_s) << epoch.epoch;
  }
}

TEST(Trainer, EpochsRecordTheStrategysPhasesAndHeldMemory) {
  auto registry = fixture_registry();
  auto trained = train(registry, blobs_experiment());
  for (const auto& epoch : trained->writer.epochs) {
    EXPECT_GT(epoch.forward_s, 0) << epoch.epoch;
    EXPECT_GT(epoch.backward_s, 0) << epoch.epoch;
    EXPECT_GT(epoch.optimizer_s, 0) << epoch.epoch;
    EXPECT_LE(epoch.forward_s + epoch.backward_s + epoch.optimizer_s, epoch.compute_s);
    // linear_probe keeps at least its (batch, classes) logits from forward to backward.
    EXPECT_GT(epoch.activation_memory_bytes, 0) << epoch.epoch;
  }
}

TEST(Trainer, OneRankSpendsNoTimeInCommunication) {
  auto registry = fixture_registry();
  auto trained = train(registry, blobs_experiment());
  for (const auto& epoch : trained->writer.epochs) EXPECT_EQ(epoch.communication_s, 0);
}

TEST(Trainer, ACpuRunHasNoGpuReadings) {
  auto registry = fixture_registry();
  auto trained = train(registry, blobs_experiment());
  for (const auto& epoch : trained->writer.epochs) {
    EXPECT_TRUE(std::isnan(epoch.gpu_utilization)) << epoch.epoch;
    EXPECT_TRUE(std::isnan(epoch.gpu_memory_used_bytes)) << epoch.epoch;
  }
}

TEST(Trainer, ACudaRunRecordsItsGpusUtilisationAndMemoryFromNvml) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  auto registry = fixture_registry();
  auto trained = train(registry, blobs_experiment("device = \"cuda\"\n"));
  for (const auto& epoch : trained->writer.epochs) {
    EXPECT_GE(epoch.gpu_utilization, 0) << epoch.epoch;
    EXPECT_LE(epoch.gpu_utilization, 1) << epoch.epoch;
    // At least the CUDA context this process made, which NVML counts.
    EXPECT_GT(epoch.gpu_memory_used_bytes, 0) << epoch.epoch;
  }
}

TEST(Trainer, BackendConvSwitchesTheVendorConvolutions) {
  auto registry = fixture_registry();
  train(registry, blobs_experiment("backend_conv = \"native\"\n"));
  EXPECT_FALSE(at::globalContext().userEnabledMkldnn());
  EXPECT_FALSE(at::globalContext().userEnabledCuDNN());
  train(registry, blobs_experiment());
  EXPECT_TRUE(at::globalContext().userEnabledMkldnn());
  EXPECT_TRUE(at::globalContext().userEnabledCuDNN());
}

TEST(Trainer, AugmentingSamplesThatAreNotImagesIsAConfigError) {
  auto registry = fixture_registry();
  const std::string augment = "[[dataset.augment]]\nname = \"horizontal_flip\"\n";
  try {
    train(registry, blobs_experiment(augment));
    FAIL() << "blobs samples are vectors, not images";
  } catch (const ConfigError& e) {
    // The blobs fixture's samples are vectors of dataset.dim = 4 features.
    EXPECT_THAT(std::string(e.what()),
                HasSubstr("[[dataset.augment]] transforms images (C, H, W), but "
                          "the dataset's samples have shape (4)"))
        << e.what();
  }
}

// Trains the blobs experiment with `sweep` (one point) and returns the error it must end with.
Error failure_of(const std::string& sweep, MemoryWriter& writer) {
  auto registry = fixture_registry();
  auto experiment = config::parse_experiment(blobs_experiment("[sweep]\n" + sweep + "\n"), "t.toml",
                                             {}, registry);
  std::ostringstream out;
  record::Console console(out, true, false);
  try {
    train_run(experiment.runs.at(0), registry, console, writer);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no error with " << sweep;
  return RunError("no error");
}

TEST(Trainer, ANanLossStopsTheRunAfterRecordingFinishedEpochs) {
  MemoryWriter writer;
  Error e = failure_of("\"model.poison_at_step\" = [11]", writer);
  EXPECT_EQ(e.exit_code(), 5);
  EXPECT_THAT(std::string(e.what()), HasSubstr("loss became nan at step 11 (epoch 2)")) << e.what();
  EXPECT_EQ(writer.epochs.size(), 1u);
}

TEST(Trainer, AnExceptionInAStepIsOneLineNamingThePlugins) {
  MemoryWriter writer;
  Error e = failure_of("\"model.fail_at_step\" = [2]", writer);
  std::string message = e.what();
  EXPECT_EQ(e.exit_code(), 3);
  EXPECT_EQ(message.rfind("training step 2 failed: ", 0), 0u) << message;
  EXPECT_THAT(message, Not(HasSubstr("\n"))) << message;
  EXPECT_THAT(e.hint(), HasSubstr("model 'linear_probe' (")) << e.hint();
  EXPECT_THAT(e.hint(), HasSubstr("strategy 'single' (")) << e.hint();
}

TEST(Trainer, MaxStepsPerEpochAndScheduleAreApplied) {
  auto registry = fixture_registry();
  auto t = train(registry, blobs_experiment("max_steps_per_epoch = 3\n"
                                            "[schedule]\nname = \"step\"\ngamma = 0.5\n"));
  ASSERT_EQ(t->writer.steps.size(), 6u);
  EXPECT_DOUBLE_EQ(t->writer.steps[0].learning_rate, 0.1);
  EXPECT_DOUBLE_EQ(t->writer.steps[3].learning_rate, 0.05);
}

// max_eval_steps cuts each test pass to its first batches, and changes nothing of training; a
// bound at or above the pass's batches is the whole test set.
TEST(Trainer, MaxEvalStepsCutsTheTestPassesOnly) {
  auto registry = fixture_registry();
  const std::string test_batches = "test_batch_size = 32\n";  // 4 batches of the 128 samples
  auto one = train(registry, blobs_experiment(test_batches + "max_eval_steps = 1\n"));
  auto four = train(registry, blobs_experiment(test_batches + "max_eval_steps = 4\n"));
  auto all = train(registry, blobs_experiment(test_batches));
  ASSERT_EQ(one->writer.steps.size(), all->writer.steps.size());
  for (size_t i = 0; i < all->writer.steps.size(); ++i)
    EXPECT_EQ(one->writer.steps[i].loss, all->writer.steps[i].loss) << "step " << i + 1;
  for (size_t e = 0; e < all->writer.epochs.size(); ++e) {
    EXPECT_EQ(four->writer.epochs[e].test_loss, all->writer.epochs[e].test_loss);
    EXPECT_NE(one->writer.epochs[e].test_loss, all->writer.epochs[e].test_loss);
  }
}

}  // namespace
}  // namespace runner::train
