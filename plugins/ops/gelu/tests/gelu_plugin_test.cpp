// The plugin's registration and key, and the errors a user can cause: a bad `approximate`, a
// tensor of the wrong dtype. (The host refuses a value outside the schema's choices before the
// op is made; its own tests check that.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <runner/errors.hpp>

#include <map>
#include <memory>
#include <string>

#include "gelu_function.hpp"
#include "gelu_op.hpp"
#include "gelu_test_support.hpp"

using ::testing::HasSubstr;
using ::testing::Not;

namespace gelu {
namespace {

const runner::Component& registered_gelu() {
  static const runner::PluginBuilder plugin = [] {
    runner::PluginBuilder b;
    add_gelu_op(b);
    return b;
  }();
  return plugin.components().at(0);
}

// [ops.gelu]'s options as the host resolves them: the schema's defaults, then `approximate`.
runner::Options options_with(const std::map<std::string, std::string>& values) {
  runner::Options options("ops.gelu");
  for (const runner::KeySpec& key : registered_gelu().schema.keys())
    options.set(key.name, *key.default_value);
  for (const auto& [key, value] : values) options.set(key, value);
  return options;
}

std::shared_ptr<GeluOp> made_from(const runner::Options& options) {
  return std::dynamic_pointer_cast<GeluOp>(registered_gelu().make_op(options));
}

TEST(GeluPlugin, RegistersOneOpNamedGeluVersion100) {
  runner::PluginBuilder plugin;
  add_gelu_op(plugin);
  ASSERT_EQ(plugin.components().size(), 1u);
  const runner::Component& c = plugin.components()[0];
  EXPECT_EQ(c.kind, runner::Kind::op);
  EXPECT_EQ(c.name, "gelu");
  EXPECT_EQ(c.version, "1.0.0");
  EXPECT_EQ(c.schema.names(), std::vector<std::string>{"approximate"});
  const runner::KeySpec* key = c.schema.find("approximate");
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(key->choices, (std::vector<std::string>{"none", "tanh", "sigmoid"}));
  EXPECT_EQ(std::get<std::string>(*key->default_value), "none");
}

TEST(GeluPlugin, EachApproximateValueMakesItsForm) {
  for (const auto& [name, form] : test::forms()) {
    std::shared_ptr<GeluOp> op = made_from(options_with({{"approximate", name}}));
    ASSERT_NE(op, nullptr) << name;
    EXPECT_EQ(op->form(), form) << name;
    EXPECT_EQ(op->arity(), 1) << name;
  }
}

TEST(GeluPlugin, TheDefaultIsTheExactForm) {
  std::shared_ptr<GeluOp> op = made_from(options_with({}));
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->form(), Approximation::none);
  const torch::Tensor x = torch::linspace(-3, 3, 13);
  EXPECT_LE(test::relative_error((*op)(x), at::gelu(x, "none")), 1e-6);
  EXPECT_GT(test::relative_error((*op)(x), at::gelu(x, "tanh")), 1e-5);
}

TEST(GeluPlugin, AnApproximateOutsideTheChoicesIsRefused) {
  runner::Options options("ops.gelu");
  options.set("approximate", std::string("Tanh"));
  try {
    registered_gelu().make_op(options);
    FAIL() << "approximate = \"Tanh\" was accepted";
  } catch (const runner::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "ops.gelu.approximate = \"Tanh\" is not one of none, tanh, sigmoid");
  }
}

TEST(GeluPlugin, AnIntegerTensorIsRefusedNamingItsDtype) {
  const GeluOp op(Approximation::none);
  for (torch::ScalarType dtype : {torch::kInt, torch::kLong, torch::kHalf}) {
    try {
      op(torch::ones({2, 3}, dtype));
      FAIL() << c10::toString(dtype) << " was accepted";
    } catch (const runner::Error& e) {
      EXPECT_EQ(e.error_class(), runner::ErrorClass::runtime);
      EXPECT_THAT(e.what(), HasSubstr("gelu: input dtype")) << e.what();
      EXPECT_THAT(e.what(), HasSubstr(c10::toString(dtype))) << e.what();
      EXPECT_THAT(std::string(e.what()), Not(HasSubstr("\n"))) << e.what();
    }
  }
}

TEST(GeluPlugin, MoreThanOneInputIsAnInternalError) {
  const GeluOp op(Approximation::tanh);
  const torch::Tensor x = torch::ones({2});
  EXPECT_THROW(op.forward({x, x}, {}), runner::RunError);
  EXPECT_THROW(op.reference({x, x}, {}), runner::RunError);
}

TEST(GeluPlugin, TheGradientOfAnIntermediateTensorFlowsBackThroughTheOp) {
  const torch::Tensor w = torch::tensor({2.0, -1.0}, torch::kDouble).requires_grad_(true);
  const torch::Tensor x = torch::tensor({0.5, 0.25}, torch::kDouble);
  gelu(w * x, Approximation::none).sum().backward();
  // d gelu(w x) / dw = x gelu'(w x); gelu'(1) = Phi(1) + phi(1), gelu'(-0.25) likewise.
  const auto slope = [](double v) {
    return 0.5 * (1 + std::erf(v / std::sqrt(2.0))) +
           v * std::exp(-v * v / 2) / std::sqrt(2 * std::acos(-1.0));
  };
  EXPECT_NEAR(w.grad()[0].item<double>(), 0.5 * slope(1.0), 1e-14);
  EXPECT_NEAR(w.grad()[1].item<double>(), 0.25 * slope(-0.25), 1e-14);
}

}  // namespace
}  // namespace gelu
