// GPT-2's initialization: weights from normal(0, 0.02), biases zero, and the projections that
// write into the residual stream scaled down by sqrt(2 * layers), so that the stream's variance
// does not grow with depth.
#pragma once

#include <torch/torch.h>

namespace gpt2 {

constexpr double kInitStd = 0.02;

// Standard deviation of the weights of the projections that add into the residual stream
// (two per block).
double residual_projection_std(int64_t layers);

// A linear layer with a bias, its weight from normal(0, std), its bias zero.
torch::nn::Linear normal_linear(int64_t in, int64_t out, double std);

}  // namespace gpt2
