// Each term of the step-time model against its formula, on a model of two equal layers and
// flat rates.
#include "layout/step_cost.hpp"

#include <gtest/gtest.h>

#include <runner/errors.hpp>

namespace runner::layout {
namespace {

constexpr double kFlops = 1e9;   // forward FLOPs per sample of each layer
constexpr double kHeld = 1e6;    // bytes per sample each layer keeps for backward
constexpr double kOutput = 1e5;  // bytes per sample of each layer's output
constexpr double kLayerParameters = 1e6;
constexpr double kParameters = 2 * kLayerParameters;

ModelEstimate two_layers() {
  ModelEstimate model;
  model.parameters = static_cast<int64_t>(kParameters);
  model.forward_flops_per_sample = 2 * kFlops;
  for (int i = 0; i < 2; ++i) {
    LayerEstimate l;
    l.parameters = static_cast<int64_t>(kLayerParameters);
    l.forward_flops = kFlops;
    l.held_bytes = kHeld;
    l.output_bytes = kOutput;
    model.layers.push_back(l);
  }
  return model;
}

Rates uniform_rates() {
  Rates r;
  r.gemm[Precision::fp32] = {{1.0, 1e11}};
  r.memory_bytes_per_s = 1e10;
  r.extra_pass_s_per_parameter[Precision::fp32] = 3e-9;
  r.extra_pass_s_per_parameter[Precision::bf16] = 5e-9;
  r.cast_bytes_per_s = 1e9;
  r.link_bytes_per_s = r.all_reduce_bytes_per_s = r.all_gather_bytes_per_s =
      r.reduce_scatter_bytes_per_s = 1e9;
  r.disk_bytes_per_s = 1e8;
  r.host_bytes_per_s = 1e9;
  return r;
}

Layout layout_of(const std::string& strategy, int data_parallel, int64_t micro_batches = 1) {
  Layout l;
  l.strategy = strategy;
  l.data_parallel = data_parallel;
  l.micro_batches = micro_batches;
  return l;
}

StepCost cost_of(const Layout& layout, Devices devices = {2, false},
                 const Rates& rates = uniform_rates()) {
  const ModelEstimate model = two_layers();
  return predict_step({layout, model, /*batch_size=*/8, /*states=*/2, devices}, rates);
}

TEST(StepCost, DdpComputesItsShareAndAllReducesTheGradients) {
  const StepCost c = cost_of(layout_of("ddp", 2));
  const double forward = 2 * kFlops * 4 / 1e11;  // 4 samples a rank
  EXPECT_DOUBLE_EQ(c.compute, 3 * forward);
  EXPECT_DOUBLE_EQ(c.recompute, 0);
  EXPECT_DOUBLE_EQ(c.memory, (4 * 2 * kHeld * 4 + 32 * kParameters) / 1e10);
  // A ring all-reduce moves 2 (N-1)/N of the fp32 gradients.
  EXPECT_DOUBLE_EQ(c.communication, 2 * 4 * kParameters * 0.5 / 1e9);
  EXPECT_DOUBLE_EQ(c.bubble, 0);
  EXPECT_DOUBLE_EQ(c.offload, 0);
}

TEST(StepCost, EachMicroBatchAfterTheFirstCostsItsCalibratedPassOverTheParameters) {
  EXPECT_DOUBLE_EQ(cost_of(layout_of("ddp", 2)).passes, 0);
  // Three extra passes at 3 ns a parameter.
  EXPECT_DOUBLE_EQ(cost_of(layout_of("ddp", 2, 4)).passes, 3 * 3e-9 * kParameters);
}

TEST(StepCost, Bf16CastsTheWeightsAndTheirGradientsOnceAndAgainInEachRecompute) {
  Layout l = layout_of("ddp", 2, 2);
  l.precision = Precision::bf16;
  Rates rates = uniform_rates();
  rates.gemm[Precision::bf16] = {{1.0, 1e11}};
  // One extra pass at bf16's rate, and the first pass's two casts of 6 bytes (4 read, 2
  // written) a parameter.
  EXPECT_DOUBLE_EQ(cost_of(l, {2, false}, rates).passes,
                   5e-9 * kParameters + 2 * 6 * kParameters / 1e9);
  l.checkpoint_layers = true;  // each micro-batch's recomputed forward casts again
  EXPECT_DOUBLE_EQ(cost_of(l, {2, false}, rates).passes,
                   5e-9 * kParameters + (2 + 2) * 6 * kParameters / 1e9);
}

TEST(StepCost, CheckpointingAddsOneForward) {
  Layout l = layout_of("ddp", 2);
  l.checkpoint_layers = true;
  EXPECT_DOUBLE_EQ(cost_of(l).recompute, 2 * kFlops * 4 / 1e11);
}

TEST(StepCost, ZeroThreeGathersTwiceAndReduceScattersOncePerMicroBatch) {
  Layout l = layout_of("zero", 2, 2);
  l.zero_stage = 3;
  const StepCost c = cost_of(l);
  EXPECT_DOUBLE_EQ(c.communication, 3 * 2 * (4 * kParameters * 0.5) / 1e9);
  // The optimizer steps half the parameters.
  EXPECT_DOUBLE_EQ(c.memory, (4 * 2 * kHeld * 4 + 32 * kParameters / 2) / 1e10);
}

TEST(StepCost, ZeroTwoReduceScattersPerMicroBatchAndGathersOnce) {
  Layout l = layout_of("zero", 2, 4);
  l.zero_stage = 2;
  EXPECT_DOUBLE_EQ(cost_of(l).communication, (4 + 1) * (4 * kParameters * 0.5) / 1e9);
}

TEST(StepCost, EachCollectiveGoesAtItsOwnRate) {
  Rates rates = uniform_rates();
  rates.all_reduce_bytes_per_s = 4e9;
  rates.all_gather_bytes_per_s = 2e9;
  rates.reduce_scatter_bytes_per_s = 5e8;
  const double half = 4 * kParameters * 0.5;  // a ring's part of the fp32 gradients or weights
  EXPECT_DOUBLE_EQ(cost_of(layout_of("ddp", 2, 2), {2, false}, rates).communication,
                   2 * half / 4e9);
  Layout zero = layout_of("zero", 2, 2);
  zero.zero_stage = 1;
  EXPECT_DOUBLE_EQ(cost_of(zero, {2, false}, rates).communication, half / 5e8 + half / 2e9);
  zero.zero_stage = 2;
  EXPECT_DOUBLE_EQ(cost_of(zero, {2, false}, rates).communication, 2 * half / 5e8 + half / 2e9);
  zero.zero_stage = 3;  // each micro-batch gathers every layer twice and scatters once
  EXPECT_DOUBLE_EQ(cost_of(zero, {2, false}, rates).communication,
                   2 * half / 5e8 + 2 * 2 * half / 2e9);
}

TEST(StepCost, NvmeOffloadReadsAndWritesTheRanksState) {
  Layout l = layout_of("zero", 2);
  l.zero_stage = 3;
  l.offload = "nvme";
  // Two fp32 moments of half the parameters, read and written.
  EXPECT_DOUBLE_EQ(cost_of(l).offload, 2 * (4 * 2 * kParameters / 2) / 1e8);
}

TEST(StepCost, PipelineRunsItsStageAndWaitsForTheBubble) {
  Layout l = layout_of("pipeline", 1, 4);
  l.pipeline_stages = 2;
  l.schedule = "1f1b";
  const StepCost c = cost_of(l);
  const double forward = kFlops * 8 / 1e11;  // one layer, the whole batch of 8
  EXPECT_DOUBLE_EQ(c.compute, 3 * forward);
  const double memory = (4 * kHeld * 8 + 32 * kLayerParameters) / 1e10;
  EXPECT_DOUBLE_EQ(c.memory, memory);
  // The boundary's activations forward and their gradients back, for all 8 samples.
  EXPECT_DOUBLE_EQ(c.communication, 2 * kOutput * 8 / 1e9);
  // (stages - 1) / micro-batches of the stage's work.
  EXPECT_DOUBLE_EQ(c.bubble, 1.0 / 4 * (3 * forward + memory));
}

TEST(StepCost, TensorSplitsTheWorkAndAllReducesEachLayersOutputFourTimes) {
  Layout l = layout_of("tensor", 1);
  l.tensor_degree = 2;
  const StepCost c = cost_of(l);
  EXPECT_DOUBLE_EQ(c.compute, 3 * (2 * kFlops / 2) * 8 / 1e11);
  EXPECT_DOUBLE_EQ(c.communication, 4 * 2 * (kOutput * 2 * 8) * 0.5 / 1e9);
}

TEST(StepCost, CudaOverlapsDdpsReductionWithBackwardButTheCpuDoesNot) {
  Rates slow = uniform_rates();
  slow.all_reduce_bytes_per_s = 1e6;
  const double reduction = 2 * 4 * kParameters * 0.5 / 1e6;
  const double backward = 2 * (2 * kFlops * 4 / 1e11);
  EXPECT_DOUBLE_EQ(cost_of(layout_of("ddp", 2), {2, false}, slow).communication, reduction);
  EXPECT_DOUBLE_EQ(cost_of(layout_of("ddp", 2), {2, true}, slow).communication,
                   reduction - backward);
}

TEST(StepCost, DpSendsTheWeightsOutAndTheGradientsBack) {
  EXPECT_DOUBLE_EQ(cost_of(layout_of("dp", 2), {2, true}).communication,
                   2 * 4 * kParameters * (2 - 1) / 1e9);
}

TEST(StepCost, WhySlowerNamesTheLargestTerm) {
  StepCost best, other;
  best.compute = other.compute = 1;
  other.communication = 0.5;
  other.recompute = 0.25;
  EXPECT_EQ(why_slower(other, best), "+0.5 s communication");
  EXPECT_EQ(why_slower(best, best), "");
}

TEST(Rates, GemmRateIsInterpolatedInTheLogOfItsSize) {
  Rates r;
  r.gemm[Precision::fp32] = {{1e6, 1e10}, {1e8, 3e10}};
  EXPECT_DOUBLE_EQ(r.gemm_rate(Precision::fp32, 1e7), 2e10);
  EXPECT_DOUBLE_EQ(r.gemm_rate(Precision::fp32, 1e3), 1e10);
  EXPECT_DOUBLE_EQ(r.gemm_rate(Precision::fp32, 1e12), 3e10);
  EXPECT_THROW(r.gemm_rate(Precision::bf16, 1e7), ConfigError);
}

}  // namespace
}  // namespace runner::layout
