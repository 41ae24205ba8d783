// FusedConvReluFunction's forward and backward through the CPU or CUDA kernels, and the call.
#include "conv_function.hpp"

#include "conv_backends.hpp"

namespace fused_conv_relu {
namespace {

std::vector<int64_t> attribute_values(const ConvAttributes& a) {
  return {a.stride_h, a.stride_w, a.pad_h, a.pad_w};
}

ConvAttributes attributes_from(const std::vector<int64_t>& v) { return {v[0], v[1], v[2], v[3]}; }

}  // namespace

torch::Tensor FusedConvReluFunction::forward(torch::autograd::AutogradContext* ctx,
                                             const torch::Tensor& x, const torch::Tensor& weight,
                                             const c10::optional<torch::Tensor>& bias,
                                             const ConvAttributes& attributes) {
  const ConvShape shape = conv_shape(x, weight, attributes);
  const torch::Tensor b = bias.value_or(torch::Tensor());
  torch::Tensor y = x.is_cuda() ? conv_relu_forward_cuda(x, weight, b, shape)
                                : conv_relu_forward_cpu(x, weight, b, shape);
  ctx->saved_data["attributes"] = attribute_values(attributes);
  ctx->saved_data["has_bias"] = bias.has_value();
  ctx->save_for_backward({x, weight, y});
  return y;
}

torch::autograd::variable_list FusedConvReluFunction::backward(
    torch::autograd::AutogradContext* ctx, torch::autograd::variable_list grad_outputs) {
  const torch::autograd::variable_list saved = ctx->get_saved_variables();
  const torch::Tensor &x = saved[0], &weight = saved[1], &y = saved[2];
  const ConvShape shape =
      conv_shape(x, weight, attributes_from(ctx->saved_data["attributes"].toIntVector()));
  // Edges follow the tensor inputs: x, weight, then the bias when there is one.
  const NeededGradients needed{ctx->needs_input_grad(0), ctx->needs_input_grad(1),
                               ctx->saved_data["has_bias"].toBool() && ctx->needs_input_grad(2)};
  const torch::Tensor& grad_y = grad_outputs[0];
  const ConvGradients grads = y.is_cuda()
                                  ? conv_relu_backward_cuda(x, weight, y, grad_y, shape, needed)
                                  : conv_relu_backward_cpu(x, weight, y, grad_y, shape, needed);
  return {grads.x, grads.weight, grads.bias, torch::Tensor()};
}

torch::Tensor fused_conv_relu(const torch::Tensor& x, const torch::Tensor& weight,
                              const torch::Tensor& bias, const ConvAttributes& attributes) {
  check_inputs(x, weight, bias, attributes);
  const c10::optional<torch::Tensor> optional_bias =
      bias.defined() ? c10::optional<torch::Tensor>(bias) : c10::nullopt;
  return FusedConvReluFunction::apply(x, weight, optional_bias, attributes);
}

}  // namespace fused_conv_relu
