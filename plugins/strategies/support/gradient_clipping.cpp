// clip_gradient_norm: squares summed in fp64 over the shards, gradients scaled down to the limit.
#include "runner/strategies/gradient_clipping.hpp"

#include <cmath>

namespace runner::strategies {
namespace {

// The squares of the defined gradients' norms, summed in fp64; a 0-d tensor.
torch::Tensor sum_of_squares(const std::vector<torch::Tensor>& parameters) {
  std::vector<torch::Tensor> norms;
  for (const auto& p : parameters)
    if (p.grad().defined()) norms.push_back(p.grad().norm().to(torch::kFloat64));
  if (norms.empty()) return torch::zeros({}, torch::kFloat64);
  return torch::stack(norms).square().sum();
}

void scale_gradients(const std::vector<torch::Tensor>& parameters, double factor) {
  for (const auto& p : parameters)
    if (p.grad().defined()) p.grad().mul_(factor);
}

}  // namespace

double clip_gradient_norm(const std::vector<torch::Tensor>& parameters, double max_norm,
                          const SumOverShards& sum, const std::vector<torch::Tensor>& whole) {
  torch::NoGradGuard no_grad;
  torch::Tensor squares = sum_of_squares(parameters);
  if (sum) sum(squares);
  const double norm = std::sqrt(squares.item<double>() + sum_of_squares(whole).item<double>());
  if (norm > max_norm && std::isfinite(norm)) {
    scale_gradients(parameters, max_norm / norm);
    scale_gradients(whole, max_norm / norm);
  }
  return norm;
}

}  // namespace runner::strategies
