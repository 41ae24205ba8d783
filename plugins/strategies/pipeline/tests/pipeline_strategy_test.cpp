// pipeline against one process training on the whole batch: the same losses and weights with
// either schedule, micro-batches and checkpointing, 2 or 3 stages, and 2 pipelines as
// data-parallel replicas; on a model whose head reads the first layer's weight (tied).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <runner_testing/in_process_ranks.hpp>
#include <runner_testing/layered_model.hpp>
#include "../pipeline_strategy.hpp"

using ::testing::HasSubstr;

namespace runner::testing::pipeline_tests {
namespace {

using strategies::PipelineOptions;
using strategies::PipelineStrategy;
using strategies::testing::adam;
using strategies::testing::batch_from_seed;
using strategies::testing::LayeredModel;
using strategies::testing::rows_of;

constexpr int kSteps = 30;

Batch batch_of(int64_t step) { return batch_from_seed(900 + static_cast<uint64_t>(step)); }

// Without dropout: the stages' and the one process's steps must be the same.
std::shared_ptr<LayeredModel> seeded(uint64_t seed) {
  return strategies::testing::seeded<LayeredModel>(seed, 0.0);
}

struct Trace {
  std::vector<double> losses;
  std::vector<torch::Tensor> weights;  // each parameter after training
};

Trace one_process() {
  auto model = seeded(5);
  auto optimizer = adam(model->parameters());
  Trace trace;
  for (int step = 0; step < kSteps; ++step) {
    const Batch batch = batch_of(step);
    optimizer->zero_grad();
    torch::Tensor loss = model->loss(model->forward(batch.inputs), batch.targets);
    loss.backward();
    optimizer->step();
    trace.losses.push_back(loss.item<double>());
  }
  for (const auto& p : model->parameters()) trace.weights.push_back(p.detach().clone());
  return trace;
}

// The reporting ranks' mean loss per step, and each parameter from the rank whose stage owns it.
Trace on_pipeline(PipelineOptions options, int world, Techniques techniques = {}) {
  const int pipelines = world / options.stages;
  std::vector<std::vector<double>> losses(static_cast<size_t>(world));
  std::vector<std::vector<torch::Tensor>> weights(static_cast<size_t>(world));
  // char, not bool: std::vector<bool> packs ranks into one word, and the rank threads write it.
  std::vector<char> reports(static_cast<size_t>(world));
  on_ranks(world, [&](int rank, distributed::RankConnection& c) {
    auto model = seeded(rank == 0 ? 5 : 50 + static_cast<uint64_t>(rank));
    PipelineStrategy pipeline(options);
    StrategyContext context;
    context.model = model;
    context.make_optimizer = adam;
    context.communicator = c.communicator;
    context.techniques = techniques;
    pipeline.setup(context);
    EXPECT_EQ(pipeline.data_parallel_degree(world), pipelines);
    const int p = rank / options.stages;
    for (int step = 0; step < kSteps; ++step)
      losses[static_cast<size_t>(rank)].push_back(
          pipeline.train_step(rows_of(batch_of(step), p, pipelines)).loss.item<double>());
    reports[static_cast<size_t>(rank)] = pipeline.reports_metrics() ? 1 : 0;
    for (const auto& w : model->parameters())
      weights[static_cast<size_t>(rank)].push_back(w.detach().clone());
  });
  Trace trace;
  trace.losses.assign(kSteps, 0.0);
  for (int r = 0; r < world; ++r)
    if (reports[static_cast<size_t>(r)])
      for (int step = 0; step < kSteps; ++step)
        trace.losses[static_cast<size_t>(step)] +=
            losses[static_cast<size_t>(r)][static_cast<size_t>(step)] / pipelines;
  // The replicas hold what pipeline 0's ranks hold.
  for (int r = options.stages; r < world; ++r)
    for (size_t i = 0; i < weights[0].size(); ++i)
      EXPECT_TRUE(torch::equal(weights[static_cast<size_t>(r)][i],
                               weights[static_cast<size_t>(r % options.stages)][i]))
          << "parameter " << i << " on rank " << r;
  // Pipeline 0's ranks: each parameter where it is whole (dropped weights hold no elements).
  for (size_t i = 0; i < weights[0].size(); ++i) {
    torch::Tensor whole;
    for (int s = 0; s < options.stages; ++s)
      if (weights[static_cast<size_t>(s)][i].numel() > 0)
        whole = weights[static_cast<size_t>(s)][i];
    trace.weights.push_back(whole);
  }
  return trace;
}

void expect_same_training(const Trace& expected, const Trace& actual) {
  for (size_t step = 0; step < expected.losses.size(); ++step)
    ASSERT_NEAR(actual.losses[step], expected.losses[step], 1e-5 * std::abs(expected.losses[step]))
        << "step " << step;
  ASSERT_EQ(actual.weights.size(), expected.weights.size());
  for (size_t i = 0; i < expected.weights.size(); ++i) {
    ASSERT_TRUE(actual.weights[i].defined()) << "parameter " << i << " on no stage";
    EXPECT_TRUE(torch::allclose(actual.weights[i], expected.weights[i], 1e-5, 1e-6))
        << "parameter " << i;
  }
}

PipelineOptions stages(int k, const std::string& schedule = "1f1b") {
  PipelineOptions o;
  o.stages = k;
  o.schedule = schedule;
  o.balance = "layers";
  return o;
}

TEST(Pipeline, TwoStagesFollowOneProcessTrainingWithEitherSchedule) {
  const Trace expected = one_process();
  Techniques four;
  four.micro_batches = 4;
  for (const char* schedule : {"gpipe", "1f1b"}) {
    SCOPED_TRACE(schedule);
    expect_same_training(expected, on_pipeline(stages(2, schedule), 2));
    expect_same_training(expected, on_pipeline(stages(2, schedule), 2, four));
  }
}

// Three stages of one layer each: the head on the last reads the first's weight.
TEST(Pipeline, ThreeStagesSumTheTiedWeightsGradientBetweenFirstAndLast) {
  Techniques three;
  three.micro_batches = 3;
  expect_same_training(one_process(), on_pipeline(stages(3), 3, three));
}

TEST(Pipeline, CheckpointingAndMicroBatchesFollowOneProcessTraining) {
  Techniques techniques;
  techniques.micro_batches = 4;
  techniques.checkpoint_layers = true;
  expect_same_training(one_process(), on_pipeline(stages(2), 2, techniques));
}

TEST(Pipeline, TwoPipelinesAreDataParallelReplicas) {
  Techniques two;
  two.micro_batches = 2;
  expect_same_training(one_process(), on_pipeline(stages(2), 4, two));
}

// One process through the strategy-support library's step, with `techniques`.
Trace one_process_with(const Techniques& techniques) {
  auto model = seeded(5);
  auto optimizer = adam(model->parameters());
  strategies::TrainingStep step(model, model->parameters(), techniques, torch::kCPU,
                                std::make_shared<StepMeter>());
  Trace expected;
  for (int s = 0; s < kSteps; ++s)
    expected.losses.push_back(step.run(batch_of(s), *optimizer).loss.item<double>());
  for (const auto& p : model->parameters()) expected.weights.push_back(p.detach().clone());
  return expected;
}

Techniques clipped_in_two() {
  Techniques clipped;
  clipped.micro_batches = 2;
  clipped.grad_clip_norm = 0.05;  // below the gradients' norm: every step clips
  return clipped;
}

TEST(Pipeline, ClippingStaysGlobalOverTheStages) {
  expect_same_training(one_process_with(clipped_in_two()),
                       on_pipeline(stages(3), 3, clipped_in_two()));
}

// Units of about 100 bytes: each stage's weights in several, the tied one among them.
PipelineOptions zero_one(int k) {
  PipelineOptions o = stages(k);
  o.zero_stage = 1;
  o.bucket_mb = 1e-4;
  return o;
}

TEST(Pipeline, ZeroStageOneOverTwoPipelinesFollowsOneProcessTraining) {
  expect_same_training(one_process_with(clipped_in_two()),
                       on_pipeline(zero_one(2), 4, clipped_in_two()));
  Techniques plain;
  expect_same_training(one_process(), on_pipeline(zero_one(3), 6, plain));
}

// Each replica's optimizer steps about half of its stage's weights: its parts of the units.
TEST(Pipeline, ZeroStageOneKeepsHalfTheStateOnEachOfTwoPipelines) {
  on_ranks(4, [](int rank, distributed::RankConnection& c) {
    auto model = seeded(5);
    PipelineStrategy pipeline(zero_one(2));
    StrategyContext context;
    context.model = model;
    int64_t stepped = 0;
    context.make_optimizer = [&stepped](const std::vector<torch::Tensor>& params) {
      for (const auto& p : params) stepped += p.numel();
      return adam(params);
    };
    context.communicator = c.communicator;
    pipeline.setup(context);
    int64_t owned = 0, tensors = 0;
    for (const auto& layer : pipeline.stage_layers())
      for (const auto& p : layer->parameters()) owned += p.numel(), ++tensors;
    // Each unit padded by at most one element to split in two; no more units than tensors.
    EXPECT_GE(stepped, owned / 2);
    EXPECT_LE(stepped, owned / 2 + tensors);
    EXPECT_LT(stepped, owned);
    pipeline.train_step(rows_of(batch_of(0), rank / 2, 2));
  });
}

TEST(Pipeline, StagesThatDoNotDivideTheRanksAreRefused) {
  on_ranks(3, [](int, distributed::RankConnection& c) {
    PipelineStrategy pipeline(stages(2));
    StrategyContext context;
    context.model = seeded(5);
    context.make_optimizer = adam;
    context.communicator = c.communicator;
    try {
      pipeline.setup(context);
      ADD_FAILURE() << "2 stages on 3 ranks";
    } catch (const ConfigError& e) {
      EXPECT_THAT(std::string(e.what()),
                  HasSubstr("strategy.stages = 2 does not divide the 3 ranks"))
          << e.what();
    }
    c.communicator->barrier();  // no rank leaves while another still connects
  });
}

}  // namespace
}  // namespace runner::testing::pipeline_tests
