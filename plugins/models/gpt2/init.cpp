// The residual projections' scaled-down std, and linears of normal weights and zero biases.
#include "init.hpp"

#include <cmath>

namespace gpt2 {

double residual_projection_std(int64_t layers) {
  return kInitStd / std::sqrt(2.0 * static_cast<double>(layers));
}

torch::nn::Linear normal_linear(int64_t in, int64_t out, double std) {
  torch::nn::Linear linear(in, out);
  torch::NoGradGuard no_grad;
  linear->weight.normal_(0.0, std);
  linear->bias.zero_();
  return linear;
}

}  // namespace gpt2
