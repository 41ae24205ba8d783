// gelu as a torch::autograd::Function with a hand-written forward and backward: forward
// saves its (contiguous) input only, backward computes grad_output * gelu'(x) from it. CPU
// tensors go to gelu_cpu.cpp, CUDA tensors to gelu_cuda.cpp.
#pragma once

#include <torch/csrc/autograd/custom_function.h>
#include <torch/torch.h>

#include "gelu_approximation.hpp"

namespace gelu {

class GeluFunction : public torch::autograd::Function<GeluFunction> {
 public:
  // x: any shape, float32 or float64, on the CPU or a CUDA device -> gelu(x), x's shape.
  static torch::Tensor forward(torch::autograd::AutogradContext* context, const torch::Tensor& x,
                               Approximation form);
  // First-order only: the gradient it returns has no graph of its own.
  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* context,
                                               torch::autograd::tensor_list grad_outputs);
};

// GeluFunction::apply after checking x: a runner::Error (runtime) naming the op and the bad
// dtype or device otherwise.
torch::Tensor gelu(const torch::Tensor& x, Approximation form);

}  // namespace gelu
