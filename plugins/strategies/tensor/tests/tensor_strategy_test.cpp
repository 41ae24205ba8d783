// tensor against one process training the whole model on the whole batch: the same losses and
// the same weights, each rank holding its part, alone and in a mesh with data parallelism,
// with micro-batches, checkpointing and clipping.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include <runner_testing/error_message.hpp>
#include <runner_testing/in_process_ranks.hpp>
#include <runner_testing/layered_model.hpp>
#include "../tensor_strategy.hpp"
#include "split_model.hpp"

using ::testing::HasSubstr;

namespace runner::testing::tensor_tests {
namespace {

using strategies::TensorOptions;
using strategies::TensorStrategy;
using strategies::testing::adam;
using strategies::testing::batch_from_seed;
using strategies::testing::give_split;
using strategies::testing::LayeredModel;
using strategies::testing::rows_of;
using strategies::testing::seeded;
using strategies::testing::SplitMlp;

constexpr int kSteps = 50;

Batch batch_of(int64_t step) { return batch_from_seed(700 + static_cast<uint64_t>(step)); }

using Weights = std::map<std::string, torch::Tensor>;

Weights weights_of(Model& model) {
  Weights weights;
  for (const auto& p : model.named_parameters()) weights[p.key()] = p.value().detach().clone();
  return weights;
}

// The dimension each of SplitMlp's split parameters is cut along; -1: whole.
int64_t split_dim(const std::string& name) {
  if (name == "mlp.up.weight" || name == "mlp.up.bias") return 0;
  if (name == "mlp.down.weight") return 1;
  return -1;
}

// Rank `rank` of a group of `degree`: its part of each whole weight.
Weights parts_of(const Weights& whole, int rank, int degree) {
  Weights parts;
  for (const auto& [name, w] : whole) {
    const int64_t dim = split_dim(name);
    const int64_t size = dim < 0 ? 0 : w.size(dim) / degree;
    parts[name] = dim < 0 ? w : w.narrow(dim, rank * size, size);
  }
  return parts;
}

struct Trace {
  std::vector<double> losses;
  Weights initial, final;
};

// One process, plain LibTorch, the whole model on the whole batch.
Trace one_process(double clip = 0) {
  auto model = seeded<SplitMlp>(3);
  auto optimizer = adam(model->parameters());
  Trace trace;
  trace.initial = weights_of(*model);
  for (int step = 0; step < kSteps; ++step) {
    const Batch batch = batch_of(step);
    optimizer->zero_grad();
    torch::Tensor loss = model->loss(model->forward(batch.inputs), batch.targets);
    loss.backward();
    if (clip > 0) torch::nn::utils::clip_grad_norm_(model->parameters(), clip);
    optimizer->step();
    trace.losses.push_back(loss.item<double>());
  }
  trace.final = weights_of(*model);
  return trace;
}

struct RankTrace {
  std::vector<double> losses;
  Weights initial, final;  // this rank's parts
  bool reports = false;
};

// tensor on `world` in-process ranks of groups of `degree`.
std::vector<RankTrace> on_tensor(int degree, int world, Techniques techniques = {}) {
  std::vector<RankTrace> traces(static_cast<size_t>(world));
  on_ranks(world, [&](int rank, distributed::RankConnection& c) {
    // Different initializations: setup must split rank 0's.
    auto model = seeded<SplitMlp>(rank == 0 ? 3 : 100 + static_cast<uint64_t>(rank));
    TensorOptions options;
    options.degree = degree;
    TensorStrategy tensor(options);
    StrategyContext context;
    context.model = model;
    give_split(context, model);
    context.make_optimizer = adam;
    context.communicator = c.communicator;
    context.techniques = techniques;
    tensor.setup(context);
    RankTrace& trace = traces[static_cast<size_t>(rank)];
    trace.initial = weights_of(*model);
    trace.reports = tensor.reports_metrics();
    const int replicas = world / degree, replica = rank / degree;
    for (int step = 0; step < kSteps; ++step) {
      const Batch mine = rows_of(batch_of(step), replica, replicas);
      trace.losses.push_back(tensor.train_step(mine).loss.item<double>());
    }
    trace.final = weights_of(*model);
  });
  return traces;
}

void expect_parts(const Weights& expected_whole, const Weights& actual, int rank, int degree,
                  bool exact) {
  for (const auto& [name, expected] : parts_of(expected_whole, rank, degree)) {
    SCOPED_TRACE(name + " on rank " + std::to_string(rank));
    ASSERT_EQ(actual.at(name).sizes(), expected.sizes());
    if (exact)
      EXPECT_TRUE(torch::equal(actual.at(name), expected));
    else
      EXPECT_TRUE(torch::allclose(actual.at(name), expected, 1e-5, 1e-6))
          << (actual.at(name) - expected).abs().max();
  }
}

// Losses: each replica's mean over its rows, averaged over the replicas, is the whole batch's.
void expect_follows(const Trace& expected, const std::vector<RankTrace>& ranks, int degree) {
  const int world = static_cast<int>(ranks.size()), replicas = world / degree;
  for (int step = 0; step < kSteps; ++step) {
    double sum = 0;
    for (int g = 0; g < replicas; ++g) sum += ranks[static_cast<size_t>(g * degree)].losses[step];
    const double want = expected.losses[static_cast<size_t>(step)];
    ASSERT_NEAR(sum / replicas, want, 1e-5 * std::abs(want)) << "step " << step;
  }
  for (int r = 0; r < world; ++r) {
    expect_parts(expected.initial, ranks[static_cast<size_t>(r)].initial, r % degree, degree, true);
    expect_parts(expected.final, ranks[static_cast<size_t>(r)].final, r % degree, degree, false);
  }
  // Trained: the weights moved.
  EXPECT_GT((expected.final.at("mlp.up.weight") - expected.initial.at("mlp.up.weight"))
                .abs()
                .max()
                .item<double>(),
            0.1);
}

TEST(Tensor, TwoRanksFollowOneProcessAndHoldTheirPartsOfItsWeights) {
  expect_follows(one_process(), on_tensor(2, 2), 2);
}

TEST(Tensor, FourRanksSplitFourWays) { expect_follows(one_process(), on_tensor(4, 4), 4); }

TEST(Tensor, TwoReplicasOfTwoRankGroupsFollowOneProcess) {
  expect_follows(one_process(), on_tensor(2, 4), 2);
}

TEST(Tensor, MicroBatchesAndCheckpointingFollowOneProcess) {
  Techniques techniques;
  techniques.micro_batches = 2;
  techniques.checkpoint_layers = true;
  expect_follows(one_process(), on_tensor(2, 2, techniques), 2);
}

TEST(Tensor, ClippingTakesTheNormOfTheWholeModel) {
  // A limit under the norm of most steps: a norm that summed the whole parameters (down's
  // bias, the head) over the group, or left out the other rank's parts, would clip otherwise.
  Techniques techniques;
  techniques.grad_clip_norm = 0.05;
  expect_follows(one_process(0.05), on_tensor(2, 2, techniques), 2);
}

TEST(Tensor, TheFirstRankOfEachGroupReportsAndReplicasShareTheEpoch) {
  const std::vector<RankTrace> ranks = on_tensor(2, 4);
  EXPECT_TRUE(ranks[0].reports);
  EXPECT_FALSE(ranks[1].reports);
  EXPECT_TRUE(ranks[2].reports);
  EXPECT_FALSE(ranks[3].reports);
  TensorOptions options;
  options.degree = 2;
  EXPECT_EQ(TensorStrategy(options).data_parallel_degree(4), 2);
}

std::string setup_error(int degree, int world, bool splittable) {
  std::string message;
  on_ranks(world, [&](int rank, distributed::RankConnection& c) {
    TensorOptions options;
    options.degree = degree;
    TensorStrategy tensor(options);
    StrategyContext context;
    if (splittable) {
      auto model = seeded<SplitMlp>(3);
      context.model = model;
      give_split(context, model);
    } else {
      context.model = seeded<LayeredModel>(3, 0.0);
    }
    context.make_optimizer = adam;
    context.communicator = c.communicator;
    const std::string text = message_of<ConfigError>([&] { tensor.setup(context); });
    if (rank == 0) message = text;
  });
  return message;
}

TEST(Tensor, ADegreeThatDoesNotDivideTheRanksIsAConfigError) {
  EXPECT_THAT(setup_error(2, 3, true),
              HasSubstr("strategy.degree = 2 does not divide the 3 ranks"));
}

TEST(Tensor, AModelThatCannotSplitIsAConfigError) {
  EXPECT_THAT(setup_error(2, 2, false), HasSubstr("cannot be split for tensor parallelism"));
}

}  // namespace
}  // namespace runner::testing::tensor_tests
