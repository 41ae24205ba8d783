// Op plugin "gelu": a hand-written GELU (gelu_function.hpp) as a runner::Op, in one of three
// forms chosen by the `approximate` key of [ops.gelu], with at::gelu as its reference.
#pragma once

#include <runner/op.hpp>
#include <runner/options.hpp>
#include <runner/plugin.hpp>

#include <string>
#include <vector>

#include "gelu_approximation.hpp"

namespace gelu {

// The `approximate` key's value as a form; a ConfigError naming the value and the choices
// for any other text.
Approximation approximation_from(const std::string& approximate);

// The op's keys: `approximate` = "none" | "tanh" | "sigmoid", default "none".
runner::Schema gelu_schema();

class GeluOp : public runner::Op {
 public:
  explicit GeluOp(Approximation form) : form_(form) {}
  Approximation form() const { return form_; }

  torch::Tensor forward(const std::vector<torch::Tensor>& inputs,
                        const runner::OpAttributes& attributes) const override;

  bool has_reference() const override { return true; }
  // at::gelu(x, "none" or "tanh"); x * torch::sigmoid(1.702 x) for the sigmoid form.
  torch::Tensor reference(const std::vector<torch::Tensor>& inputs,
                          const runner::OpAttributes& attributes) const override;

  // The default shapes plus one large enough to be split among threads.
  std::vector<std::vector<int64_t>> check_shapes() const override;
  double tolerance(torch::ScalarType dtype) const override;

 private:
  Approximation form_;
};

// Registers the op "gelu", version 1.0.0.
void add_gelu_op(runner::PluginBuilder& plugin);

}  // namespace gelu
