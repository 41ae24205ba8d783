// Tests of the optimizers: SGD's and Adam's options, their config errors, the rate of every group.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <runner_testing/error_message.hpp>
#include "train/optimizers.hpp"

using ::testing::HasSubstr;

namespace runner::train {
namespace {

Options optimizer(const std::string& name) {
  Options o("optimizer");
  o.set("name", name);
  o.set("lr", 0.1);
  o.set("momentum", 0.9);
  o.set("nesterov", true);
  o.set("weight_decay", 0.01);
  o.set("betas", std::vector<double>{0.8, 0.9});
  o.set("eps", 1e-6);
  return o;
}

std::vector<torch::Tensor> parameters() { return {torch::ones({3}, torch::requires_grad())}; }

TEST(Optimizer, SgdGetsMomentumNesterovAndWeightDecay) {
  auto made = optimizer_factory(optimizer("sgd"))(parameters());
  auto* sgd = dynamic_cast<torch::optim::SGD*>(made.get());
  ASSERT_NE(sgd, nullptr);
  auto& options = static_cast<torch::optim::SGDOptions&>(sgd->param_groups()[0].options());
  EXPECT_DOUBLE_EQ(options.momentum(), 0.9);
  EXPECT_TRUE(options.nesterov());
  EXPECT_DOUBLE_EQ(options.weight_decay(), 0.01);
}

TEST(Optimizer, AdamAndAdamWGetBetasAndEps) {
  auto adam = optimizer_factory(optimizer("adam"))(parameters());
  auto& a = static_cast<torch::optim::AdamOptions&>(adam->param_groups()[0].options());
  EXPECT_DOUBLE_EQ(std::get<0>(a.betas()), 0.8);
  EXPECT_DOUBLE_EQ(a.eps(), 1e-6);
  auto adamw = optimizer_factory(optimizer("adamw"))(parameters());
  EXPECT_NE(dynamic_cast<torch::optim::AdamW*>(adamw.get()), nullptr);
}

TEST(Optimizer, NesterovWithoutMomentumIsAConfigError) {
  Options o = optimizer("sgd");
  o.set("momentum", 0.0);
  const std::string message =
      runner::testing::message_of<ConfigError>([&] { optimizer_factory(o); });
  EXPECT_THAT(message, HasSubstr("optimizer.nesterov = true needs optimizer.momentum > 0"))
      << message;
}

TEST(Optimizer, BetasMustBeTwoFractions) {
  Options o = optimizer("adam");
  o.set("betas", std::vector<double>{0.9});
  const std::string one = runner::testing::message_of<ConfigError>([&] { optimizer_factory(o); });
  EXPECT_THAT(one, HasSubstr("optimizer.betas must be two numbers in [0, 1), got ")) << one;
  o.set("betas", std::vector<double>{0.9, 1.0});
  const std::string one_too_large =
      runner::testing::message_of<ConfigError>([&] { optimizer_factory(o); });
  EXPECT_NE(one_too_large.find("optimizer.betas must be two numbers in [0, 1), got "),
            std::string::npos)
      << one_too_large;
}

TEST(Optimizer, SetLearningRateChangesEveryGroup) {
  auto made = optimizer_factory(optimizer("adam"))(parameters());
  set_learning_rate(*made, 0.25);
  EXPECT_DOUBLE_EQ(made->param_groups()[0].options().get_lr(), 0.25);
}

}  // namespace
}  // namespace runner::train
