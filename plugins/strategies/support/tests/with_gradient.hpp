// A parameter holding a given gradient, for the tests of what strategies do to gradients.
#pragma once

#include <torch/torch.h>

namespace runner::strategies::testing {

inline torch::Tensor with_gradient(torch::Tensor grad) {
  torch::Tensor p = torch::zeros_like(grad).requires_grad_(true);
  p.mutable_grad() = std::move(grad);
  return p;
}

}  // namespace runner::strategies::testing
