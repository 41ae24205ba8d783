// Op plugin "max_pool2d": the largest element of each window, as one runner::Op of one input
// x (N, C, H, W) or (C, H, W) with the attributes "kernel_size", "stride" and "padding",
// computed by MaxPool2dFunction (hand-written forward and backward, CPU and CUDA) and checked
// against torch::max_pool2d.
#pragma once

#include <runner/op.hpp>
#include <runner/plugin.hpp>

#include <vector>

namespace max_pool2d {

class MaxPool2dOp : public runner::Op {
 public:
  torch::Tensor forward(const std::vector<torch::Tensor>& inputs,
                        const runner::OpAttributes& attributes) const override;

  bool has_reference() const override { return true; }
  // torch::max_pool2d(x, kernel_size, stride, padding).
  torch::Tensor reference(const std::vector<torch::Tensor>& inputs,
                          const runner::OpAttributes& attributes) const override;

  std::vector<std::vector<int64_t>> check_shapes() const override;
  // For x of `shape`: 2x2 stride 2, 3x3 stride 2 (overlapping windows), 3x3 stride 1
  // padding 1, 2x3 stride (1, 2) padding (1, 0).
  std::vector<runner::OpCase> check_cases(const std::vector<int64_t>& shape,
                                          const torch::TensorOptions& options) const override;
  // Forward is exact; a gradient where windows overlap is a sum whose order may differ from
  // the reference's on a GPU.
  double tolerance(torch::ScalarType dtype) const override;
};

// Registers the op "max_pool2d" (no keys).
void add_max_pool2d_op(runner::PluginBuilder& plugin);

}  // namespace max_pool2d
