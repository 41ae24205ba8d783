// The gpt2 model: parameter count against the formula, shapes, causality, the shifted loss
// against one computed here, the tied LM head, GPT-2's initialization, and a few Adam steps.
#include <gtest/gtest.h>
#include <runner/model_check.hpp>

#include <cmath>
#include <string>

#include "block.hpp"
#include "gpt2_test_support.hpp"

namespace gpt2 {
namespace {

using test_support::context;
using test_support::FakeOpLibrary;
using test_support::gpt2_parameters;
using test_support::model_options;
using test_support::token_data;

Gpt2Options shaped(int64_t hidden, int64_t heads, int64_t layers, int64_t seq_len,
                   int64_t vocab_size) {
  Gpt2Options options;
  options.shape = {hidden, heads, layers, seq_len, vocab_size};
  return options;
}

// The tiny preset for sequences of 16 tokens below 100, built after seeding.
std::shared_ptr<Gpt2> tiny_model(const FakeOpLibrary& ops, const Gpt2Options& options = {}) {
  torch::manual_seed(11);
  return std::make_shared<Gpt2>(options, context(ops, token_data(100, 16)));
}

torch::Tensor tokens(int64_t batch, int64_t steps, int64_t below = 100) {
  return torch::randint(below, {batch, steps}, torch::kInt64);
}

double standard_deviation(const torch::Tensor& t) { return t.std().item<double>(); }

TEST(Gpt2, PassesTheSdksModelCheckAndItsEstimatorAgrees) {
  FakeOpLibrary ops;
  for (const Gpt2Options& options : {Gpt2Options{}, shaped(48, 6, 3, 40, 300)}) {
    const runner::DatasetInfo data = token_data(options.shape.vocab_size, 12);
    Gpt2 model(options, context(ops, data));
    const runner::ModelCheck check = runner::check_model(model, data);
    EXPECT_TRUE(check.ok()) << check.report();
    const runner::ModelCheck agrees = runner::check_estimate(model, estimate(options, data));
    EXPECT_TRUE(agrees.ok()) << agrees.report();
  }
}

TEST(Gpt2, ParameterCountFollowsTheFormula) {
  FakeOpLibrary ops;
  Gpt2 tiny(Gpt2Options{}, context(ops, token_data(100, 16)));
  EXPECT_EQ(tiny.parameter_count(), gpt2_parameters(2, 64, 512, 64));
  Gpt2 custom(shaped(48, 6, 3, 40, 300), context(ops, token_data(300, 40)));
  EXPECT_EQ(custom.parameter_count(), gpt2_parameters(3, 48, 300, 40));
  Gpt2 small(Gpt2Options::from(model_options({{"preset", std::string("small")}})),
             context(ops, token_data(50257, 1024)));
  EXPECT_EQ(small.parameter_count(), gpt2_parameters(12, 768, 50257, 1024));
}

TEST(Gpt2, FlopsAreTwiceParametersTimesTheDatasetsTokens) {
  FakeOpLibrary ops;
  Gpt2 model(Gpt2Options{}, context(ops, token_data(100, 16)));
  EXPECT_DOUBLE_EQ(model.forward_flops_per_sample(), 2.0 * gpt2_parameters(2, 64, 512, 64) * 16);
}

TEST(Gpt2, LogitsAreBatchByTokensByVocabulary) {
  FakeOpLibrary ops;
  std::shared_ptr<Gpt2> model = tiny_model(ops);
  EXPECT_EQ(model->forward(tokens(3, 16)).sizes(), torch::IntArrayRef({3, 16, 512}));
  EXPECT_EQ(model->forward(tokens(2, 5)).sizes(), torch::IntArrayRef({2, 5, 512}));
}

TEST(Gpt2, ChangingATokenLeavesTheLogitsBeforeItUnchanged) {
  FakeOpLibrary ops;
  std::shared_ptr<Gpt2> model = tiny_model(ops);
  model->eval();
  torch::Tensor original = tokens(2, 16);
  torch::Tensor changed = original.clone();
  const int64_t t = 9;
  changed.select(1, t).copy_((changed.select(1, t) + 1) % 100);
  torch::Tensor before = model->forward(original);
  torch::Tensor after = model->forward(changed);
  EXPECT_TRUE(torch::allclose(before.slice(1, 0, t), after.slice(1, 0, t), 1e-6, 1e-6));
  for (int64_t later = t; later < 16; ++later)
    EXPECT_FALSE(torch::allclose(before.select(1, later), after.select(1, later))) << later;
}

TEST(Gpt2, LossIsTheCrossEntropyOfEachPositionAgainstTheNextToken) {
  FakeOpLibrary ops;
  std::shared_ptr<Gpt2> model = tiny_model(ops);
  torch::Tensor batch = tokens(3, 16);
  torch::Tensor logits = model->forward(batch).to(torch::kFloat64);
  torch::Tensor log_probabilities = torch::log_softmax(logits, -1);  // (B, T, V)
  double total = 0;
  for (int64_t b = 0; b < 3; ++b)
    for (int64_t t = 0; t + 1 < 16; ++t)
      total -= log_probabilities[b][t][batch[b][t + 1].item<int64_t>()].item<double>();
  const double expected = total / (3 * 15);
  EXPECT_NEAR(model->loss(logits, batch).item<double>(), expected, 1e-9);
  // An untrained model is close to uniform over the 512 tokens.
  EXPECT_NEAR(expected, std::log(512.0), 0.5);
}

TEST(Gpt2, AdamStepsOnAFixedBatchLowerTheLoss) {
  FakeOpLibrary ops;
  std::shared_ptr<Gpt2> model = tiny_model(ops);
  torch::Tensor batch = tokens(4, 16);
  torch::optim::Adam adam(model->parameters(), torch::optim::AdamOptions(3e-3));
  double first = 0;
  double last = 0;
  for (int step = 0; step < 10; ++step) {
    adam.zero_grad();
    torch::Tensor loss = model->loss(model->forward(batch), batch);
    loss.backward();
    adam.step();
    (step == 0 ? first : last) = loss.item<double>();
  }
  EXPECT_LT(last, first - 0.5) << "first " << first << ", last " << last;
}

TEST(Gpt2, LmHeadIsTheTokenEmbedding) {
  FakeOpLibrary ops;
  std::shared_ptr<Gpt2> model = tiny_model(ops);
  int vocabulary_sized = 0;
  for (const auto& p : model->named_parameters())
    if (p.value().size(0) == 512) ++vocabulary_sized;
  EXPECT_EQ(vocabulary_sized, 1);  // wte only
  // Tokens 0..9 only as inputs: the embedding rows of other tokens learn through the head alone.
  torch::Tensor batch = tokens(2, 16, 10);
  model->loss(model->forward(batch), batch).backward();
  torch::Tensor wte_grad = model->named_parameters()["wte.weight"].grad();
  EXPECT_GT(wte_grad.slice(0, 10).abs().sum().item<double>(), 0.0);
}

TEST(Gpt2, InitializesAsGpt2) {
  FakeOpLibrary ops;
  const int64_t layers = 8;
  torch::manual_seed(5);
  Gpt2 model(shaped(256, 4, layers, 64, 512), context(ops, token_data(512, 64)));
  const double residual_std = 0.02 / std::sqrt(2.0 * layers);
  auto parameters = model.named_parameters();
  for (const auto& p : parameters) {
    const std::string& name = p.key();
    const bool layer_norm = name.find("ln_") != std::string::npos;
    const bool bias = name.size() > 5 && name.substr(name.size() - 5) == ".bias";
    if (layer_norm) {
      EXPECT_TRUE(torch::equal(p.value(),
                               bias ? torch::zeros_like(p.value()) : torch::ones_like(p.value())))
          << name;
    } else if (bias) {
      EXPECT_TRUE(torch::equal(p.value(), torch::zeros_like(p.value()))) << name;
    } else {
      const bool residual = name.find("c_proj") != std::string::npos;
      EXPECT_NEAR(standard_deviation(p.value()), residual ? residual_std : 0.02,
                  0.05 * (residual ? residual_std : 0.02))
          << name;
      EXPECT_NEAR(p.value().mean().item<double>(), 0.0, 0.002) << name;
    }
  }
}

TEST(Gpt2, ForwardChainsEmbedBlocksAndHead) {
  FakeOpLibrary ops;
  std::shared_ptr<Gpt2> model = tiny_model(ops);
  ASSERT_EQ(model->blocks()->size(), 2u);
  torch::Tensor batch = tokens(2, 8);
  torch::Tensor x = model->embed(batch);  // (B, T, hidden)
  EXPECT_EQ(x.sizes(), torch::IntArrayRef({2, 8, 64}));
  for (const auto& block : *model->blocks()) x = block->as<Block>()->forward(x);
  EXPECT_TRUE(torch::equal(model->head(x), model->forward(batch)));
}

TEST(Gpt2, LayersAreEmbeddingBlocksAndTiedHeadAndFoldToForward) {
  FakeOpLibrary ops;
  std::shared_ptr<Gpt2> model = tiny_model(ops);
  const auto layers = model->layers();
  ASSERT_EQ(layers.size(), 4u);  // embedding, 2 blocks, head
  EXPECT_TRUE(layers[1].get() == model->blocks()[0].get());
  torch::Tensor batch = tokens(2, 8);
  torch::Tensor x = batch;
  for (const auto& layer : layers) x = layer->forward(x);
  EXPECT_TRUE(torch::equal(x, model->forward(batch)));
  // Every parameter belongs to exactly one layer; the head reads the embedding's too.
  int64_t owned = 0;
  for (const auto& layer : layers) owned += static_cast<int64_t>(layer->parameters().size());
  EXPECT_EQ(owned, static_cast<int64_t>(model->parameters().size()));
  ASSERT_EQ(layers.back()->tied_parameters().size(), 1u);
  EXPECT_TRUE(layers.back()->tied_parameters()[0].is_same(model->named_parameters()["wte.weight"]));
  EXPECT_TRUE(layers.front()->tied_parameters().empty());
}

TEST(Gpt2, ActivationIsTheOpOfThatNameOncePerBlock) {
  FakeOpLibrary ops;
  std::shared_ptr<Gpt2> model = tiny_model(ops);
  model->forward(tokens(1, 4));
  EXPECT_EQ(ops.gelu->calls, 2);
  Gpt2Options unknown;
  unknown.activation = "gleu";
  EXPECT_THROW(tiny_model(ops, unknown), runner::ConfigError);
  Gpt2Options two_inputs;
  two_inputs.activation = "add";
  EXPECT_THROW(tiny_model(ops, two_inputs), runner::ConfigError);
}

TEST(Gpt2, DropoutActsOnlyWhileTraining) {
  FakeOpLibrary ops;
  Gpt2Options options;
  options.dropout = 0.5;
  std::shared_ptr<Gpt2> model = tiny_model(ops, options);
  torch::Tensor batch = tokens(2, 8);
  model->eval();
  torch::Tensor evaluated = model->forward(batch);
  EXPECT_TRUE(torch::equal(evaluated, model->forward(batch)));
  model->train();
  EXPECT_FALSE(torch::allclose(evaluated, model->forward(batch), 1e-3, 1e-3));
}

TEST(Gpt2, RegisteredFactoryBuildsFromOptions) {
  runner::PluginBuilder plugin;
  add_gpt2_model(plugin);
  ASSERT_EQ(plugin.components().size(), 1u);
  const runner::Component& component = plugin.components()[0];
  EXPECT_EQ(component.kind, runner::Kind::model);
  EXPECT_EQ(component.name, "gpt2");
  ASSERT_TRUE(static_cast<bool>(component.estimate_model));
  FakeOpLibrary ops;
  runner::Options options = model_options({{"layers", int64_t{3}}});
  std::shared_ptr<runner::Model> model =
      component.make_model(options, context(ops, token_data(100, 16)));
  EXPECT_EQ(model->parameter_count(), gpt2_parameters(3, 64, 512, 64));
  EXPECT_EQ(model->parameter_count(),
            component.estimate_model(options, context(ops, token_data(100, 16))).parameters);
}

}  // namespace
}  // namespace gpt2
