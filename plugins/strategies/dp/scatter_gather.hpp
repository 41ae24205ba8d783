// Cutting a batch into one chunk per device and joining the outputs, both along dim 0.
#pragma once

#include <torch/torch.h>

#include <vector>

namespace runner::strategies {

// (N, ...) -> min(N, parts) chunks (n_i, ...), in order, sizes differing by at most one. Views
// of `batch`, still on its device: each device's thread copies its own.
std::vector<torch::Tensor> scatter(const torch::Tensor& batch, size_t parts);

// (n_i, ...) on their devices -> (sum n_i, ...) on `device`. Differentiable: backward sends
// each chunk's gradient back to its device.
torch::Tensor gather(const std::vector<torch::Tensor>& chunks, torch::Device device);

}  // namespace runner::strategies
