// Checkpointed layers against the same layers run plainly: same outputs, losses and
// gradients (dropout included), the random-number state left as a plain run leaves it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <runner/strategies/activation_checkpointing.hpp>
#include <runner/strategies/training_step.hpp>

#include <runner_testing/layered_model.hpp>

using ::testing::HasSubstr;

namespace runner::strategies::support_tests {
namespace {

using testing::LayeredModel;

struct Pass {
  torch::Tensor loss;
  std::vector<torch::Tensor> gradients;
  torch::Tensor next_random;  // drawn after backward: where the generator was left
};

Pass forward_backward(LayeredModel& model, const Batch& batch, bool checkpoint, uint64_t seed) {
  for (auto& p : model.parameters()) p.mutable_grad().reset();
  torch::manual_seed(seed);
  torch::Tensor loss = model.loss(model_forward(model, batch.inputs, checkpoint), batch.targets);
  loss.backward();
  Pass pass{loss.detach(), {}, torch::rand({4})};
  for (const auto& p : model.parameters()) pass.gradients.push_back(p.grad().clone());
  return pass;
}

TEST(ActivationCheckpointing, LossAndEveryGradientEqualAPlainRunWithDropout) {
  torch::manual_seed(1);
  LayeredModel model(0.3);
  Batch batch = testing::random_batch(16);
  Pass plain = forward_backward(model, batch, false, 42);
  Pass checkpointed = forward_backward(model, batch, true, 42);
  EXPECT_TRUE(torch::allclose(plain.loss, checkpointed.loss, 1e-6, 0));
  ASSERT_EQ(plain.gradients.size(), checkpointed.gradients.size());
  for (size_t k = 0; k < plain.gradients.size(); ++k)
    EXPECT_TRUE(torch::allclose(plain.gradients[k], checkpointed.gradients[k], 1e-6, 1e-7))
        << "parameter " << k;
  EXPECT_TRUE(torch::equal(plain.next_random, checkpointed.next_random))
      << "the recomputation must leave the generator where the forward left it";
  // The dropout masks mattered: another seed gives another loss.
  Pass other = forward_backward(model, batch, true, 43);
  EXPECT_FALSE(torch::allclose(plain.loss, other.loss, 1e-6, 0));
}

TEST(ActivationCheckpointing, TheTiedWeightGetsBothLayersContributions) {
  torch::manual_seed(2);
  LayeredModel model(0.0);
  Batch batch = testing::random_batch(8);
  Pass checkpointed = forward_backward(model, batch, true, 1);
  // Without the head's use, the first layer's weight would get the first layer's share only.
  Pass plain = forward_backward(model, batch, false, 1);
  EXPECT_TRUE(torch::allclose(plain.gradients[0], checkpointed.gradients[0], 1e-6, 1e-7));
  auto first_only = [&] {
    for (auto& p : model.parameters()) p.mutable_grad().reset();
    torch::Tensor x = model.first_->forward(batch.inputs);
    model.loss(model.head_->forward(model.second_->forward(x.detach())), batch.targets).backward();
    return model.first_->linear_->weight.grad().clone();  // the head's share alone
  }();
  EXPECT_FALSE(torch::allclose(first_only, plain.gradients[0], 1e-3, 1e-5));
}

TEST(ActivationCheckpointing, TheLayerKeepsNoActivationsOnlyItsInput) {
  torch::manual_seed(3);
  auto layer = std::make_shared<testing::Dense>(6, 8, 0.0);
  torch::Tensor x = torch::randn({4, 6}, torch::requires_grad());
  torch::Tensor y = checkpointed_forward(layer, x);
  ASSERT_TRUE(y.requires_grad());
  // One node between y and the leaves: the checkpoint, not linear, tanh and dropout.
  const auto& node = y.grad_fn();
  ASSERT_NE(node, nullptr);
  for (const auto& edge : node->next_edges())
    if (edge.function) {
      EXPECT_EQ(edge.function->name(), "torch::autograd::AccumulateGrad");
    }
  y.sum().backward();
  EXPECT_TRUE(x.grad().defined());
  EXPECT_TRUE(layer->linear_->weight.grad().defined());
}

TEST(ActivationCheckpointing, AModelWithoutLayersIsRefusedWithTheKey) {
  testing::Opaque model;
  Techniques techniques;
  techniques.checkpoint_layers = true;
  try {
    check_layers_for_checkpointing(model, techniques);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("train.activation_checkpointing"));
  }
  techniques.checkpoint_layers = false;
  EXPECT_NO_THROW(check_layers_for_checkpointing(model, techniques));
}

}  // namespace
}  // namespace runner::strategies::support_tests
