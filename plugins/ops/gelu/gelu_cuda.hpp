// gelu on CUDA tensors. gelu_cuda.cpp launches the kernels of gelu_kernels.cu when LibTorch
// has CUDA; otherwise gelu_no_cuda.cpp defines the same functions and refuses with a clear
// error. Inputs are float32 or float64 (gelu_function.cpp checks).
#pragma once

#include <torch/torch.h>

#include "gelu_approximation.hpp"

namespace gelu {

// gelu(x), contiguous, x's shape and device. A non-contiguous x is copied to a contiguous one.
torch::Tensor gelu_forward_cuda(const torch::Tensor& x, Approximation form);

// grad_output * gelu'(x), contiguous, x's shape and device.
torch::Tensor gelu_backward_cuda(const torch::Tensor& x, const torch::Tensor& grad_output,
                                 Approximation form);

}  // namespace gelu
