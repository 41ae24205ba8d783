#include "runner/strategies/gradient_clipping.hpp"

#include <cmath>

namespace runner::strategies {

double clip_gradient_norm(const std::vector<torch::Tensor>& parameters, double max_norm,
                          const SumOverShards& sum) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> norms;  // each gradient's norm, then squared in fp64
  for (const auto& p : parameters)
    if (p.grad().defined()) norms.push_back(p.grad().norm().to(torch::kFloat64));
  if (norms.empty()) return 0.0;
  torch::Tensor squares = torch::stack(norms).square().sum();
  if (sum) sum(squares);
  const double norm = std::sqrt(squares.item<double>());
  if (norm > max_norm && std::isfinite(norm))
    for (const auto& p : parameters)
      if (p.grad().defined()) p.grad().mul_(max_norm / norm);
  return norm;
}

}  // namespace runner::strategies
