// [train] typed: each key of the file reaches its field of TrainSettings, the defaults are the
// schema's, and the keys stay beside them for the resolved TOML.
#include <gtest/gtest.h>

#include "config/host_schemas.hpp"
#include "test_support.hpp"

namespace runner::config {
namespace {

using test::kMinimal;
using test::parse;

const std::string kEveryTrainKey =
    "[train]\n"
    "epochs = 3\n"
    "batch_size = 96\n"
    "test_batch_size = 250\n"
    "device = \"auto\"\n"
    "threads = 5\n"
    "memory_budget = 1.5\n"
    "peak_tflops = 312.0\n"
    "num_workers = 2\n"
    "prefetch = 4\n"
    "pin_memory = false\n"
    "log_every = 7\n"
    "max_steps_per_epoch = 11\n"
    "max_eval_steps = 13\n"
    "deterministic = true\n"
    "backend_conv = \"native\"\n"
    "precision = \"bf16\"\n"
    "micro_batches = 4\n"
    "activation_checkpointing = \"layers\"\n"
    "grad_clip_norm = 0.5\n"
    "loss_scale = 1024.0\n"
    "loss_scale_growth_interval = 100\n"
    "loss_scale_backoff = 0.25\n";

TEST(TrainSettings, EveryKeyOfTheFileReachesItsField) {
  const TrainSettings t = parse(kMinimal + kEveryTrainKey).runs.at(0).train;
  EXPECT_EQ(t.epochs, 3);
  EXPECT_EQ(t.batch_size, 96);
  EXPECT_EQ(t.test_batch_size, 250);
  EXPECT_EQ(t.device, "auto");
  EXPECT_EQ(t.threads, 5);
  EXPECT_DOUBLE_EQ(t.memory_budget_gib, 1.5);
  EXPECT_DOUBLE_EQ(t.peak_tflops, 312.0);
  EXPECT_EQ(t.num_workers, 2);
  EXPECT_EQ(t.prefetch, 4);
  EXPECT_FALSE(t.pin_memory);
  EXPECT_EQ(t.log_every, 7);
  EXPECT_EQ(t.max_steps_per_epoch, 11);
  EXPECT_EQ(t.max_eval_steps, 13);
  EXPECT_TRUE(t.deterministic);
  EXPECT_FALSE(t.vendor_conv);
  EXPECT_EQ(t.techniques.precision, Precision::bf16);
  EXPECT_EQ(t.techniques.micro_batches, 4);
  EXPECT_TRUE(t.techniques.checkpoint_layers);
  EXPECT_DOUBLE_EQ(t.techniques.grad_clip_norm, 0.5);
  EXPECT_DOUBLE_EQ(t.techniques.loss_scaling.initial_scale, 1024.0);
  EXPECT_EQ(t.techniques.loss_scaling.growth_interval, 100);
  EXPECT_DOUBLE_EQ(t.techniques.loss_scaling.backoff, 0.25);
}

TEST(TrainSettings, AnEmptySectionGivesTheSchemasDefaults) {
  const TrainSettings t = parse(kMinimal).runs.at(0).train;
  const Schema& schema = train_schema();
  auto number = [&schema](const std::string& key) {
    return std::get<double>(*schema.find(key)->default_value);
  };
  auto integer = [&schema](const std::string& key) {
    return std::get<int64_t>(*schema.find(key)->default_value);
  };
  EXPECT_EQ(t.epochs, integer("epochs"));
  EXPECT_EQ(t.batch_size, integer("batch_size"));
  EXPECT_EQ(t.test_batch_size, integer("test_batch_size"));
  EXPECT_EQ(t.threads, integer("threads"));
  EXPECT_EQ(t.prefetch, integer("prefetch"));
  EXPECT_EQ(t.log_every, integer("log_every"));
  EXPECT_DOUBLE_EQ(t.memory_budget_gib, number("memory_budget"));
  EXPECT_DOUBLE_EQ(t.techniques.loss_scaling.initial_scale, number("loss_scale"));
  EXPECT_EQ(t.techniques.precision, Precision::fp32);
  EXPECT_TRUE(t.vendor_conv);
  EXPECT_TRUE(t.pin_memory);
}

TEST(TrainSettings, TheKeysStayForTheResolvedText) {
  const TrainSettings t = parse(kMinimal + "[train]\nepochs = 4\n").runs.at(0).train;
  EXPECT_EQ(t.keys.section(), "train");
  EXPECT_EQ(t.keys.get_int("epochs"), 4);
  EXPECT_EQ(t.keys.get_string("precision"), "fp32");
}

}  // namespace
}  // namespace runner::config
