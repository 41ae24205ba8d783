// DataParallel on CPU "devices": replicas are separate models on the CPU, so the splitting,
// gathering and gradient summing are checked against plain one-device training.
#include "data_parallel.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <runner_testing/error_message.hpp>

#include "tiny_classifier.hpp"

using ::testing::HasSubstr;

namespace runner::strategies::dp_tests {
namespace {

using testing::context_for;
using testing::relative_difference;
using testing::TinyClassifier;

constexpr double kTolerance = 1e-5;

std::vector<torch::Device> cpus(size_t n) { return std::vector<torch::Device>(n, torch::kCPU); }

// A model with `model`'s parameters and buffers, trained apart from it.
std::shared_ptr<TinyClassifier> twin_of(TinyClassifier& model) {
  auto twin = std::make_shared<TinyClassifier>();
  torch::NoGradGuard no_grad;
  auto mine = model.parameters(), theirs = twin->parameters();
  for (size_t k = 0; k < mine.size(); ++k) theirs[k].copy_(mine[k]);
  twin->input_scale.copy_(model.input_scale);
  return twin;
}

std::shared_ptr<TinyClassifier> seeded_model() {
  torch::manual_seed(7);
  auto model = std::make_shared<TinyClassifier>();
  // Not the value a fresh replica has: the replicas must take the master's buffers.
  model->input_scale.fill_(1.5);
  return model;
}

Batch random_batch(int64_t n) {
  return {torch::randn({n, 4}), torch::randint(0, 3, {n}, torch::kInt64)};  // (n, 4), (n)
}

// Plain training on one device, the reference dp has to match.
struct PlainTraining {
  explicit PlainTraining(std::shared_ptr<TinyClassifier> m)
      : model(std::move(m)), optimizer(testing::make_sgd(model->parameters())) {}
  StepResult step(const Batch& batch) {
    optimizer->zero_grad();
    torch::Tensor outputs = model->forward(batch.inputs);
    torch::Tensor loss = model->loss(outputs, batch.targets);
    loss.backward();
    optimizer->step();
    return {loss.detach(), outputs.detach().argmax(-1)};
  }
  std::shared_ptr<TinyClassifier> model;
  std::unique_ptr<torch::optim::Optimizer> optimizer;
};

std::vector<torch::Tensor> snapshot(Model& model) {
  std::vector<torch::Tensor> copies;
  for (const auto& p : model.parameters()) copies.push_back(p.detach().clone());
  return copies;
}

void expect_equal_parameters(Model& a, const std::vector<torch::Tensor>& b,
                             const std::string& when) {
  auto params = a.parameters();
  ASSERT_EQ(params.size(), b.size());
  for (size_t k = 0; k < b.size(); ++k)
    EXPECT_TRUE(torch::equal(params[k], b[k])) << "parameter " << k << " " << when;
}

// Trains dp on `devices` CPU replicas and the reference side by side, `steps` batches of n.
void expect_dp_matches_plain_training(size_t devices, int64_t n, int steps,
                                      int64_t micro_batches = 1) {
  auto master = seeded_model();
  PlainTraining plain(twin_of(*master));
  const auto initial = snapshot(*master);
  StrategyContext context = context_for(master, torch::kCPU);
  context.techniques.micro_batches = micro_batches;
  DataParallel dp(cpus(devices), context);
  for (int step = 0; step < steps; ++step) {
    Batch batch = random_batch(n);
    StepResult ours = dp.train_step(batch);
    StepResult theirs = plain.step(batch);
    EXPECT_LE(relative_difference(ours.loss, theirs.loss), kTolerance) << "step " << step;
    EXPECT_TRUE(torch::equal(ours.predictions, theirs.predictions)) << "step " << step;
  }
  auto ours = master->parameters(), theirs = plain.model->parameters();
  for (size_t k = 0; k < ours.size(); ++k) {
    EXPECT_LE(relative_difference(ours[k], theirs[k]), kTolerance) << "parameter " << k;
    EXPECT_GT(relative_difference(ours[k], initial[k]), 1e-3) << "training moved parameter " << k;
  }
}

TEST(DataParallel, TenStepsOnTwoReplicasMatchPlainTraining) {
  expect_dp_matches_plain_training(2, 7, 10);  // chunks of 4 and 3 samples
}

TEST(DataParallel, ThreeReplicasWithUnevenChunksMatchPlainTraining) {
  expect_dp_matches_plain_training(3, 8, 10);  // chunks of 3, 3 and 2
}

TEST(DataParallel, MicroBatchesOnTwoReplicasMatchPlainTrainingOnTheWholeBatch) {
  expect_dp_matches_plain_training(2, 12, 10, 3);  // 3 micro-batches of 4, chunks of 2
}

TEST(DataParallel, ABatchSmallerThanTheDevicesUsesOneReplicaPerSample) {
  expect_dp_matches_plain_training(3, 2, 5);
  auto master = seeded_model();
  DataParallel dp(cpus(3), context_for(master, torch::kCPU));
  dp.train_step(random_batch(2));
  EXPECT_TRUE(dp.replicas()[1]->parameters()[0].grad().defined());
  EXPECT_FALSE(dp.replicas()[2]->parameters()[0].grad().defined()) << "replica 2 had no sample";
}

TEST(DataParallel, ReplicasTakeTheMastersValuesBeforeEachForward) {
  auto master = seeded_model();
  DataParallel dp(cpus(2), context_for(master, torch::kCPU));
  Model& replica = *dp.replicas()[1];
  EXPECT_FALSE(torch::equal(replica.parameters()[0], master->parameters()[0]))
      << "a fresh replica is initialized apart from the master";
  for (int step = 0; step < 3; ++step) {
    const auto before = snapshot(*master);
    dp.train_step(random_batch(6));
    // The replica ran on what the master held when the step began; the master then moved.
    expect_equal_parameters(replica, before, "after step " + std::to_string(step));
    EXPECT_FALSE(torch::equal(master->parameters()[0], before[0]));
    EXPECT_TRUE(torch::equal(replica.buffers()[0], master->input_scale));
  }
  dp.eval_step(random_batch(6));
  expect_equal_parameters(replica, snapshot(*master), "after an eval step");
}

TEST(DataParallel, ReplicasFollowTheMastersTrainingMode) {
  auto master = seeded_model();
  DataParallel dp(cpus(2), context_for(master, torch::kCPU));
  master->eval();
  dp.eval_step(random_batch(4));
  EXPECT_FALSE(dp.replicas()[1]->is_training());
  master->train();
  dp.train_step(random_batch(4));
  EXPECT_TRUE(dp.replicas()[1]->is_training());
}

TEST(DataParallel, EvalStepMatchesOneForwardAndLeavesTheParameters) {
  auto master = seeded_model();
  auto reference = twin_of(*master);
  DataParallel dp(cpus(2), context_for(master, torch::kCPU));
  const auto before = snapshot(*master);
  Batch batch = random_batch(5);
  StepResult result = dp.eval_step(batch);
  torch::Tensor expected = reference->forward(batch.inputs);  // (5, 3)
  EXPECT_TRUE(torch::equal(result.predictions, expected.argmax(-1)));
  EXPECT_LE(relative_difference(result.loss, reference->loss(expected, batch.targets)), kTolerance);
  EXPECT_FALSE(result.loss.requires_grad());
  expect_equal_parameters(*master, before, "after an eval step");
}

struct RecordingMeter : StepMeter {
  void forward_begins() override { events.push_back("forward_begins"); }
  void forward_ends() override { events.push_back("forward_ends"); }
  void backward_ends() override { events.push_back("backward_ends"); }
  void step_ends() override { events.push_back("step_ends"); }
  std::vector<std::string> events;
};

TEST(DataParallel, TheMeterSeesEveryPhaseInOrder) {
  auto meter = std::make_shared<RecordingMeter>();
  StrategyContext context = context_for(seeded_model(), torch::kCPU);
  context.meter = meter;
  DataParallel dp(cpus(2), context);
  dp.train_step(random_batch(4));
  EXPECT_EQ(meter->events, (std::vector<std::string>{"forward_begins", "forward_ends",
                                                     "backward_ends", "step_ends"}));
}

TEST(DataParallel, TheLearningRateCanChangeBetweenSteps) {
  auto master = seeded_model();
  DataParallel dp(cpus(2), context_for(master, torch::kCPU));
  const auto before = snapshot(*master);
  dp.set_learning_rate(0.0);
  StepResult result = dp.train_step(random_batch(4));
  EXPECT_FALSE(result.loss.requires_grad());
  expect_equal_parameters(*master, before, "after a step with learning rate 0");
}

// The saved values of every piece a strategy saves, by name.
std::map<std::string, torch::Tensor> saved_values(const std::vector<StatePiece>& pieces) {
  std::map<std::string, torch::Tensor> values;
  for (const auto& piece : pieces)
    if (piece.saved) values[piece.name] = piece.values.detach().clone();
  return values;
}

// A checkpoint taken after 3 steps and loaded into another dp (its model initialized apart)
// goes on as the dp that was never stopped: the master's weights and the momentum of SGD.
TEST(DataParallel, ItsStateLoadedIntoAnotherGoesOnAlike) {
  auto master = seeded_model();
  DataParallel dp(cpus(2), context_for(master, torch::kCPU));
  std::vector<Batch> batches;
  for (int step = 0; step < 6; ++step) batches.push_back(random_batch(6));
  for (int step = 0; step < 3; ++step) dp.train_step(batches[step]);
  const auto saved = saved_values(dp.state_pieces());
  EXPECT_TRUE(saved.count("model/first.weight"));
  EXPECT_TRUE(saved.count("optimizer/momentum_buffer/first.weight"));

  torch::manual_seed(99);
  auto other_master = std::make_shared<TinyClassifier>();
  DataParallel other(cpus(2), context_for(other_master, torch::kCPU));
  for (const auto& piece : other.state_pieces()) {
    torch::NoGradGuard no_grad;
    piece.values.copy_(saved.at(piece.name));
  }
  other.state_loaded();
  for (int step = 3; step < 6; ++step) {
    const StepResult ours = other.train_step(batches[step]);
    const StepResult theirs = dp.train_step(batches[step]);
    EXPECT_TRUE(torch::equal(ours.loss, theirs.loss)) << "step " << step;
  }
  expect_equal_parameters(*other_master, snapshot(*master), "after 3 more steps");
}

TEST(DataParallel, AReplicaUnlikeTheMasterIsRefused) {
  auto master = seeded_model();
  master->to(torch::kFloat64);  // make_model still builds float32 models
  const std::string message = runner::testing::message_of<RunError>(
      [&] { DataParallel dp(cpus(2), context_for(master, torch::kCPU)); });
  EXPECT_THAT(message,
              HasSubstr("replica tensor first.weight differs from the master's first.weight"))
      << message;
}

}  // namespace
}  // namespace runner::strategies::dp_tests
