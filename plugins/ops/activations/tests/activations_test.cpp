// Each registered activation against its ATen function, with default and set keys; the GELUs
// also against their formulas.
#include <gtest/gtest.h>
#include <runner/errors.hpp>

#include <cmath>
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

// `formula` applied to each element of a 1-D double tensor, in plain C++.
torch::Tensor elementwise(const torch::Tensor& x, const std::function<double(double)>& formula) {
  torch::Tensor out = torch::empty_like(x);
  for (int64_t i = 0; i < x.numel(); ++i) out[i] = formula(x[i].item<double>());
  return out;
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
                                             "identity", "torch_gelu", "torch_gelu_tanh"}));
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
      {"torch_gelu", [](const torch::Tensor& x) { return torch::gelu(x); }},
      {"torch_gelu_tanh", [](const torch::Tensor& x) { return torch::gelu(x, "tanh"); }},
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

TEST_F(ActivationsTest, TorchGeluIsXTimesTheNormalCdf) {
  torch::Tensor x = torch::linspace(-6, 6, 97, torch::kFloat64);
  torch::Tensor expected = elementwise(x, [](double v) {
    double normal_cdf = 0.5 * (1 + std::erf(v / std::sqrt(2.0)));
    return v * normal_cdf;
  });
  EXPECT_TRUE(torch::allclose((*make("torch_gelu"))(x), expected, 1e-12, 1e-12));
}

TEST_F(ActivationsTest, TorchGeluTanhIsTheTanhApproximation) {
  torch::Tensor x = torch::linspace(-6, 6, 97, torch::kFloat64);
  torch::Tensor expected = elementwise(x, [](double v) {
    const double pi = std::acos(-1.0);
    double inner = std::sqrt(2 / pi) * (v + 0.044715 * v * v * v);
    return 0.5 * v * (1 + std::tanh(inner));
  });
  torch::Tensor approximated = (*make("torch_gelu_tanh"))(x);
  EXPECT_TRUE(torch::allclose(approximated, expected, 1e-12, 1e-12));
  // The approximation is close to, but not, the exact form.
  torch::Tensor exact = (*make("torch_gelu"))(x);
  EXPECT_LT((approximated - exact).abs().max().item<double>(), 1e-3);
  EXPECT_FALSE(torch::equal(approximated, exact));
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
  EXPECT_THROW(make("relu")->forward({x_, x_}, {}), runner::RunError);
}

}  // namespace
}  // namespace activations
