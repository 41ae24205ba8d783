// zero against one process training on the whole batch: the same losses and parameters at
// every stage, with micro-batches and checkpointing, on a model with layers and a tied weight.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <unordered_set>

#include <runner_testing/error_message.hpp>
#include <runner_testing/in_process_ranks.hpp>
#include <runner_testing/layered_model.hpp>
#include "../offloaded_optimizer.hpp"
#include "../zero_strategy.hpp"

using ::testing::HasSubstr;

namespace runner::testing::zero_tests {
namespace {

using strategies::ZeroOptions;
using strategies::ZeroStrategy;
using strategies::testing::adam;
using strategies::testing::batch_from_seed;
using strategies::testing::LayeredModel;
using strategies::testing::Opaque;
using strategies::testing::rows_of;
using strategies::testing::seeded;

constexpr int kSteps = 50;

Batch batch_of(int64_t step) { return batch_from_seed(500 + static_cast<uint64_t>(step)); }

// Without dropout: the ranks' and the one process's steps must be the same.
template <typename M>
std::shared_ptr<M> model_of(uint64_t seed) {
  if constexpr (std::is_same_v<M, LayeredModel>)
    return seeded<M>(seed, 0.0);
  else
    return seeded<M>(seed);
}

torch::Tensor flat(Model& model) {
  std::vector<torch::Tensor> parts;
  for (const auto& p : model.parameters()) parts.push_back(p.detach().flatten());
  return torch::cat(parts).clone();
}

struct Trace {
  std::vector<double> losses;  // one per step
  torch::Tensor initial;       // flat parameters before training (rank 0's)
  torch::Tensor parameters;    // after training
};

// One process, plain LibTorch, on the whole batch.
template <typename M>
Trace one_process() {
  auto model = model_of<M>(3);
  auto optimizer = adam(model->parameters());
  Trace trace;
  trace.initial = flat(*model);
  for (int step = 0; step < kSteps; ++step) {
    const Batch batch = batch_of(step);
    optimizer->zero_grad();
    torch::Tensor loss = model->loss(model->forward(batch.inputs), batch.targets);
    loss.backward();
    optimizer->step();
    trace.losses.push_back(loss.item<double>());
  }
  trace.parameters = flat(*model);
  return trace;
}

// zero on `world` in-process ranks; rank 0's trace, its losses the mean over the ranks.
template <typename M>
Trace on_zero(ZeroOptions options, Techniques techniques = {}, int world = 2) {
  std::vector<Trace> traces(static_cast<size_t>(world));
  on_ranks(world, [&](int rank, distributed::RankConnection& c) {
    // Different initializations: setup must give every rank rank 0's.
    auto model = model_of<M>(rank == 0 ? 3 : 100 + static_cast<uint64_t>(rank));
    ZeroStrategy zero(options);
    StrategyContext context;
    context.model = model;
    context.make_optimizer = adam;
    context.communicator = c.communicator;
    context.techniques = techniques;
    zero.setup(context);
    Trace& trace = traces[static_cast<size_t>(rank)];
    for (int step = 0; step < kSteps; ++step)
      trace.losses.push_back(
          zero.train_step(rows_of(batch_of(step), rank, world)).loss.item<double>());
    zero.gather_parameters();
    trace.parameters = flat(*model);
  });
  Trace mean = traces[0];
  for (int step = 0; step < kSteps; ++step) {
    double sum = 0;
    for (const auto& t : traces) sum += t.losses[static_cast<size_t>(step)];
    mean.losses[static_cast<size_t>(step)] = sum / world;
  }
  for (const auto& t : traces) EXPECT_TRUE(torch::equal(t.parameters, mean.parameters));
  return mean;
}

void expect_same_training(const Trace& expected, const Trace& actual) {
  for (size_t step = 0; step < expected.losses.size(); ++step)
    ASSERT_NEAR(actual.losses[step], expected.losses[step], 1e-5 * std::abs(expected.losses[step]))
        << "step " << step;
  EXPECT_TRUE(torch::allclose(actual.parameters, expected.parameters, 1e-5, 1e-6))
      << (actual.parameters - expected.parameters).abs().max();
  // Trained: the parameters moved (random labels: the loss need not fall).
  EXPECT_GT((expected.parameters - expected.initial).abs().max().item<double>(), 0.1);
}

ZeroOptions stage(int s) {
  ZeroOptions o;
  o.stage = s;
  return o;
}

TEST(Zero, EveryStageFollowsOneProcessTraining) {
  const Trace expected = one_process<LayeredModel>();
  for (int s : {1, 2, 3}) {
    SCOPED_TRACE("stage " + std::to_string(s));
    expect_same_training(expected, on_zero<LayeredModel>(stage(s)));
  }
}

// A unit per parameter: many reductions in flight, started as backward completes each.
TEST(Zero, SmallBucketsFollowOneProcessTraining) {
  const Trace expected = one_process<LayeredModel>();
  for (int s : {1, 2}) {
    SCOPED_TRACE("stage " + std::to_string(s));
    ZeroOptions small = stage(s);
    small.bucket_mb = 0.0001;
    expect_same_training(expected, on_zero<LayeredModel>(small));
  }
}

TEST(Zero, MicroBatchesAndCheckpointingFollowOneProcessTraining) {
  const Trace expected = one_process<LayeredModel>();
  Techniques techniques;
  techniques.micro_batches = 2;
  techniques.checkpoint_layers = true;
  for (int s : {1, 2, 3}) {
    SCOPED_TRACE("stage " + std::to_string(s));
    expect_same_training(expected, on_zero<LayeredModel>(stage(s), techniques));
  }
}

TEST(Zero, WithoutOverlapOrPrefetchTheStepsAreTheSame) {
  const Trace expected = one_process<LayeredModel>();
  ZeroOptions plain = stage(3);
  plain.overlap = false;
  plain.prefetch = false;
  expect_same_training(expected, on_zero<LayeredModel>(plain));
}

TEST(Zero, StageThreeOnAModelWithoutLayersFollowsOneProcessTraining) {
  expect_same_training(one_process<Opaque>(), on_zero<Opaque>(stage(3)));
}

TEST(Zero, FourRanksFollowOneProcessTraining) {
  const Trace expected = one_process<LayeredModel>();
  expect_same_training(expected, on_zero<LayeredModel>(stage(2), {}, 4));
  expect_same_training(expected, on_zero<LayeredModel>(stage(3), {}, 4));
}

// Bytes of distinct storages among the tensors, counted once each.
double distinct_bytes(const std::vector<torch::Tensor>& tensors) {
  std::unordered_set<const void*> seen;
  double bytes = 0;
  for (const auto& t : tensors)
    if (t.defined() && seen.insert(t.storage().unsafeGetStorageImpl()).second)
      bytes += static_cast<double>(t.storage().nbytes());
  return bytes;
}

// What a rank keeps between steps: the model's parameters and gradients, and the optimizer's
// parameters (the masters), gradients and state.
double model_state_bytes(Model& model, torch::optim::Optimizer& optimizer) {
  std::vector<torch::Tensor> held;
  for (const auto& p : model.parameters()) held.push_back(p), held.push_back(p.grad());
  for (const auto& group : optimizer.param_groups())
    for (const auto& p : group.params()) held.push_back(p), held.push_back(p.grad());
  for (const auto& entry : optimizer.state()) {
    auto& adam = static_cast<torch::optim::AdamParamState&>(*entry.second);
    held.push_back(adam.exp_avg());
    held.push_back(adam.exp_avg_sq());
  }
  return distinct_bytes(held);
}

// Stage s over 2 ranks keeps 12, 10 or 8 bytes per parameter (fp32 Adam: 4 weights, 4
// gradients, 8 of state, whole or halved), each unit padded to an even number of elements.
TEST(Zero, ModelStateBytesPerParameterFollowTheStages) {
  for (int s : {1, 2, 3}) {
    on_ranks(2, [&](int rank, distributed::RankConnection& c) {
      auto model = model_of<LayeredModel>(3);
      const double parameters = static_cast<double>(flat(*model).numel());
      ZeroStrategy zero(stage(s));
      StrategyContext context;
      context.model = model;
      torch::optim::Optimizer* optimizer = nullptr;
      context.make_optimizer = [&optimizer](std::vector<torch::Tensor> params) {
        auto made = adam(params);
        optimizer = made.get();
        return made;
      };
      context.communicator = c.communicator;
      zero.setup(context);
      zero.train_step(rows_of(batch_of(0), rank, 2));
      double padded = 0;
      for (const auto& unit : zero.units()) padded += 2.0 * static_cast<double>(unit->part_numel());
      const double half = padded / 2;
      const double expected = s == 1   ? 4 * padded + 4 * padded + 8 * half
                              : s == 2 ? 4 * padded + 4 * half + 8 * half
                                       : 4 * half + 4 * half + 8 * half;
      const double held = model_state_bytes(*model, *optimizer);
      EXPECT_DOUBLE_EQ(held, expected) << "stage " << s;
      EXPECT_NEAR(held / parameters, s == 1 ? 12 : s == 2 ? 10 : 8, 0.5) << "stage " << s;
    });
  }
}

TEST(Zero, StageThreeKeepsNoWholeParametersBetweenSteps) {
  on_ranks(2, [](int rank, distributed::RankConnection& c) {
    auto model = model_of<LayeredModel>(3);
    ZeroStrategy zero(stage(3));
    StrategyContext context;
    context.model = model;
    context.make_optimizer = adam;
    context.communicator = c.communicator;
    zero.setup(context);
    zero.train_step(rows_of(batch_of(0), rank, 2));
    for (const auto& p : model->parameters()) EXPECT_EQ(p.numel(), 0);
    zero.eval_step(batch_of(1));
    for (const auto& p : model->parameters()) EXPECT_EQ(p.numel(), 0);
    zero.gather_parameters();
    for (const auto& p : model->parameters()) EXPECT_GT(p.numel(), 0);
  });
}

std::filesystem::path offload_folder(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("zero_offload_test_" + std::to_string(getpid()) + "_" + name);
}

ZeroOptions offloaded(int s, const std::filesystem::path& folder) {
  ZeroOptions o = stage(s);
  o.offload = "nvme";
  o.offload_dir = folder.string();
  return o;
}

TEST(Zero, OffloadedStateFollowsOneProcessTrainingAtEveryStage) {
  const Trace expected = one_process<LayeredModel>();
  for (int s : {1, 2, 3}) {
    SCOPED_TRACE("stage " + std::to_string(s));
    expect_same_training(expected, on_zero<LayeredModel>(offloaded(s, offload_folder("follow"))));
  }
  // Each rank's files went with its strategy.
  EXPECT_TRUE(std::filesystem::is_empty(offload_folder("follow")));
  std::filesystem::remove_all(offload_folder("follow"));
}

// Between steps the optimizer state is in files, none of it in memory: stage 3 over 2 ranks
// keeps 4 bytes per parameter (halves of the weights and gradients) instead of 8.
TEST(Zero, OffloadedStateIsOnDiskNotInMemoryBetweenSteps) {
  const auto folder = offload_folder("bytes");
  on_ranks(2, [&](int rank, distributed::RankConnection& c) {
    auto model = model_of<LayeredModel>(3);
    ZeroStrategy zero(offloaded(3, folder));
    StrategyContext context;
    context.model = model;
    context.make_optimizer = adam;
    context.communicator = c.communicator;
    zero.setup(context);
    zero.train_step(rows_of(batch_of(0), rank, 2));
    double half = 0;
    for (const auto& unit : zero.units()) half += static_cast<double>(unit->part_numel());
    EXPECT_DOUBLE_EQ(model_state_bytes(*model, zero.optimizer()), 4 * half + 4 * half);
    auto& offloaded_optimizer = dynamic_cast<strategies::OffloadedOptimizer&>(zero.optimizer());
    EXPECT_GE(static_cast<double>(offloaded_optimizer.bytes_on_disk()), 8 * half);
    EXPECT_TRUE(std::filesystem::exists(offloaded_optimizer.folder()));
  });
  std::filesystem::remove_all(folder);
}

// The system's temporary folder is shared: each rank's state goes to a new folder only its user
// may enter, whose name nobody could have guessed and planted a link at.
TEST(Zero, EachRanksOffloadFolderIsNewAndPrivate) {
  namespace fs = std::filesystem;
  const auto base = offload_folder("private");
  fs::create_directories(base / "planted");
  fs::create_directory_symlink(base / "planted",
                               base / ("runner-zero-" + std::to_string(getpid()) + "-rank0"));
  fs::path used;
  on_ranks(1, [&](int rank, distributed::RankConnection& c) {
    ZeroStrategy zero(offloaded(2, base));
    StrategyContext context;
    context.model = model_of<LayeredModel>(3);
    context.make_optimizer = adam;
    context.communicator = c.communicator;
    zero.setup(context);
    zero.train_step(rows_of(batch_of(0), rank, 1));
    used = dynamic_cast<strategies::OffloadedOptimizer&>(zero.optimizer()).folder();
    EXPECT_EQ(used.parent_path(), base);
    EXPECT_THAT(used.filename().string(), ::testing::StartsWith("runner-zero-rank0-"));
    EXPECT_FALSE(fs::is_symlink(used));
    EXPECT_EQ(fs::status(used).permissions(), fs::perms::owner_all);
    EXPECT_FALSE(fs::is_empty(used)) << "no state written";
  });
  EXPECT_FALSE(fs::exists(used)) << "the folder goes with the strategy";
  EXPECT_TRUE(fs::is_empty(base / "planted"));
  fs::remove_all(base);
}

TEST(Zero, AnOffloadFolderThatCannotBeWrittenIsAConfigErrorNamingTheKey) {
  const auto file = offload_folder("file");
  std::ofstream(file) << "not a folder";
  on_ranks(1, [&](int, distributed::RankConnection& c) {
    ZeroStrategy zero(offloaded(2, file / "under"));
    StrategyContext context;
    context.model = model_of<LayeredModel>(3);
    context.make_optimizer = adam;
    context.communicator = c.communicator;
    const std::string message = message_of<ConfigError>([&] { zero.setup(context); });
    EXPECT_THAT(message,
                HasSubstr("strategy.offload_dir: cannot write in " + (file / "under").string()))
        << message;
  });
  std::filesystem::remove(file);
}

TEST(Zero, OffloadToTheHostOnACpuRunIsAConfigErrorSayingWhy) {
  on_ranks(1, [&](int, distributed::RankConnection& c) {
    ZeroOptions options = stage(2);
    options.offload = "cpu";
    ZeroStrategy zero(options);
    StrategyContext context;
    context.model = model_of<LayeredModel>(3);
    context.make_optimizer = adam;
    context.communicator = c.communicator;
    const std::string message = message_of<ConfigError>([&] { zero.setup(context); });
    EXPECT_THAT(message,
                HasSubstr("strategy.offload = \"cpu\" moves the optimizer state from a GPU"))
        << message;
  });
}

// On a GPU the host-offloaded state steps the same: 20 steps of stage 2 on one rank, with and
// without offload = "cpu".
TEST(Zero, OffloadToTheHostFollowsTheStateOnTheGpu) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "needs a CUDA device";
  std::vector<std::vector<double>> losses(2);
  for (int offload = 0; offload < 2; ++offload)
    on_ranks(1, [&](int, distributed::RankConnection& c) {
      ZeroOptions options = stage(2);
      if (offload) options.offload = "cpu";
      ZeroStrategy zero(options);
      StrategyContext context;
      context.model = model_of<LayeredModel>(3);
      context.device = torch::Device(torch::kCUDA, 0);
      context.make_optimizer = adam;
      context.communicator = c.communicator;
      zero.setup(context);
      for (int step = 0; step < 20; ++step) {
        Batch batch = batch_of(step);
        batch.inputs = batch.inputs.to(context.device);
        batch.targets = batch.targets.to(context.device);
        losses[offload].push_back(zero.train_step(batch).loss.item<double>());
      }
    });
  for (int step = 0; step < 20; ++step)
    EXPECT_NEAR(losses[1][step], losses[0][step], 1e-6 * std::abs(losses[0][step])) << step;
}

}  // namespace
}  // namespace runner::testing::zero_tests
