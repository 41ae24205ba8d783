// The two implementations behind MaxPool2dFunction, one per device: pool_cpu.cpp, and
// pool_cuda.cpp in a build with CUDA (pool_no_cuda.cpp, which refuses, in one without). The
// input is checked by check_input() first; these only compute.
#pragma once

#include <torch/torch.h>

#include "pool_shape.hpp"

namespace max_pool2d {

struct PoolResult {
  torch::Tensor output;   // x's leading dims, then (Ho, Wo)
  torch::Tensor indices;  // int32, like output: the flat H x W index of each window's maximum
};

PoolResult max_pool_forward_cpu(const torch::Tensor& x, const PoolShape& shape);
// grad_x of `input_sizes`: grad_y added at the indices.
torch::Tensor max_pool_backward_cpu(const torch::Tensor& grad_y, const torch::Tensor& indices,
                                    torch::IntArrayRef input_sizes, const PoolShape& shape);

PoolResult max_pool_forward_cuda(const torch::Tensor& x, const PoolShape& shape);
torch::Tensor max_pool_backward_cuda(const torch::Tensor& grad_y, const torch::Tensor& indices,
                                     torch::IntArrayRef input_sizes, const PoolShape& shape);

// The output's sizes: x's leading dims (N, C or C), then (Ho, Wo).
inline std::vector<int64_t> output_sizes(torch::IntArrayRef input_sizes, const PoolShape& shape) {
  std::vector<int64_t> sizes(input_sizes.begin(), input_sizes.end() - 2);
  sizes.push_back(shape.out_h);
  sizes.push_back(shape.out_w);
  return sizes;
}

}  // namespace max_pool2d
