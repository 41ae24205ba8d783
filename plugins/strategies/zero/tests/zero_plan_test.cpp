// Tests of zero's plan: model state per parameter by stage, equal ranks, buffers, offloaded state.
#include <gtest/gtest.h>

#include "../zero_plan.hpp"
#include "../zero_strategy.hpp"
#include <runner_testing/table_defaults.hpp>

namespace runner::testing {
namespace {

// A model of 10 million parameters in 4 layers of 2.5 million, no activations to speak of.
PlanInput ten_million(int ranks) {
  PlanInput input;
  input.model.parameters = 10'000'000;
  for (int i = 0; i < 4; ++i) {
    LayerEstimate layer;
    layer.parameters = 2'500'000;
    input.model.layers.push_back(layer);
  }
  input.world_size = ranks;
  input.batch_size = 2 * ranks;
  input.optimizer_states_per_parameter = 2;  // adam
  return input;
}

Options zero(int stage, const std::string& backend = "nccl", const std::string& offload = "none") {
  Options o = table_defaults(strategies::ZeroOptions::fields().schema(), "strategy");
  o.set("stage", int64_t{stage});
  o.set("backend", backend);
  o.set("offload", offload);
  return o;
}

double model_state_per_parameter(int stage, int ranks) {
  const MemoryPlan rank = strategies::plan_zero(zero(stage), ten_million(ranks)).ranks.at(0);
  return (rank.parameters + rank.gradients + rank.optimizer_state) / 10'000'000;
}

// fp32 Adam: 4 bytes of weights, 4 of gradients, 8 of state; halved by 2 ranks as sharded.
// The optimizer's temporaries add the largest part it steps: a bucket (25 MiB) or a layer
// (2.5 million parameters) over the ranks.
TEST(ZeroPlan, ModelStateBytesPerParameterFollowTheStages) {
  const double bucket_part = 25.0 * 1024 * 1024 / 2 / 10'000'000;
  const double layer_part = 4.0 * 2'500'000 / 2 / 10'000'000;
  EXPECT_DOUBLE_EQ(model_state_per_parameter(1, 2), 4 + 4 + 4 + bucket_part);
  EXPECT_DOUBLE_EQ(model_state_per_parameter(2, 2), 4 + 2 + 4 + bucket_part);
  EXPECT_DOUBLE_EQ(model_state_per_parameter(3, 2), 2 + 2 + 4 + layer_part);
  EXPECT_DOUBLE_EQ(model_state_per_parameter(3, 8), 0.5 + 0.5 + 1 + layer_part / 4);
}

TEST(ZeroPlan, EveryRankHoldsTheSameAndTakesItsShareOfTheBatch) {
  const RunPlan plan = strategies::plan_zero(zero(2), ten_million(4));
  ASSERT_EQ(plan.ranks.size(), 4u);
  EXPECT_EQ(plan.data_parallel_degree, 4);
  EXPECT_EQ(plan.micro_batch_size, 2);
  EXPECT_DOUBLE_EQ(plan.ranks[3].total(), plan.ranks[0].total());
  EXPECT_NE(plan.notes.find("gradients sharded"), std::string::npos) << plan.notes;
}

// Stage 3 gathers two layers at once (one running, the next prefetched); stage 1 on Gloo
// stages a copy of each of the two reductions in flight.
TEST(ZeroPlan, BuffersAreLayersAndBucketsNotTheModel) {
  const MemoryPlan third = strategies::plan_zero(zero(3), ten_million(2)).ranks.at(0);
  EXPECT_DOUBLE_EQ(third.buffers, 2 * 4.0 * 2'500'000);
  const double bucket = 25.0 * 1024 * 1024;
  EXPECT_DOUBLE_EQ(strategies::plan_zero(zero(2), ten_million(2)).ranks.at(0).buffers, bucket);
  const MemoryPlan nccl = strategies::plan_zero(zero(1), ten_million(2)).ranks.at(0);
  const MemoryPlan gloo = strategies::plan_zero(zero(1, "gloo"), ten_million(2)).ranks.at(0);
  EXPECT_DOUBLE_EQ(gloo.buffers - nccl.buffers, 2 * bucket);
}

// Offloaded, the state in memory is one unit's part's, during its step: 2 states of the largest
// layer's part, and the step's temporaries as before.
TEST(ZeroPlan, OffloadedStateInMemoryIsOneUnitsPart) {
  const MemoryPlan kept = strategies::plan_zero(zero(3), ten_million(2)).ranks.at(0);
  const MemoryPlan offloaded =
      strategies::plan_zero(zero(3, "nccl", "nvme"), ten_million(2)).ranks.at(0);
  const double layer_part = 4.0 * 2'500'000 / 2;
  EXPECT_DOUBLE_EQ(offloaded.optimizer_state, 2 * layer_part + layer_part);
  EXPECT_DOUBLE_EQ(kept.optimizer_state - offloaded.optimizer_state,
                   2 * (4.0 * 10'000'000 / 2 - layer_part));
  EXPECT_NE(strategies::plan_zero(zero(3, "nccl", "nvme"), ten_million(2)).notes.find("in files"),
            std::string::npos);
  // To the host: no optimizer state on the device.
  const MemoryPlan host = strategies::plan_zero(zero(3, "nccl", "cpu"), ten_million(2)).ranks.at(0);
  EXPECT_DOUBLE_EQ(host.optimizer_state, 0);
  EXPECT_DOUBLE_EQ(host.parameters, kept.parameters);
}

}  // namespace
}  // namespace runner::testing
