// The two implementations behind FusedConvReluFunction, one per device: conv_cpu.cpp, and
// conv_cuda.cpp in a build with CUDA (conv_no_cuda.cpp, which refuses, in one without).
// Inputs are checked by check_inputs() first; these only compute.
#pragma once

#include <torch/torch.h>

#include "conv_shape.hpp"

namespace fused_conv_relu {

// Which gradients backward computes: those of the inputs that require one.
struct NeededGradients {
  bool x = false;
  bool weight = false;
  bool bias = false;
};

// Gradients of x, weight and bias; undefined where not needed.
struct ConvGradients {
  torch::Tensor x, weight, bias;
};

// relu(conv2d(x, weight) + bias) (N, O, Ho, Wo); bias may be undefined.
torch::Tensor conv_relu_forward_cpu(const torch::Tensor& x, const torch::Tensor& weight,
                                    const torch::Tensor& bias, const ConvShape& shape);
// The gradients from the forward's output y (the ReLU's mask) and grad_y.
ConvGradients conv_relu_backward_cpu(const torch::Tensor& x, const torch::Tensor& weight,
                                     const torch::Tensor& y, const torch::Tensor& grad_y,
                                     const ConvShape& shape, const NeededGradients& needed);

torch::Tensor conv_relu_forward_cuda(const torch::Tensor& x, const torch::Tensor& weight,
                                     const torch::Tensor& bias, const ConvShape& shape);
ConvGradients conv_relu_backward_cuda(const torch::Tensor& x, const torch::Tensor& weight,
                                      const torch::Tensor& y, const torch::Tensor& grad_y,
                                      const ConvShape& shape, const NeededGradients& needed);

}  // namespace fused_conv_relu
