// relu(conv2d(x, weight) + bias) as one torch::autograd::Function with a hand-written
// forward and backward, on the CPU or the GPU the tensors are on. Saves x, the weight and the
// output (the ReLU's mask) for backward, not the pre-activation.
#pragma once

#include <torch/csrc/autograd/custom_function.h>
#include <torch/torch.h>

#include "conv_geometry.hpp"

namespace fused_conv_relu {

class FusedConvReluFunction : public torch::autograd::Function<FusedConvReluFunction> {
 public:
  // x (N, C, H, W), weight (O, C, kh, kw), bias (O) or none -> (N, O, Ho, Wo), on inputs
  // that passed check_inputs(). The bias is optional, not an undefined tensor, because
  // LibTorch 1.13's Function::apply cannot take an undefined tensor.
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                               const torch::Tensor& weight,
                               const c10::optional<torch::Tensor>& bias,
                               const ConvAttributes& attributes);
  // Gradients of x, weight and bias (each only when that input requires one), none for the
  // attributes.
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs);
};

// Checks the inputs (a RunError naming the problem) and applies the function; bias may be
// undefined.
torch::Tensor fused_conv_relu(const torch::Tensor& x, const torch::Tensor& weight,
                              const torch::Tensor& bias, const ConvAttributes& attributes);

}  // namespace fused_conv_relu
