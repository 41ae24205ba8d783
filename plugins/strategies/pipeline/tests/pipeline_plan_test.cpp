// Tests of pipeline's plan: stages' layers and micro-batches, pipelines, zero_stage, tied weights.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <runner_testing/table_defaults.hpp>
#include "../pipeline_plan.hpp"
#include "../pipeline_strategy.hpp"

using ::testing::HasSubstr;

namespace runner::testing::pipeline_tests {
namespace {

// 4 layers of 1000 parameters, each holding 100 bytes per sample and passing on 10.
PlanInput four_layers(int ranks, int micro_batches) {
  PlanInput input;
  input.model.parameters = 4000;
  for (int i = 0; i < 4; ++i) {
    LayerEstimate layer;
    layer.parameters = 1000;
    layer.held_bytes = 100;
    layer.output_bytes = 10;
    input.model.layers.push_back(layer);
  }
  input.model.loss_bytes = 7;
  input.world_size = ranks;
  input.batch_size = 8 * ranks / 2;  // 8 samples per pipeline
  input.techniques.micro_batches = micro_batches;
  input.optimizer_states_per_parameter = 2;
  return input;
}

Options pipeline(const std::string& schedule, int64_t zero_stage = 0) {
  Options o = table_defaults(strategies::PipelineOptions::fields().schema(), "strategy");
  o.set("stages", int64_t{2});
  o.set("schedule", schedule);
  o.set("balance", std::string("layers"));
  o.set("zero_stage", zero_stage);
  o.set("backend", std::string("nccl"));
  return o;
}

// 1F1B keeps k - s micro-batches in flight on stage s, GPipe all m; micro-batches of 2.
TEST(PipelinePlan, EachStageHoldsItsLayersAndTheMicroBatchesItsScheduleKeeps) {
  const RunPlan f1b = strategies::plan_pipeline(pipeline("1f1b"), four_layers(2, 4));
  ASSERT_EQ(f1b.ranks.size(), 2u);
  EXPECT_EQ(f1b.micro_batch_size, 2);
  EXPECT_EQ(f1b.data_parallel_degree, 1);
  const MemoryPlan first = f1b.ranks[0], last = f1b.ranks[1];
  EXPECT_DOUBLE_EQ(first.parameters, 4.0 * 2000);
  EXPECT_DOUBLE_EQ(first.optimizer_state, 4.0 * (2 * 2000 + 1000));
  EXPECT_DOUBLE_EQ(first.activations, 2 * 2 * (100 + 100));             // 2 in flight
  EXPECT_DOUBLE_EQ(last.activations, 1 * 2 * (100 + 100) + 2 * 7 * 2);  // 1, and the loss
  EXPECT_DOUBLE_EQ(first.buffers, 2 * 10 * 2);                          // messages out
  const RunPlan gpipe = strategies::plan_pipeline(pipeline("gpipe"), four_layers(2, 4));
  EXPECT_DOUBLE_EQ(gpipe.ranks[0].activations, 4 * 2 * (100 + 100));
}

TEST(PipelinePlan, TwoPipelinesShareTheBatchAndRepeatTheStages) {
  const RunPlan plan = strategies::plan_pipeline(pipeline("1f1b"), four_layers(4, 2));
  ASSERT_EQ(plan.ranks.size(), 4u);
  EXPECT_EQ(plan.data_parallel_degree, 2);
  EXPECT_DOUBLE_EQ(plan.ranks[2].total(), plan.ranks[0].total());
  EXPECT_DOUBLE_EQ(plan.ranks[3].total(), plan.ranks[1].total());
}

// Each stage's 2000 parameters: fp32 Adam's 8 bytes each and the step's temporaries of its
// largest layer (4 bytes each of 1000), halved over 2 pipelines.
TEST(PipelinePlan, ZeroStageOneHalvesTheStateOverTwoPipelines) {
  const RunPlan whole = strategies::plan_pipeline(pipeline("1f1b"), four_layers(4, 2));
  const RunPlan sharded = strategies::plan_pipeline(pipeline("1f1b", 1), four_layers(4, 2));
  EXPECT_DOUBLE_EQ(whole.ranks[0].optimizer_state, 4.0 * (2 * 2000 + 1000));
  EXPECT_DOUBLE_EQ(sharded.ranks[0].optimizer_state, 4.0 * (2 * 2000 + 1000) / 2);
  EXPECT_DOUBLE_EQ(sharded.ranks[0].parameters, whole.ranks[0].parameters);
  EXPECT_THAT(sharded.notes, HasSubstr("optimizer state sharded")) << sharded.notes;
  // One pipeline: nothing to shard over.
  EXPECT_DOUBLE_EQ(
      strategies::plan_pipeline(pipeline("1f1b", 1), four_layers(2, 2)).ranks[0].optimizer_state,
      4.0 * (2 * 2000 + 1000));
}

// The last layer reads 500 of the first layer's parameters: the last stage keeps a copy and its
// gradient; the first stage, which owns them, counts them once.
TEST(PipelinePlan, AStageKeepsACopyOfATiedWeightItsOwnerHoldsElsewhere) {
  PlanInput input = four_layers(2, 2);
  input.model.layers[3].tied_parameters = 500;
  input.model.layers[3].tied_owner = 0;
  const RunPlan plain = strategies::plan_pipeline(pipeline("1f1b"), four_layers(2, 2));
  const RunPlan tied = strategies::plan_pipeline(pipeline("1f1b"), input);
  EXPECT_DOUBLE_EQ(tied.ranks[0].parameters, plain.ranks[0].parameters);
  EXPECT_DOUBLE_EQ(tied.ranks[1].parameters - plain.ranks[1].parameters, 4.0 * 500);
  EXPECT_DOUBLE_EQ(tied.ranks[1].gradients - plain.ranks[1].gradients, 4.0 * 500);
  EXPECT_DOUBLE_EQ(tied.ranks[1].optimizer_state, plain.ranks[1].optimizer_state);
  // The owner on the same stage: no copy.
  input.model.layers[3].tied_owner = 2;
  EXPECT_DOUBLE_EQ(strategies::plan_pipeline(pipeline("1f1b"), input).ranks[1].parameters,
                   plain.ranks[1].parameters);
}

// A plan that the run's setup would refuse is refused the same way, so a dry run fails as the
// run would.
TEST(PipelinePlan, MoreStagesThanLayersOrNoLayersAreRefusedAsTheRunRefusesThem) {
  Options three_stages = pipeline("1f1b");
  three_stages.set("stages", int64_t{3});
  PlanInput two_layers = four_layers(3, 1);
  two_layers.model.layers.resize(2);
  try {
    strategies::plan_pipeline(three_stages, two_layers);
    ADD_FAILURE() << "planned 3 stages on 2 layers";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "strategy.stages: 3 pipeline stages need at least as many layers; the model "
                 "lists 2");
  }
  PlanInput no_layers = four_layers(2, 1);
  no_layers.model.layers.clear();
  EXPECT_THROW(strategies::plan_pipeline(pipeline("1f1b"), no_layers), ConfigError);
}

}  // namespace
}  // namespace runner::testing::pipeline_tests
