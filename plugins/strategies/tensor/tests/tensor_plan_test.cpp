// The plan of `tensor`: the split parts of each layer divided by the degree, the rest whole,
// and the degree checked against the model's sizes and the ranks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <runner/strategies/replica_plan.hpp>

#include <runner_testing/error_message.hpp>
#include "../tensor_plan.hpp"

using ::testing::HasSubstr;

namespace runner::testing::tensor_tests {
namespace {

using strategies::plan_tensor;
using strategies::split_estimate;

LayerEstimate layer(int64_t parameters, double held) {
  LayerEstimate estimate;
  estimate.parameters = parameters;
  estimate.held_bytes = held;
  estimate.output_bytes = 10;
  return estimate;
}

// Two layers: 1000 parameters holding 100 bytes, and 50 parameters holding 20.
ModelEstimate two_layers() {
  ModelEstimate model;
  model.parameters = 1050;
  model.layers = {layer(1000, 100), layer(50, 20)};
  return model;
}

// Of the first, 800 parameters and 60 bytes split; the second whole.
SplitEstimate two_layers_split() {
  SplitEstimate split;
  split.layers = {LayerSplit{800, 60}, LayerSplit{}};
  split.divisors = {{"heads", 12}, {"hidden", 96}};
  return split;
}

Options tensor_options(int64_t degree) {
  Options options("strategy");
  options.set("degree", degree);
  options.set("drop_last", false);
  return options;
}

TEST(TensorPlan, SplitPartsAreDividedByTheDegreeAndTheRestKeptWhole) {
  const ModelEstimate split = split_estimate(two_layers(), two_layers_split(), 4);
  EXPECT_EQ(split.parameters, 1050 - 600);
  EXPECT_EQ(split.layers[0].parameters, 200 + 200);
  EXPECT_DOUBLE_EQ(split.layers[0].held_bytes, 40 + 15);
  EXPECT_EQ(split.layers[1].parameters, 50);
  EXPECT_DOUBLE_EQ(split.layers[1].held_bytes, 20);
}

TEST(TensorPlan, ADegreeThatDoesNotDivideASizeNamesIt) {
  const std::string message =
      message_of<ConfigError>([] { split_estimate(two_layers(), two_layers_split(), 5); });
  EXPECT_THAT(message, HasSubstr("strategy.degree = 5 does not divide the model's heads = 12"))
      << message;
}

TEST(TensorPlan, AModelWithoutASplitIsRefused) {
  EXPECT_THAT(message_of<ConfigError>([] { split_estimate(two_layers(), std::nullopt, 2); }),
              HasSubstr("does not say how it splits"));
}

TEST(TensorPlan, ASplitListingOtherLayersThanTheEstimateIsRefusedWithBothCounts) {
  SplitEstimate one_layer = two_layers_split();
  one_layer.layers.pop_back();
  EXPECT_THAT(message_of<ConfigError>([&] { split_estimate(two_layers(), one_layer, 2); }),
              HasSubstr("the model's split lists 1 layers, its estimate 2"));
}

TEST(TensorPlan, EachRankHoldsTheSplitReplicaAndReplicasAnAveragingCopy) {
  PlanInput input;
  input.model = two_layers();
  input.tensor_split = two_layers_split();
  input.world_size = 4;
  input.batch_size = 8;
  input.optimizer_states_per_parameter = 2;
  const RunPlan plan = plan_tensor(tensor_options(2), input);
  ASSERT_EQ(plan.ranks.size(), 4u);
  EXPECT_EQ(plan.data_parallel_degree, 2);
  EXPECT_EQ(plan.micro_batch_size, 4);
  PlanInput split = input;
  split.model = split_estimate(input.model, input.tensor_split, 2);
  const MemoryPlan replica = strategies::replica_memory(split, 4);
  const double p = 1050 - 400;
  EXPECT_DOUBLE_EQ(plan.ranks[3].parameters, 4 * p);
  EXPECT_DOUBLE_EQ(plan.ranks[3].optimizer_state, replica.optimizer_state);
  EXPECT_DOUBLE_EQ(plan.ranks[3].activations, replica.activations);
  EXPECT_DOUBLE_EQ(plan.ranks[3].buffers, 4 * p);  // the flat copy of the gradients
  // One group: no replicas to average with.
  input.world_size = 2;
  EXPECT_DOUBLE_EQ(plan_tensor(tensor_options(2), input).ranks[0].buffers, 0);
}

TEST(TensorPlan, ADegreeThatDoesNotDivideTheRanksIsRefused) {
  PlanInput input;
  input.model = two_layers();
  input.tensor_split = two_layers_split();
  input.world_size = 3;
  EXPECT_THAT(message_of<ConfigError>([&] { plan_tensor(tensor_options(2), input); }),
              HasSubstr("does not divide the 3 ranks"));
}

}  // namespace
}  // namespace runner::testing::tensor_tests
