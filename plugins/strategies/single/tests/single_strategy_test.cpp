// Tests of single: one SGD step, an eval step that changes nothing, a learning rate that changes.
#include <gtest/gtest.h>

#include "single_strategy.hpp"

namespace runner::strategies::single_tests {
namespace {

// y = w * x, loss = mean((y - t)^2): a step of SGD is w - lr * mean(2 (w x - t) x).
class Scale : public Model {
 public:
  Scale() { w = register_parameter("w", torch::tensor({2.0})); }
  torch::Tensor forward(const torch::Tensor& x) override { return w * x; }
  torch::Tensor loss(const torch::Tensor& y, const torch::Tensor& t) override {
    return (y - t).square().mean();
  }
  double forward_flops_per_sample() const override { return 1; }
  torch::Tensor w;
};

StrategyContext context(std::shared_ptr<Scale> model) {
  StrategyContext c;
  c.model = std::move(model);
  c.make_optimizer = [](std::vector<torch::Tensor> params) {
    return std::make_unique<torch::optim::SGD>(std::move(params), torch::optim::SGDOptions(0.1));
  };
  return c;
}

TEST(SingleStrategy, ATrainStepAppliesOneGradientStep) {
  auto model = std::make_shared<Scale>();
  SingleStrategy strategy;
  strategy.setup(context(model));
  Batch batch{torch::tensor({1.0, 3.0}), torch::tensor({1.0, 3.0})};
  StepResult first = strategy.train_step(batch);
  // w = 2: loss = mean((x)^2) = 5; grad = mean(2 x^2) = 10; w -> 2 - 0.1 * 10 = 1.
  EXPECT_DOUBLE_EQ(first.loss.item<double>(), 5.0);
  EXPECT_DOUBLE_EQ(model->w.item<double>(), 1.0);
  EXPECT_FALSE(first.loss.requires_grad());
  // At w = 1 the loss is 0 and so is its gradient: w stays. Had the first step's gradient of 10
  // stayed in place, w would become 1 - 0.1 * 10 = 0.
  StepResult second = strategy.train_step(batch);
  EXPECT_DOUBLE_EQ(second.loss.item<double>(), 0.0);
  EXPECT_DOUBLE_EQ(model->w.item<double>(), 1.0) << "gradients do not accumulate over steps";
}

TEST(SingleStrategy, EvalStepLeavesParametersAndBuildsNoGraph) {
  auto model = std::make_shared<Scale>();
  SingleStrategy strategy;
  strategy.setup(context(model));
  StepResult result = strategy.eval_step({torch::tensor({1.0}), torch::tensor({0.0})});
  EXPECT_DOUBLE_EQ(result.loss.item<double>(), 4.0);
  EXPECT_FALSE(result.loss.requires_grad());
  EXPECT_DOUBLE_EQ(model->w.item<double>(), 2.0);
}

TEST(SingleStrategy, TheLearningRateCanChangeBetweenSteps) {
  auto model = std::make_shared<Scale>();
  SingleStrategy strategy;
  strategy.setup(context(model));
  strategy.set_learning_rate(0.0);
  strategy.train_step({torch::tensor({1.0, 3.0}), torch::tensor({1.0, 3.0})});
  EXPECT_DOUBLE_EQ(model->w.item<double>(), 2.0);
}

}  // namespace
}  // namespace runner::strategies::single_tests
