// The [train] techniques through the whole engine, on the real plugins: micro-batches follow
// one batch, checkpointing follows a plain run with less held memory, bf16 follows fp32, and
// impossible combinations are refused before anything runs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <runner_testing/run_fixtures.hpp>
#include "config/experiment.hpp"
#include "config/load_experiment.hpp"
#include "train/technique_checks.hpp"
#include "train/trainer.hpp"

using ::testing::HasSubstr;

namespace runner::train {
namespace {

using runner::testing::fixture_registry;
using runner::testing::MemoryWriter;

std::unique_ptr<MemoryWriter> records_of(const plugin_host::Registry& registry,
                                         const std::string& text) {
  auto experiment = config::parse_experiment(text, "techniques.toml", {}, registry);
  std::ostringstream out;
  record::Console console(out, true, false);
  auto writer = std::make_unique<MemoryWriter>();
  train_run(experiment.runs.at(0), registry, console, *writer);
  return writer;
}

// GPT-2 tiny on random tokens, `steps` steps of 16 sequences of 32 tokens.
std::string gpt2_tiny(int steps, const std::string& train_keys, double dropout = 0.0) {
  return "[experiment]\nname = \"gpt2\"\nseed = 3\n"
         "[dataset]\nname = \"random_tokens\"\nsize = 100000\ntest_size = 32\nseq_len = 32\n"
         "vocab_size = 512\n"
         "[model]\nname = \"gpt2\"\npreset = \"tiny\"\ndropout = " +
         std::to_string(dropout) +
         "\n[optimizer]\nname = \"adamw\"\nlr = 1e-3\n"
         "[train]\nepochs = 1\nbatch_size = 16\nthreads = 2\nlog_every = 1\n"
         "max_steps_per_epoch = " +
         std::to_string(steps) + "\n" + train_keys;
}

std::string lenet5(int steps, const std::string& train_keys) {
  return "[experiment]\nname = \"lenet\"\nseed = 2\n"
         "[dataset]\nname = \"mnist\"\ndata_dir = \"/usr/share/datasets/fashion-mnist\"\n"
         "[model]\nname = \"lenet5\"\n"
         "[optimizer]\nname = \"adam\"\nlr = 1e-3\n"
         "[train]\nepochs = 1\nbatch_size = 64\ntest_batch_size = 2000\nthreads = 2\n"
         "log_every = 1\nmax_steps_per_epoch = " +
         std::to_string(steps) + "\n" + train_keys;
}

void expect_same_losses(const MemoryWriter& a, const MemoryWriter& b, double relative) {
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (size_t i = 0; i < a.steps.size(); ++i)
    EXPECT_NEAR(a.steps[i].loss, b.steps[i].loss, relative * std::abs(a.steps[i].loss))
        << "step " << i + 1;
}

TEST(Techniques, FourMicroBatchesFollowOneBatchOnLenet5) {
  auto registry = fixture_registry();
  auto one = records_of(registry, lenet5(50, ""));
  auto four = records_of(registry, lenet5(50, "micro_batches = 4\n"));
  expect_same_losses(*one, *four, 1e-6);
  EXPECT_LT(one->steps.back().loss, one->steps.front().loss);
  EXPECT_EQ(one->epochs[0].test_accuracy, four->epochs[0].test_accuracy);
}

TEST(Techniques, FourMicroBatchesFollowOneBatchOnGpt2Tiny) {
  auto registry = fixture_registry();
  auto one = records_of(registry, gpt2_tiny(50, ""));
  auto four = records_of(registry, gpt2_tiny(50, "micro_batches = 4\n"));
  expect_same_losses(*one, *four, 1e-6);
  EXPECT_LT(one->steps.back().loss, one->steps.front().loss);
}

TEST(Techniques, CheckpointedLayersFollowAPlainRunWithDropoutAndHoldLessMemory) {
  auto registry = fixture_registry();
  auto plain = records_of(registry, gpt2_tiny(10, "", 0.1));
  auto checkpointed =
      records_of(registry, gpt2_tiny(10, "activation_checkpointing = \"layers\"\n", 0.1));
  expect_same_losses(*plain, *checkpointed, 1e-6);
  auto other_dropout = records_of(registry, gpt2_tiny(10, "", 0.2));
  EXPECT_NE(plain->steps[1].loss, other_dropout->steps[1].loss) << "dropout was not on";
  EXPECT_LT(checkpointed->epochs[0].activation_memory_bytes,
            0.5 * plain->epochs[0].activation_memory_bytes);
}

TEST(Techniques, Bf16EndsWithin3PercentOfFp32OnGpt2Tiny) {
  auto registry = fixture_registry();
  auto fp32 = records_of(registry, gpt2_tiny(200, ""));
  auto bf16 = records_of(registry, gpt2_tiny(200, "precision = \"bf16\"\n"));
  // The mean of the last 20 steps: one step's loss on random tokens is noisy.
  auto tail_mean = [](const MemoryWriter& w) {
    double sum = 0;
    for (size_t i = w.steps.size() - 20; i < w.steps.size(); ++i) sum += w.steps[i].loss;
    return sum / 20;
  };
  EXPECT_NEAR(tail_mean(*bf16), tail_mean(*fp32), 0.03 * tail_mean(*fp32));
  EXPECT_NE(bf16->steps[2].loss, fp32->steps[2].loss) << "bf16 changed nothing";
  EXPECT_EQ(bf16->epochs[0].skipped_steps, 0);
  EXPECT_EQ(bf16->epochs[0].loss_scale, 0) << "bf16 needs no loss scaling";
}

TEST(Techniques, ClippingTrainsDifferentlyThanWithout) {
  auto registry = fixture_registry();
  auto plain = records_of(registry, gpt2_tiny(5, ""));
  auto clipped = records_of(registry, gpt2_tiny(5, "grad_clip_norm = 0.01\n"));
  EXPECT_EQ(plain->steps[0].loss, clipped->steps[0].loss);
  EXPECT_NE(plain->steps[4].loss, clipped->steps[4].loss);
}

TEST(Techniques, CheckpointingAModelWithoutLayersIsAConfigError) {
  auto registry = fixture_registry();
  try {
    records_of(registry, lenet5(1, "activation_checkpointing = \"layers\"\n"));
    FAIL() << "lenet5 lists no layers";
  } catch (const ConfigError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("train.activation_checkpointing"));
  }
}

config::RunConfig run_of(const std::string& text) {
  auto registry = fixture_registry();
  return config::parse_experiment(text, "techniques.toml", {}, registry).runs.at(0);
}

TEST(Techniques, MicroBatchesThatDoNotDivideARanksShareAreRefusedWithTheArithmetic) {
  const auto run = run_of(gpt2_tiny(1, "micro_batches = 3\n"));
  EXPECT_NO_THROW(check_techniques(run_of(gpt2_tiny(1, "micro_batches = 4\n")), 2));
  try {
    check_techniques(run, 2);
    FAIL() << "16 / 2 = 8 samples per rank do not split into 3";
  } catch (const ConfigError& e) {
    const std::string text = e.what();
    EXPECT_THAT(text, HasSubstr("train.micro_batches = 3")) << text;
    EXPECT_THAT(text, HasSubstr("8 samples")) << text;
    EXPECT_THAT(text, HasSubstr("2 x 3 x")) << text;
    EXPECT_THAT(e.hint(), HasSubstr("multiple of 6")) << e.hint();
  }
}

TEST(Techniques, TheGlobalBatchDividesAmongTheRanksOrIsRefused) {
  const auto run = run_of(gpt2_tiny(1, ""));  // a batch of 16
  EXPECT_NO_THROW(check_batch_divides(run, 4));
  try {
    check_batch_divides(run, 3);
    FAIL() << "16 samples do not divide among 3 ranks";
  } catch (const ConfigError& e) {
    EXPECT_THAT(std::string(e.what()),
                HasSubstr("train.batch_size = 16 does not divide among 3 ranks"))
        << e.what();
    EXPECT_THAT(e.hint(), HasSubstr("multiple of the ranks")) << e.hint();
  }
}

TEST(Techniques, Fp16OnTheCpuIsRefused) {
  const auto run = run_of(gpt2_tiny(1, "precision = \"fp16\"\n"));
  try {
    check_techniques(run, 1);
    FAIL() << "fp16 needs CUDA";
  } catch (const ConfigError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("train.precision = \"fp16\""));
  }
  EXPECT_NO_THROW(check_techniques(run_of(gpt2_tiny(1, "precision = \"bf16\"\n")), 1));
}

TEST(Techniques, KeysBecomeTheStrategysTechniques) {
  const auto run = run_of(gpt2_tiny(1,
                                    "micro_batches = 2\nprecision = \"bf16\"\n"
                                    "activation_checkpointing = \"layers\"\ngrad_clip_norm = 1.5\n"
                                    "loss_scale = 256.0\nloss_scale_growth_interval = 10\n"));
  const Techniques t = run.train.techniques;
  EXPECT_EQ(t.micro_batches, 2);
  EXPECT_EQ(t.precision, Precision::bf16);
  EXPECT_TRUE(t.checkpoint_layers);
  EXPECT_DOUBLE_EQ(t.grad_clip_norm, 1.5);
  EXPECT_DOUBLE_EQ(t.loss_scaling.initial_scale, 256.0);
  EXPECT_EQ(t.loss_scaling.growth_interval, 10);
}

}  // namespace
}  // namespace runner::train
