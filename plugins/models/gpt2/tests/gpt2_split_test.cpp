// gpt2 split for tensor parallelism on in-process ranks: each rank keeps exactly its heads' and
// its MLP columns' part of the whole model's weights, and the split model's logits, loss and
// gradients are the whole model's.
#include <ATen/CPUGeneratorImpl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <mutex>

#include <runner_testing/error_message.hpp>
#include <runner_testing/in_process_ranks.hpp>
#include "gpt2_parallelize.hpp"
#include "gpt2_test_support.hpp"
#include "memory.hpp"

using ::testing::HasSubstr;

namespace gpt2 {
namespace {

using test_support::context;
using test_support::FakeOpLibrary;
using test_support::token_data;

using Tensors = std::map<std::string, torch::Tensor>;

// The tiny preset (hidden 64, 4 heads) for sequences of 16 tokens below 100, the same on every
// thread: the global generator is seeded and used under a lock.
std::shared_ptr<Gpt2> same_tiny_model(const FakeOpLibrary& ops) {
  static std::mutex generator;
  std::lock_guard<std::mutex> lock(generator);
  torch::manual_seed(11);
  return std::make_shared<Gpt2>(Gpt2Options{}, context(ops, token_data(100, 16)));
}

torch::Tensor fixed_tokens() {
  auto generator = at::make_generator<at::CPUGeneratorImpl>(5);
  return torch::randint(100, {3, 16}, generator, torch::TensorOptions().dtype(torch::kInt64));
}

// A row of each of q, k and v (c_attn's rows), or a row (column-parallel) or column
// (row-parallel) range of rank `rank` of `ranks`; the rest whole.
torch::Tensor part_of(const std::string& name, const torch::Tensor& whole, int rank, int ranks) {
  const auto ends_with = [&](const std::string& end) {
    return name.size() >= end.size() &&
           name.compare(name.size() - end.size(), end.size(), end) == 0;
  };
  if (ends_with("attn.c_attn.weight") || ends_with("attn.c_attn.bias")) {
    std::vector<torch::Tensor> parts;
    for (const auto& qkv : whole.chunk(3, 0)) parts.push_back(qkv.chunk(ranks, 0)[rank]);
    return torch::cat(parts);
  }
  if (ends_with("mlp.c_fc.weight") || ends_with("mlp.c_fc.bias"))
    return whole.chunk(ranks, 0)[rank];
  if (ends_with("c_proj.weight")) return whole.chunk(ranks, 1)[rank];
  return whole;
}

struct Pass {
  Tensors weights, grads;
  torch::Tensor logits, loss;
};

Pass forward_backward(Gpt2& model) {
  Pass pass;
  const torch::Tensor tokens = fixed_tokens();
  pass.logits = model.forward(tokens);
  pass.loss = model.loss(pass.logits, tokens);
  pass.loss.backward();
  for (const auto& p : model.named_parameters()) {
    pass.weights[p.key()] = p.value().detach().clone();
    pass.grads[p.key()] = p.value().grad().clone();
  }
  return pass;
}

TEST(Gpt2Split, EachRankHoldsItsPartAndComputesTheWholeModel) {
  FakeOpLibrary ops;
  auto whole_model = same_tiny_model(ops);
  Tensors before;
  for (const auto& p : whole_model->named_parameters())
    before[p.key()] = p.value().detach().clone();
  const Pass whole = forward_backward(*whole_model);
  constexpr int kRanks = 2;
  std::vector<Pass> split(kRanks);
  runner::testing::on_ranks(kRanks, [&](int rank, runner::distributed::RankConnection& c) {
    FakeOpLibrary rank_ops;
    auto model = same_tiny_model(rank_ops);
    parallelize(*model, c.communicator);
    Tensors weights;
    for (const auto& p : model->named_parameters()) weights[p.key()] = p.value().detach().clone();
    split[static_cast<size_t>(rank)] = forward_backward(*model);
    split[static_cast<size_t>(rank)].weights = weights;
  });
  for (int rank = 0; rank < kRanks; ++rank) {
    const Pass& mine = split[static_cast<size_t>(rank)];
    EXPECT_TRUE(torch::allclose(mine.logits, whole.logits, 1e-5, 1e-5));
    EXPECT_NEAR(mine.loss.item<double>(), whole.loss.item<double>(), 1e-6);
    for (const auto& [name, w] : before) {
      SCOPED_TRACE(name + " on rank " + std::to_string(rank));
      EXPECT_TRUE(torch::equal(mine.weights.at(name), part_of(name, w, rank, kRanks)));
      EXPECT_TRUE(torch::allclose(mine.grads.at(name),
                                  part_of(name, whole.grads.at(name), rank, kRanks), 1e-5, 1e-6));
    }
  }
}

TEST(Gpt2Split, RanksThatDoNotDivideTheHeadsAreAConfigErrorNamingThem) {
  std::string message;
  runner::testing::on_ranks(3, [&](int rank, runner::distributed::RankConnection& c) {
    FakeOpLibrary ops;
    auto model = same_tiny_model(ops);
    const std::string text = runner::testing::message_of<runner::ConfigError>(
        [&] { parallelize(*model, c.communicator); });
    if (rank == 0) message = text;
  });
  EXPECT_THAT(message, HasSubstr("heads = 4 do not divide among 3")) << message;
}

TEST(Gpt2Split, TheEstimateSaysWhatSplitsAndWhatMustDivide) {
  Gpt2Options options;  // tiny: hidden 64, 4 heads
  FakeOpLibrary ops;
  const runner::ModelContext tokens_16 = context(ops, token_data(100, 16));
  const auto layers = layer_estimates(options, 16, runner::Precision::fp32);
  const runner::SplitEstimate split = split_estimate(options, tokens_16);
  ASSERT_EQ(split.layers.size(), layers.size());
  const int64_t c = 64;
  for (size_t i = 1; i + 1 < layers.size(); ++i) {
    // All of a block but its two LayerNorms (4C) and the two projections' biases (2C).
    EXPECT_EQ(split.layers[i].parameters, layers[i].parameters - 6 * c);
    // The residual stream whole: ln_1's output, the sum, ln_2's output, the output: 4C floats
    // per token, 16 tokens.
    EXPECT_DOUBLE_EQ(layers[i].held_bytes - split.layers[i].held_bytes, 16.0 * 4 * c * 4);
  }
  EXPECT_EQ(split.layers.front().parameters, 0);
  EXPECT_EQ(split.layers.back().parameters, 0);
  // The head reads the token embedding, the first layer's: 512 tokens x 64.
  EXPECT_EQ(layers.back().tied_parameters, 512 * 64);
  EXPECT_EQ(layers.back().tied_owner, 0u);
  const std::vector<std::pair<std::string, int64_t>> divisors{{"heads", 4}, {"hidden", 64}};
  EXPECT_EQ(split.divisors, divisors);
}

}  // namespace
}  // namespace gpt2
