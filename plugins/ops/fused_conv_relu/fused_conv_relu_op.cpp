// FusedConvReluOp: forward, its conv2d-then-relu reference, check-op's cases, and its registration.
#include "fused_conv_relu_op.hpp"

#include <runner/errors.hpp>

#include <memory>

#include "conv_function.hpp"
#include "conv_geometry.hpp"

namespace fused_conv_relu {
namespace {

void check_arity(const std::vector<torch::Tensor>& inputs) {
  if (inputs.size() != 3)
    throw runner::RunError("fused_conv_relu: takes 3 inputs {x, weight, bias}, got " +
                           std::to_string(inputs.size()));
}

runner::OpCase make_case(const torch::Tensor& x, int64_t out_channels, int64_t kh, int64_t kw,
                         bool with_bias, int64_t stride, int64_t padding) {
  const torch::TensorOptions options = x.options();
  torch::Tensor weight = torch::randn({out_channels, x.size(1), kh, kw}, options);
  torch::Tensor bias = with_bias ? torch::randn({out_channels}, options) : torch::Tensor();
  runner::OpAttributes attributes;
  attributes.set("stride", {stride, stride}).set("padding", {padding, padding});
  return runner::OpCase{{x, weight, bias}, attributes};
}

}  // namespace

torch::Tensor FusedConvReluOp::forward(const std::vector<torch::Tensor>& inputs,
                                       const runner::OpAttributes& attributes) const {
  check_arity(inputs);
  return fused_conv_relu(inputs[0], inputs[1], inputs[2], parse_attributes(attributes));
}

torch::Tensor FusedConvReluOp::reference(const std::vector<torch::Tensor>& inputs,
                                         const runner::OpAttributes& attributes) const {
  check_arity(inputs);
  const ConvAttributes a = parse_attributes(attributes);
  return torch::relu(
      torch::conv2d(inputs[0], inputs[1], inputs[2], {a.stride_h, a.stride_w}, {a.pad_h, a.pad_w}));
}

std::vector<std::vector<int64_t>> FusedConvReluOp::check_shapes() const {
  return {{1, 1, 5, 7}, {2, 3, 8, 8}, {3, 4, 9, 11}};
}

std::vector<runner::OpCase> FusedConvReluOp::check_cases(
    const std::vector<int64_t>& shape, const torch::TensorOptions& options) const {
  const torch::Tensor x = torch::randn(shape, options);
  // The first case, which check-op times, is a layer of conv_stack: 3x3, padding 1, as many
  // output channels as input channels (16 for a 1-channel image).
  const int64_t layer_channels = shape.size() == 4 && shape[1] > 1 ? shape[1] : 16;
  return {make_case(x, layer_channels, 3, 3, true, 1, 1), make_case(x, 4, 3, 3, false, 1, 0),
          make_case(x, 4, 3, 3, true, 2, 1), make_case(x, 3, 1, 1, true, 1, 0),
          make_case(x, 5, 2, 3, false, 2, 1)};
}

double FusedConvReluOp::tolerance(torch::ScalarType dtype) const {
  return dtype == torch::kDouble ? 1e-12 : 1e-5;
}

void add_fused_conv_relu_op(runner::PluginBuilder& plugin) {
  plugin.add_op("fused_conv_relu", "1.0.0",
                "relu(conv2d(x, weight) + bias) in one op; attributes stride and padding",
                runner::Schema{},
                [](const runner::Options&) { return std::make_shared<FusedConvReluOp>(); });
}

}  // namespace fused_conv_relu
