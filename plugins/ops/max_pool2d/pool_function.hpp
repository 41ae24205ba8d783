// max_pool2d as a torch::autograd::Function with a hand-written forward and backward, on the
// CPU or the GPU the input is on. Saves the argmax indices (int32) and the input's sizes for
// backward, not the input.
#pragma once

#include <torch/csrc/autograd/custom_function.h>
#include <torch/torch.h>

#include "pool_geometry.hpp"

namespace max_pool2d {

class MaxPool2dFunction : public torch::autograd::Function<MaxPool2dFunction> {
 public:
  // x (N, C, H, W) or (C, H, W) that passed check_input() -> (N, C, Ho, Wo) or (C, Ho, Wo).
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                               const PoolAttributes& attributes);
  // The gradient of x, none for the attributes.
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs);
};

// Checks the input (a RunError naming the problem) and applies the function.
torch::Tensor max_pool2d(const torch::Tensor& x, const PoolAttributes& attributes);

}  // namespace max_pool2d
