// Op plugin "fused_conv_relu": relu(conv2d(x, weight) + bias) as one runner::Op of three
// inputs {x (N, C, H, W), weight (O, C, kh, kw), bias (O) or undefined} with the attributes
// "stride" and "padding", computed by FusedConvReluFunction (hand-written forward and
// backward, CPU and CUDA) and checked against conv2d then relu.
#pragma once

#include <runner/op.hpp>
#include <runner/plugin.hpp>

#include <vector>

namespace fused_conv_relu {

class FusedConvReluOp : public runner::Op {
 public:
  int arity() const override { return 3; }
  torch::Tensor forward(const std::vector<torch::Tensor>& inputs,
                        const runner::OpAttributes& attributes) const override;

  bool has_reference() const override { return true; }
  // torch::relu(torch::conv2d(x, weight, bias, stride, padding)).
  torch::Tensor reference(const std::vector<torch::Tensor>& inputs,
                          const runner::OpAttributes& attributes) const override;

  std::vector<std::vector<int64_t>> check_shapes() const override;
  // For x of `shape`: 3x3 kernels with padding 0 and 1, stride 1 and 2, a 1x1 and a 2x3
  // kernel, with and without bias.
  std::vector<runner::OpCase> check_cases(const std::vector<int64_t>& shape,
                                          const torch::TensorOptions& options) const override;
  double tolerance(torch::ScalarType dtype) const override;
};

// Registers the op "fused_conv_relu" (no keys).
void add_fused_conv_relu_op(runner::PluginBuilder& plugin);

}  // namespace fused_conv_relu
