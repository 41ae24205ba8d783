// Tests of ddp against one process on the whole batch: micro-batches, buckets, buffers, shards.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <runner_testing/in_process_ranks.hpp>
#include <runner_testing/layered_model.hpp>
#include "../ddp_strategy.hpp"
#include "tiny_model.hpp"

using ::testing::HasSubstr;

namespace runner::testing::ddp_tests {
namespace {

using strategies::DdpOptions;
using strategies::DdpStrategy;
using strategies::testing::rows_of;

constexpr int kWorld = 2;
constexpr int kSteps = 8;

struct RankRecord {
  std::vector<torch::Tensor> parameters;  // after each step
  std::vector<double> losses;
  std::vector<torch::Tensor> buffers;  // running_mean after each step
};

std::vector<RankRecord> train_on_ranks(DdpOptions options, bool batch_norm = false,
                                       bool same_init = false, Techniques techniques = {}) {
  std::vector<RankRecord> records(kWorld);
  on_ranks(kWorld, [&](int rank, distributed::RankConnection& c) {
    // Different initializations unless asked: the broadcast must make them equal.
    auto model = seeded_model(same_init ? 7 : 7 + static_cast<uint64_t>(rank), batch_norm);
    DdpStrategy ddp(options);
    StrategyContext context;
    context.model = model;
    context.make_optimizer = sgd(0.05);
    context.communicator = c.communicator;
    context.techniques = techniques;
    ddp.setup(context);
    for (int step = 0; step < kSteps; ++step) {
      StepResult result = ddp.train_step(rows_of(batch_of(step), rank, kWorld));
      records[rank].parameters.push_back(flat_parameters(*model));
      records[rank].losses.push_back(result.loss.item<double>());
      records[rank].buffers.push_back(model->named_buffers()["norm.running_mean"].clone());
    }
  });
  return records;
}

// The table lists the host's distributed keys, then ddp's own with DdpOptions{}'s values as
// defaults; drop_last is the strategy support library's declaration.
TEST(Ddp, KeysFollowTheHostsAndDefaultToTheOptionsStruct) {
  const Schema schema = DdpOptions::fields().schema();
  EXPECT_EQ(schema.names(),
            (std::vector<std::string>{"world_size", "backend", "timeout_s", "bucket_mb", "overlap",
                                      "drop_last", "buffers"}));
  EXPECT_EQ(std::get<double>(*schema.find("bucket_mb")->default_value), DdpOptions{}.bucket_mb);
  EXPECT_EQ(std::get<bool>(*schema.find("drop_last")->default_value), false);
  EXPECT_THAT(schema.find("drop_last")->doc, HasSubstr("among the ranks"));
  Options options("strategy");
  options.set("bucket_mb", 0.5);
  options.set("overlap", false);
  options.set("drop_last", true);
  options.set("buffers", std::string("average"));
  const DdpOptions read = DdpOptions::from(options);
  EXPECT_EQ(read.bucket_mb, 0.5);
  EXPECT_FALSE(read.overlap);
  EXPECT_TRUE(read.drop_last);
  EXPECT_EQ(read.buffers, "average");
}

TEST(Ddp, ParametersStayBitIdenticalAcrossRanksAfterEveryStep) {
  auto records = train_on_ranks(DdpOptions{});
  for (int step = 0; step < kSteps; ++step)
    EXPECT_TRUE(torch::equal(records[0].parameters[step], records[1].parameters[step]))
        << "step " << step;
  EXPECT_FALSE(torch::equal(records[0].parameters.front(), records[0].parameters.back()));
}

void expect_one_process_training(const std::vector<RankRecord>& records) {
  auto model = seeded_model(7);  // rank 0's initialization, which the broadcast gave every rank
  auto optimizer = sgd(0.05)(model->parameters());
  for (int step = 0; step < kSteps; ++step) {
    Batch batch = batch_of(step);
    optimizer->zero_grad();
    torch::Tensor loss = model->loss(model->forward(batch.inputs), batch.targets);
    loss.backward();
    optimizer->step();
    const double mean_of_ranks = (records[0].losses[step] + records[1].losses[step]) / 2;
    EXPECT_NEAR(mean_of_ranks, loss.item<double>(), 1e-5 * std::abs(loss.item<double>()));
    EXPECT_TRUE(torch::allclose(records[0].parameters[step], flat_parameters(*model), 1e-5, 1e-6))
        << "step " << step;
  }
}

TEST(Ddp, FollowsOneProcessTrainingOnTheWholeBatch) {
  expect_one_process_training(train_on_ranks(DdpOptions{}));
}

// Each rank's rows in two micro-batches: the first backward only accumulates, the second
// reduces the sum of both in the buckets.
TEST(Ddp, TwoMicroBatchesFollowOneProcessTrainingOnTheWholeBatch) {
  Techniques two;
  two.micro_batches = 2;
  auto records = train_on_ranks(DdpOptions{}, false, false, two);
  expect_one_process_training(records);
  for (int step = 0; step < kSteps; ++step)
    EXPECT_TRUE(torch::equal(records[0].parameters[step], records[1].parameters[step]));
  DdpOptions small;
  small.bucket_mb = 0.0001;  // a bucket per parameter, reduced while backward goes on
  expect_one_process_training(train_on_ranks(small, false, false, two));
}

TEST(Ddp, WithoutOverlapTheStepsAreTheSame) {
  DdpOptions no_overlap;
  no_overlap.overlap = false;
  auto with = train_on_ranks(DdpOptions{});
  auto without = train_on_ranks(no_overlap);
  for (int step = 0; step < kSteps; ++step)
    EXPECT_TRUE(torch::equal(with[0].parameters[step], without[0].parameters[step]));
}

TEST(Ddp, SmallBucketsGiveTheSameSteps) {
  DdpOptions small;
  small.bucket_mb = 0.0001;  // 104 bytes: about one parameter per bucket
  auto one_bucket = train_on_ranks(DdpOptions{});
  auto many = train_on_ranks(small);
  for (int step = 0; step < kSteps; ++step)
    EXPECT_TRUE(
        torch::allclose(one_bucket[0].parameters[step], many[0].parameters[step], 1e-6, 1e-7));
}

// Writes `flat` (as flat_parameters gives it) into the model's parameters.
void load_flat_parameters(Model& model, const torch::Tensor& flat) {
  torch::NoGradGuard no_grad;
  int64_t at = 0;
  for (auto& p : model.parameters()) {
    p.copy_(flat.slice(0, at, at + p.numel()).view_as(p));
    at += p.numel();
  }
}

// The running mean one BatchNorm in training mode leaves after a forward over `rank`'s rows of
// step `step`'s batch, starting from the parameters and running mean the ranks held after the
// step before: torch's own BatchNorm, independent of the strategy's communication.
torch::Tensor running_mean_alone(const RankRecord& before, int step, int rank) {
  auto alone = seeded_model(7, true);
  load_flat_parameters(*alone, before.parameters[step - 1]);
  torch::NoGradGuard no_grad;
  alone->named_buffers()["norm.running_mean"].copy_(before.buffers[step - 1]);
  alone->forward(rows_of(batch_of(step), rank, kWorld).inputs);
  return alone->named_buffers()["norm.running_mean"].clone();
}

TEST(Ddp, AveragedBuffersAreTheMeanOfWhatEachRankComputesAlone) {
  DdpOptions average;
  average.buffers = "average";
  auto records = train_on_ranks(average, true);
  for (int step = 1; step < kSteps; ++step) {
    EXPECT_TRUE(torch::allclose(records[0].buffers[step], records[1].buffers[step], 0, 1e-7))
        << "step " << step;
    const torch::Tensor mean =
        (running_mean_alone(records[0], step, 0) + running_mean_alone(records[0], step, 1)) / 2;
    EXPECT_TRUE(torch::allclose(records[0].buffers[step], mean, 1e-5, 1e-6)) << "step " << step;
  }
}

TEST(Ddp, BroadcastBuffersFollowRankZero) {
  auto records = train_on_ranks(DdpOptions{}, true, true);
  // Each rank updates its statistics from its own rows after rank 0's were copied in: after
  // the first step rank 0's are those of one process that saw rank 0's rows alone.
  EXPECT_FALSE(torch::equal(records[0].buffers[0], records[1].buffers[0]));
  auto alone = seeded_model(7, true);
  torch::NoGradGuard no_grad;
  alone->forward(rows_of(batch_of(0), 0, kWorld).inputs);
  EXPECT_TRUE(
      torch::allclose(alone->named_buffers()["norm.running_mean"], records[0].buffers[0], 0, 1e-7));
  // Later, setup's broadcast is long past: each step must copy rank 0's statistics in again
  // before rank 1 adds its own rows to them.
  for (int step = 1; step < kSteps; ++step) {
    EXPECT_TRUE(torch::allclose(records[1].buffers[step], running_mean_alone(records[0], step, 1),
                                1e-5, 1e-6))
        << "step " << step;
    EXPECT_FALSE(torch::allclose(records[1].buffers[step], running_mean_alone(records[1], step, 1),
                                 1e-5, 1e-6))
        << "rank 1 kept its own statistics at step " << step;
  }
}

TEST(Ddp, TrainingShardsAreDisjointPaddedAndEqual) {
  on_ranks(3, [](int rank, distributed::RankConnection& c) {
    DdpStrategy ddp(DdpOptions{});
    StrategyContext context;
    context.model = seeded_model(1);
    context.make_optimizer = sgd(0.1);
    context.communicator = c.communicator;
    ddp.setup(context);
    auto order = torch::arange(10, 20);
    auto train = ddp.shard_samples(order, Split::train);
    ASSERT_EQ(train.size(0), 4);  // ceil(10 / 3), the 11th and 12th samples repeat 10 and 11
    for (int64_t k = 0; k < 4; ++k) EXPECT_EQ(train[k].item<int64_t>(), 10 + (rank + 3 * k) % 10);
    auto test = ddp.shard_samples(order, Split::test);
    EXPECT_EQ(test.size(0), rank == 0 ? 4 : 3);  // every sample once
  });
}

TEST(Ddp, DropLastDropsTheTail) {
  EXPECT_EQ(shard_for_rank(torch::arange(10), 2, 3, true).size(0), 3);
  EXPECT_TRUE(torch::equal(shard_for_rank(torch::arange(10), 1, 3, true),
                           torch::tensor({1, 4, 7}, torch::kInt64)));
}

}  // namespace
}  // namespace runner::testing::ddp_tests
