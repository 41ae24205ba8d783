// Each registered activation against its ATen function, with default and set keys.
#include <gtest/gtest.h>
#include <runner/errors.hpp>

#include <functional>
#include <map>

#include "activations.hpp"

namespace activations {
namespace {

using Reference = std::function<torch::Tensor(const torch::Tensor&)>;

const runner::Component& component(const runner::PluginBuilder& plugin, const std::string& name) {
  for (const runner::Component& c : plugin.components())
    if (c.name == name) return c;
  throw std::runtime_error("no component " + name);
}

// The options the host would pass: every key at its default, then `overrides`.
runner::Options options_for(const runner::Component& op,
                            const std::map<std::string, double>& overrides = {}) {
  runner::Options options("ops." + op.name);
  for (const runner::KeySpec& key : op.schema.keys()) options.set(key.name, *key.default_value);
  for (const auto& [key, value] : overrides) options.set(key, value);
  return options;
}

class ActivationsTest : public ::testing::Test {
 protected:
  void SetUp() override { add_activation_ops(plugin_); }

  std::shared_ptr<runner::Op> make(const std::string& name,
                                   const std::map<std::string, double>& overrides = {}) const {
    const runner::Component& op = component(plugin_, name);
    return op.make_op(options_for(op, overrides));
  }

  runner::PluginBuilder plugin_;
  torch::Tensor x_ = torch::linspace(-4, 4, 81).reshape({9, 9});  // negatives, 0, positives
};

TEST_F(ActivationsTest, RegistersEveryBuiltInAsAnOpOfOneInput) {
  std::vector<std::string> names;
  for (const runner::Component& c : plugin_.components()) {
    EXPECT_EQ(c.kind, runner::Kind::op) << c.name;
    names.push_back(c.name);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"relu", "tanh", "sigmoid", "silu", "leaky_relu", "elu",
                                             "identity"}));
  for (const std::string& name : names) EXPECT_EQ(make(name)->arity(), 1) << name;
}

TEST_F(ActivationsTest, EachOpEqualsItsAtenFunctionWithDefaultKeys) {
  const std::map<std::string, Reference> references = {
      {"relu", [](const torch::Tensor& x) { return torch::relu(x); }},
      {"tanh", [](const torch::Tensor& x) { return torch::tanh(x); }},
      {"sigmoid", [](const torch::Tensor& x) { return torch::sigmoid(x); }},
      {"silu", [](const torch::Tensor& x) { return torch::silu(x); }},
      {"leaky_relu", [](const torch::Tensor& x) { return torch::leaky_relu(x, 0.01); }},
      {"elu", [](const torch::Tensor& x) { return torch::elu(x, 1.0); }},
      {"identity", [](const torch::Tensor& x) { return x; }},
  };
  ASSERT_EQ(references.size(), plugin_.components().size());
  for (const auto& [name, reference] : references)
    EXPECT_TRUE(torch::equal((*make(name))(x_), reference(x_))) << name;
}

TEST_F(ActivationsTest, LeakyReluScalesNegativesByTheNegativeSlopeKey) {
  std::shared_ptr<runner::Op> op = make("leaky_relu", {{"negative_slope", 0.2}});
  EXPECT_TRUE(torch::equal((*op)(x_), torch::leaky_relu(x_, 0.2)));
  EXPECT_FLOAT_EQ((*op)(torch::tensor({-3.0f}))[0].item<float>(), -0.6f);
  EXPECT_FLOAT_EQ((*op)(torch::tensor({3.0f}))[0].item<float>(), 3.0f);
}

TEST_F(ActivationsTest, EluUsesTheAlphaKey) {
  std::shared_ptr<runner::Op> op = make("elu", {{"alpha", 0.5}});
  EXPECT_TRUE(torch::equal((*op)(x_), torch::elu(x_, 0.5)));
  EXPECT_FALSE(torch::equal((*op)(x_), torch::elu(x_, 1.0)));
}

TEST_F(ActivationsTest, DefaultsAreDeclaredInTheSchema) {
  EXPECT_EQ(std::get<double>(
                *component(plugin_, "leaky_relu").schema.find("negative_slope")->default_value),
            0.01);
  EXPECT_EQ(std::get<double>(*component(plugin_, "elu").schema.find("alpha")->default_value), 1.0);
  EXPECT_TRUE(component(plugin_, "relu").schema.keys().empty());
}

TEST_F(ActivationsTest, GradientsFlowThroughEveryOp) {
  for (const runner::Component& c : plugin_.components()) {
    torch::Tensor x = x_.clone().requires_grad_(true);
    (*make(c.name))(x).sum().backward();
    ASSERT_TRUE(x.grad().defined()) << c.name;
    EXPECT_GT(x.grad().abs().sum().item<double>(), 0.0) << c.name;
  }
}

TEST_F(ActivationsTest, MoreThanOneInputIsAnInternalError) {
  EXPECT_THROW(make("relu")->forward({x_, x_}), runner::RunError);
}

}  // namespace
}  // namespace activations
