// Op plugin "activations": the built-in activations, each a thin runner::Op over its ATen
// function (ATen gives forward and backward). Hand-written ops are separate plugins.
#pragma once

#include <runner/op.hpp>
#include <runner/plugin.hpp>

#include <functional>
#include <vector>

namespace activations {

// An op of one tensor that applies an elementwise function.
class UnaryOp : public runner::Op {
 public:
  using Function = std::function<torch::Tensor(const torch::Tensor&)>;

  explicit UnaryOp(Function function) : function_(std::move(function)) {}
  torch::Tensor forward(const std::vector<torch::Tensor>& inputs,
                        const runner::OpAttributes& attributes) const override;

 private:
  Function function_;
};

// Registers relu, tanh, sigmoid, silu, leaky_relu, elu, identity, torch_gelu and
// torch_gelu_tanh.
void add_activation_ops(runner::PluginBuilder& plugin);

}  // namespace activations
