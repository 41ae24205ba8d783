// MaxPool2dOp: forward, its torch::max_pool2d reference, check-op's cases, and its registration.
#include "max_pool2d_op.hpp"

#include <runner/errors.hpp>

#include <memory>

#include "pool_function.hpp"
#include "pool_geometry.hpp"

namespace max_pool2d {
namespace {

void check_arity(const std::vector<torch::Tensor>& inputs) {
  if (inputs.size() != 1)
    throw runner::RunError("max_pool2d: takes 1 input {x}, got " + std::to_string(inputs.size()));
}

runner::OpCase make_case(const torch::Tensor& x, std::vector<int64_t> kernel,
                         std::vector<int64_t> stride, std::vector<int64_t> padding) {
  runner::OpAttributes attributes;
  attributes.set("kernel_size", std::move(kernel))
      .set("stride", std::move(stride))
      .set("padding", std::move(padding));
  return runner::OpCase{{x}, attributes};
}

}  // namespace

torch::Tensor MaxPool2dOp::forward(const std::vector<torch::Tensor>& inputs,
                                   const runner::OpAttributes& attributes) const {
  check_arity(inputs);
  return max_pool2d(inputs[0], parse_attributes(attributes));
}

torch::Tensor MaxPool2dOp::reference(const std::vector<torch::Tensor>& inputs,
                                     const runner::OpAttributes& attributes) const {
  check_arity(inputs);
  const PoolAttributes a = parse_attributes(attributes);
  return torch::max_pool2d(inputs[0], {a.kernel_h, a.kernel_w}, {a.stride_h, a.stride_w},
                           {a.pad_h, a.pad_w});
}

std::vector<std::vector<int64_t>> MaxPool2dOp::check_shapes() const {
  return {{1, 1, 5, 7}, {2, 3, 8, 8}, {3, 2, 9, 11}};
}

std::vector<runner::OpCase> MaxPool2dOp::check_cases(const std::vector<int64_t>& shape,
                                                     const torch::TensorOptions& options) const {
  const torch::Tensor x = torch::randn(shape, options);  // no ties among random values
  return {make_case(x, {2, 2}, {2, 2}, {0, 0}), make_case(x, {3, 3}, {2, 2}, {0, 0}),
          make_case(x, {3, 3}, {1, 1}, {1, 1}), make_case(x, {2, 3}, {1, 2}, {1, 0})};
}

double MaxPool2dOp::tolerance(torch::ScalarType dtype) const {
  return dtype == torch::kDouble ? 1e-14 : 1e-6;
}

void add_max_pool2d_op(runner::PluginBuilder& plugin) {
  plugin.add_op("max_pool2d", "1.0.0",
                "the largest element of each window; attributes kernel_size, stride, padding",
                runner::Schema{},
                [](const runner::Options&) { return std::make_shared<MaxPool2dOp>(); });
}

}  // namespace max_pool2d
