// What the gelu tests share: the forms by name, the relative error that check-op uses, and
// gradients of a function of one tensor.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "gelu_op.hpp"

namespace gelu::test {

inline const std::vector<std::pair<std::string, Approximation>>& forms() {
  static const std::vector<std::pair<std::string, Approximation>> all = {
      {"none", Approximation::none},
      {"tanh", Approximation::tanh},
      {"sigmoid", Approximation::sigmoid}};
  return all;
}

// max |actual - expected| / max |expected|, as op.hpp defines check-op's error; 0 for empty
// tensors and for an exact match.
inline double relative_error(const torch::Tensor& actual, const torch::Tensor& expected) {
  if (expected.numel() == 0) return 0;
  const double difference = (actual - expected).abs().max().item<double>();
  if (difference == 0) return 0;
  return difference / expected.abs().max().item<double>();
}

using UnaryFunction = std::function<torch::Tensor(const torch::Tensor&)>;

struct ValueAndGradient {
  torch::Tensor value;
  torch::Tensor gradient;
};

// f(x) and d sum(grad_output * f(x)) / dx, x a leaf copy of `x` (its strides kept).
inline ValueAndGradient value_and_gradient(const UnaryFunction& f, const torch::Tensor& x,
                                           const torch::Tensor& grad_output) {
  torch::Tensor leaf = x.detach().requires_grad_(true);
  torch::Tensor value = f(leaf);
  value.backward(grad_output);
  return {value.detach(), leaf.grad()};
}

}  // namespace gelu::test
