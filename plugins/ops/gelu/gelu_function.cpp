// gelu's autograd function: input checks, the device dispatch, and what backward needs.
#include "gelu_function.hpp"

#include <runner/errors.hpp>

#include <string>

#include "gelu_cpu.hpp"
#include "gelu_cuda.hpp"

namespace gelu {
namespace {

const char* const kFormKey = "approximation";

void check_input(const torch::Tensor& x) {
  const torch::ScalarType dtype = x.scalar_type();
  if (dtype != torch::kFloat && dtype != torch::kDouble)
    throw runner::Error(runner::ErrorClass::runtime,
                        std::string("gelu: input dtype ") + c10::toString(dtype) +
                            " is not supported; gelu takes Float (float32) or Double (float64)");
  if (!x.device().is_cpu() && !x.device().is_cuda())
    throw runner::Error(runner::ErrorClass::runtime, "gelu: input on " + x.device().str() +
                                                         " is not supported; gelu runs on "
                                                         "cpu and cuda");
}

torch::Tensor forward_on_device(const torch::Tensor& x, Approximation form) {
  return x.is_cuda() ? gelu_forward_cuda(x, form) : gelu_forward_cpu(x, form);
}

torch::Tensor backward_on_device(const torch::Tensor& x, const torch::Tensor& grad_output,
                                 Approximation form) {
  return x.is_cuda() ? gelu_backward_cuda(x, grad_output, form)
                     : gelu_backward_cpu(x, grad_output, form);
}

}  // namespace

torch::Tensor GeluFunction::forward(torch::autograd::AutogradContext* context,
                                    const torch::Tensor& x, Approximation form) {
  // Saved contiguous, so backward does not copy a strided input a second time.
  const torch::Tensor input = x.contiguous();
  context->save_for_backward({input});
  context->saved_data[kFormKey] = static_cast<int64_t>(form);
  return forward_on_device(input, form);
}

torch::autograd::tensor_list GeluFunction::backward(torch::autograd::AutogradContext* context,
                                                    torch::autograd::tensor_list grad_outputs) {
  const torch::Tensor x = context->get_saved_variables()[0];
  const auto form = static_cast<Approximation>(context->saved_data[kFormKey].toInt());
  // One gradient per argument of forward; the form has none.
  return {backward_on_device(x, grad_outputs[0], form), torch::Tensor()};
}

torch::Tensor gelu(const torch::Tensor& x, Approximation form) {
  check_input(x);
  return GeluFunction::apply(x, form);
}

}  // namespace gelu
