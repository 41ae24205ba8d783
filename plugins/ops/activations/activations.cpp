// UnaryOp and the registration of relu, tanh, sigmoid, silu, leaky_relu, elu and identity.
#include "activations.hpp"

#include <runner/errors.hpp>

#include <memory>

namespace activations {
namespace {

const char* const kVersion = "1.0.0";

void add_fixed(runner::PluginBuilder& plugin, const char* name, const char* description,
               const UnaryOp::Function& function) {
  plugin.add_op(name, kVersion, description, runner::Schema{},
                [function](const runner::Options&) { return std::make_shared<UnaryOp>(function); });
}

void add_leaky_relu(runner::PluginBuilder& plugin) {
  runner::Schema schema;
  schema.number("negative_slope", 0.01, "slope for x < 0");
  plugin.add_op("leaky_relu", kVersion, "x for x >= 0, negative_slope * x below", schema,
                [](const runner::Options& options) {
                  double slope = options.get_double("negative_slope");
                  return std::make_shared<UnaryOp>(
                      [slope](const torch::Tensor& x) { return torch::leaky_relu(x, slope); });
                });
}

void add_elu(runner::PluginBuilder& plugin) {
  runner::Schema schema;
  schema.number("alpha", 1.0, "value approached as x -> -inf");
  plugin.add_op("elu", kVersion, "x for x > 0, alpha * (exp(x) - 1) below", schema,
                [](const runner::Options& options) {
                  double alpha = options.get_double("alpha");
                  return std::make_shared<UnaryOp>(
                      [alpha](const torch::Tensor& x) { return torch::elu(x, alpha); });
                });
}

}  // namespace

torch::Tensor UnaryOp::forward(const std::vector<torch::Tensor>& inputs,
                               const runner::OpAttributes& /*attributes*/) const {
  RUNNER_CHECK(inputs.size() == 1,
               "an activation takes one tensor, got " + std::to_string(inputs.size()));
  return function_(inputs[0]);
}

void add_activation_ops(runner::PluginBuilder& plugin) {
  add_fixed(plugin, "relu", "max(x, 0)", [](const torch::Tensor& x) { return torch::relu(x); });
  add_fixed(plugin, "tanh", "hyperbolic tangent",
            [](const torch::Tensor& x) { return torch::tanh(x); });
  add_fixed(plugin, "sigmoid", "1 / (1 + exp(-x))",
            [](const torch::Tensor& x) { return torch::sigmoid(x); });
  add_fixed(plugin, "silu", "x * sigmoid(x), also called swish",
            [](const torch::Tensor& x) { return torch::silu(x); });
  add_leaky_relu(plugin);
  add_elu(plugin);
  add_fixed(plugin, "identity", "x unchanged: a model without activation",
            [](const torch::Tensor& x) { return x; });
  add_fixed(plugin, "torch_gelu", "x * Phi(x), Phi the standard normal CDF (exact, with erf)",
            [](const torch::Tensor& x) { return torch::gelu(x); });
  add_fixed(plugin, "torch_gelu_tanh",
            "0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))), GELU as GPT-2 has it",
            [](const torch::Tensor& x) { return torch::gelu(x, "tanh"); });
}

}  // namespace activations
