// gelu on CPU tensors: the glue between tensors and the kernel copy (DEFAULT, AVX2, AVX512)
// this processor runs. Inputs are float32 or float64 (gelu_function.cpp checks).
#pragma once

#include <torch/torch.h>

#include "gelu_approximation.hpp"

namespace gelu {

// gelu(x), contiguous, x's shape. A non-contiguous x is copied to a contiguous one first.
torch::Tensor gelu_forward_cpu(const torch::Tensor& x, Approximation form);

// grad_output * gelu'(x), contiguous, x's shape; either input is made contiguous first.
// When grad_output had to be copied, the result is written over that copy.
torch::Tensor gelu_backward_cpu(const torch::Tensor& x, const torch::Tensor& grad_output,
                                Approximation form);

}  // namespace gelu
