// Tests of zero's plan: model state per parameter by stage, equal ranks, buffers, offloaded state.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <runner_testing/table_defaults.hpp>
#include "../zero_plan.hpp"
#include "../zero_strategy.hpp"

using ::testing::HasSubstr;

namespace runner::testing::zero_tests {
namespace {

// A model of 10 million parameters in `layers` equal layers, no activations to speak of.
PlanInput ten_million(int ranks, int layers = 4) {
  PlanInput input;
  input.model.parameters = 10'000'000;
  for (int i = 0; i < layers; ++i) {
    LayerEstimate layer;
    layer.parameters = 10'000'000 / layers;
    input.model.layers.push_back(layer);
  }
  input.world_size = ranks;
  input.batch_size = 2 * ranks;
  input.optimizer_states_per_parameter = 2;  // adam
  return input;
}

// The same with a loss of 100 MB a sample: activations larger than the model state.
PlanInput with_large_activations(int ranks, int micro_batches) {
  PlanInput input = ten_million(ranks);
  input.model.loss_bytes = 100e6;
  input.techniques.micro_batches = micro_batches;
  return input;
}

Options zero(int stage, const std::string& backend = "nccl", const std::string& offload = "none") {
  Options o = table_defaults(strategies::ZeroOptions::fields().schema(), "strategy");
  o.set("stage", int64_t{stage});
  o.set("backend", backend);
  o.set("offload", offload);
  return o;
}

MemoryPlan rank_zero(const Options& strategy, const PlanInput& input) {
  return strategies::plan_zero(strategy, input).ranks.at(0);
}

double model_state_per_parameter(const MemoryPlan& rank) {
  return (rank.parameters + rank.gradients + rank.optimizer_state) / 10'000'000;
}

// fp32 Adam: 4 bytes of weights, 4 of gradients, 8 of state; halved by 2 ranks as sharded.
// Stages 1 and 2: the optimizer's temporaries add the largest bucket's part it steps (25 MiB
// over the ranks). Stage 3 without activations peaks at the step: every part, and two
// temporaries of the largest layer's part (100 layers of 100,000 parameters).
TEST(ZeroPlan, ModelStateBytesPerParameterFollowTheStages) {
  const double bucket_part = 25.0 * 1024 * 1024 / 2 / 10'000'000;
  EXPECT_DOUBLE_EQ(model_state_per_parameter(rank_zero(zero(1), ten_million(2))),
                   4 + 4 + 4 + bucket_part);
  EXPECT_DOUBLE_EQ(model_state_per_parameter(rank_zero(zero(2), ten_million(2))),
                   4 + 2 + 4 + bucket_part);
  const double temporaries = 2 * 4.0 * 100'000 / 10'000'000;
  EXPECT_DOUBLE_EQ(model_state_per_parameter(rank_zero(zero(3), ten_million(2, 100))),
                   2 + 2 + 4 + temporaries / 2);
  EXPECT_DOUBLE_EQ(model_state_per_parameter(rank_zero(zero(3), ten_million(8, 100))),
                   0.5 + 0.5 + 1 + temporaries / 8);
}

// At the step nothing is gathered and no activation is held.
TEST(ZeroPlan, StageThreeAtItsStepHoldsNoActivationsOrGatheredLayers) {
  const MemoryPlan step = rank_zero(zero(3), ten_million(2, 100));
  EXPECT_DOUBLE_EQ(step.activations, 0);
  EXPECT_DOUBLE_EQ(step.buffers, 0);
  EXPECT_DOUBLE_EQ(step.gradients, 4.0 * 10'000'000 / 2);
}

// With activations larger than the model state, stage 3 peaks at the start of backward: two
// layers gathered, no temporaries, and of the gradients a layer's whole one waiting for its
// reduction, after the earlier micro-batches' parts when there are any.
TEST(ZeroPlan, StageThreeWhileActivationsAreHeldHasAUnitsGradientAndTwoLayers) {
  const double layer = 4.0 * 2'500'000, part = 4.0 * 10'000'000 / 2;
  const MemoryPlan one = rank_zero(zero(3), with_large_activations(2, 1));
  EXPECT_GT(one.activations, 0);
  EXPECT_DOUBLE_EQ(one.gradients, layer);
  EXPECT_DOUBLE_EQ(one.buffers, 2 * layer);
  EXPECT_DOUBLE_EQ(one.optimizer_state, 2 * part);
  const MemoryPlan two = rank_zero(zero(3), with_large_activations(2, 2));
  EXPECT_DOUBLE_EQ(two.gradients, part + layer);
}

TEST(ZeroPlan, EveryRankHoldsTheSameAndTakesItsShareOfTheBatch) {
  const RunPlan plan = strategies::plan_zero(zero(2), ten_million(4));
  ASSERT_EQ(plan.ranks.size(), 4u);
  EXPECT_EQ(plan.data_parallel_degree, 4);
  EXPECT_EQ(plan.micro_batch_size, 2);
  EXPECT_DOUBLE_EQ(plan.ranks[3].total(), plan.ranks[0].total());
  EXPECT_THAT(plan.notes, HasSubstr("gradients sharded")) << plan.notes;
}

// Stage 2 fills one bucket during backward; stage 1 on Gloo stages a copy of each of the two
// reductions in flight.
TEST(ZeroPlan, BuffersAreBucketsNotTheModel) {
  const double bucket = 25.0 * 1024 * 1024;
  EXPECT_DOUBLE_EQ(rank_zero(zero(2), ten_million(2)).buffers, bucket);
  const MemoryPlan nccl = rank_zero(zero(1), ten_million(2));
  const MemoryPlan gloo = rank_zero(zero(1, "gloo"), ten_million(2));
  EXPECT_DOUBLE_EQ(gloo.buffers - nccl.buffers, 2 * bucket);
}

// Offloaded to files, the state in memory is three units' parts', during the step (one
// stepping, the next read in, the last written back): 2 states of three layers' parts and the
// step's 2 temporaries; none while activations are held. To the host: no optimizer state on
// the device.
TEST(ZeroPlan, OffloadedStateInMemoryIsThreeUnitsParts) {
  const double layer_part = 4.0 * 100'000 / 2;
  const MemoryPlan kept = rank_zero(zero(3), ten_million(2, 100));
  const MemoryPlan offloaded = rank_zero(zero(3, "nccl", "nvme"), ten_million(2, 100));
  EXPECT_DOUBLE_EQ(offloaded.optimizer_state, 2 * 3 * layer_part + 2 * layer_part);
  EXPECT_DOUBLE_EQ(kept.optimizer_state - offloaded.optimizer_state,
                   2 * (4.0 * 10'000'000 / 2 - 3 * layer_part));
  EXPECT_THAT(strategies::plan_zero(zero(3, "nccl", "nvme"), ten_million(2)).notes,
              HasSubstr("in files"));
  EXPECT_DOUBLE_EQ(rank_zero(zero(3, "nccl", "nvme"), with_large_activations(2, 1)).optimizer_state,
                   0);
  const MemoryPlan host = rank_zero(zero(3, "nccl", "cpu"), ten_million(2, 100));
  EXPECT_DOUBLE_EQ(host.optimizer_state, 0);
  EXPECT_DOUBLE_EQ(host.parameters, kept.parameters);
}

}  // namespace
}  // namespace runner::testing::zero_tests
