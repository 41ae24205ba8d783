// MaxPool2dFunction's forward and backward through the CPU or CUDA kernels, and max_pool2d().
#include "pool_function.hpp"

#include "pool_backends.hpp"

namespace max_pool2d {
namespace {

std::vector<int64_t> attribute_values(const PoolAttributes& a) {
  return {a.kernel_h, a.kernel_w, a.stride_h, a.stride_w, a.pad_h, a.pad_w};
}

PoolAttributes attributes_from(const std::vector<int64_t>& v) {
  return {v[0], v[1], v[2], v[3], v[4], v[5]};
}

}  // namespace

torch::Tensor MaxPool2dFunction::forward(torch::autograd::AutogradContext* ctx,
                                         const torch::Tensor& x, const PoolAttributes& attributes) {
  const PoolShape shape = pool_shape(x.sizes(), attributes);
  const PoolResult result =
      x.is_cuda() ? max_pool_forward_cuda(x, shape) : max_pool_forward_cpu(x, shape);
  ctx->saved_data["attributes"] = attribute_values(attributes);
  ctx->saved_data["input_sizes"] = x.sizes().vec();
  ctx->save_for_backward({result.indices});
  return result.output;
}

torch::autograd::variable_list MaxPool2dFunction::backward(
    torch::autograd::AutogradContext* ctx, torch::autograd::variable_list grad_outputs) {
  const torch::Tensor indices = ctx->get_saved_variables()[0];
  const std::vector<int64_t> input_sizes = ctx->saved_data["input_sizes"].toIntVector();
  const PoolShape shape =
      pool_shape(input_sizes, attributes_from(ctx->saved_data["attributes"].toIntVector()));
  const torch::Tensor& grad_y = grad_outputs[0];
  torch::Tensor grad_x = grad_y.is_cuda()
                             ? max_pool_backward_cuda(grad_y, indices, input_sizes, shape)
                             : max_pool_backward_cpu(grad_y, indices, input_sizes, shape);
  return {grad_x, torch::Tensor()};
}

torch::Tensor max_pool2d(const torch::Tensor& x, const PoolAttributes& attributes) {
  check_input(x, attributes);
  return MaxPool2dFunction::apply(x, attributes);
}

}  // namespace max_pool2d
