// The layouts enumerated for small cases, against the lists written out by hand.
#include "layout/layouts.hpp"

#include <gtest/gtest.h>

#include <set>

namespace runner::layout {
namespace {

std::vector<std::string> strategies_of(const std::vector<Layout>& layouts) {
  std::vector<std::string> texts;
  for (const auto& l : layouts)
    if (texts.empty() || texts.back() != l.strategy_text()) texts.push_back(l.strategy_text());
  return texts;
}

TEST(Layouts, TwoCpuDevicesHaveEveryStrategyOnceInOrder) {
  const auto layouts = enumerate_layouts({2, false}, 4);
  const std::vector<std::string> expected{"ddp",
                                          "zero stage 1",
                                          "zero stage 1 offload nvme",
                                          "zero stage 2",
                                          "zero stage 2 offload nvme",
                                          "zero stage 3",
                                          "zero stage 3 offload nvme",
                                          "tensor degree 2",
                                          "pipeline 2 stages 1f1b",
                                          "pipeline 2 stages gpipe"};
  EXPECT_EQ(strategies_of(layouts), expected);
  // ddp and zero: 2 samples a rank, micro-batches 1 and 2; tensor and pipeline: one replica
  // of 4 samples, 1, 2 and 4; each with fp32 and bf16, checkpointing off and on.
  EXPECT_EQ(layouts.size(), (7 * 2 + 3 * 3) * 2 * 2u);
}

TEST(Layouts, ALayoutVariesMicroBatchesThenPrecisionThenCheckpointing) {
  const auto layouts = enumerate_layouts({2, false}, 4);
  const std::vector<std::string> expected{
      "ddp, 1 micro-batch, fp32",   "ddp, 1 micro-batch, fp32, checkpointing",
      "ddp, 1 micro-batch, bf16",   "ddp, 1 micro-batch, bf16, checkpointing",
      "ddp, 2 micro-batches, fp32", "ddp, 2 micro-batches, fp32, checkpointing",
      "ddp, 2 micro-batches, bf16", "ddp, 2 micro-batches, bf16, checkpointing"};
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(layouts[i].label(), expected[i]);
}

TEST(Layouts, OneDeviceIsSingleOrZeroWithAnOffload) {
  const auto layouts = enumerate_layouts({1, false}, 4);
  const std::vector<std::string> expected{"single", "zero stage 1 offload nvme",
                                          "zero stage 2 offload nvme", "zero stage 3 offload nvme"};
  EXPECT_EQ(strategies_of(layouts), expected);
  EXPECT_EQ(layouts.size(), 4 * 3 * 2 * 2u);  // micro-batches 1, 2, 4
}

TEST(Layouts, CudaAddsCpuOffloadFp16AndDp) {
  const auto layouts = enumerate_layouts({4, true}, 8);
  const auto strategies = strategies_of(layouts);
  const std::set<std::string> all(strategies.begin(), strategies.end());
  for (const char* s : {"zero stage 3 offload cpu", "tensor degree 2", "tensor degree 4",
                        "pipeline 2 stages 1f1b zero 1", "pipeline 4 stages gpipe", "dp"})
    EXPECT_TRUE(all.count(s)) << s;
  EXPECT_FALSE(all.count("pipeline 4 stages gpipe zero 1")) << "one pipeline has no replicas";
  std::set<Precision> precisions;
  for (const auto& l : layouts) precisions.insert(l.precision);
  EXPECT_EQ(precisions.size(), 3u);
}

TEST(Layouts, ABatchThatDoesNotDivideLeavesOneMicroBatchForTheChecksToRefuse) {
  const auto layouts = enumerate_layouts({3, false}, 4);
  for (const auto& l : layouts) {
    if (l.strategy == "ddp") {
      EXPECT_EQ(l.micro_batches, 1);
    }
  }
}

TEST(Layouts, OverridesSelectTheStrategyKeysAndTechniques) {
  Layout l;
  l.strategy = "zero";
  l.keys = {{"stage", "3"}, {"offload", "\"nvme\""}};
  l.micro_batches = 4;
  l.precision = Precision::bf16;
  l.checkpoint_layers = true;
  EXPECT_EQ(l.strategy_overrides({2, false}),
            (std::vector<std::string>{"strategy.stage=3", "strategy.offload=\"nvme\"",
                                      "strategy.world_size=2"}));
  EXPECT_EQ(l.train_overrides(),
            (std::vector<std::string>{"train.micro_batches=4", "train.precision=\"bf16\"",
                                      "train.activation_checkpointing=\"layers\""}));
  l.strategy = "single";
  l.keys.clear();
  EXPECT_TRUE(l.strategy_overrides({1, false}).empty());
}

}  // namespace
}  // namespace runner::layout
