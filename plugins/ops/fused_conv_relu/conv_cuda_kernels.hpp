// The CUDA kernels of fused_conv_relu over raw device pointers to contiguous tensors, each
// launched on `stream`. No LibTorch header: nvcc builds them even where LibTorch has no CUDA.
// x (N, C, H, W), weight (O, C, kh, kw), bias (O) or null, y and g (N, O, Ho, Wo).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "conv_shape.hpp"

namespace fused_conv_relu::cuda_kernels {

// y = relu(conv(x, weight) + bias), one thread per output element.
void conv_relu_forward(const float* x, const float* weight, const float* bias, float* y,
                       const ConvShape& shape, cudaStream_t stream);
void conv_relu_forward(const double* x, const double* weight, const double* bias, double* y,
                       const ConvShape& shape, cudaStream_t stream);

// g = grad_y * (y > 0), `count` elements.
void relu_mask(const float* grad_y, const float* y, float* g, int64_t count, cudaStream_t stream);
void relu_mask(const double* grad_y, const double* y, double* g, int64_t count,
               cudaStream_t stream);

// grad_x (N, C, H, W) from g: each thread gathers the outputs its input element fed.
void conv_input_grad(const float* g, const float* weight, float* grad_x, const ConvShape& shape,
                     cudaStream_t stream);
void conv_input_grad(const double* g, const double* weight, double* grad_x, const ConvShape& shape,
                     cudaStream_t stream);

// grad_weight (O, C, kh, kw) = sum over samples and outputs of g * x: one block per weight.
void conv_weight_grad(const float* g, const float* x, float* grad_weight, const ConvShape& shape,
                      cudaStream_t stream);
void conv_weight_grad(const double* g, const double* x, double* grad_weight, const ConvShape& shape,
                      cudaStream_t stream);

// grad_bias (O) = sum of g over samples and outputs: one block per channel.
void conv_bias_grad(const float* g, float* grad_bias, const ConvShape& shape, cudaStream_t stream);
void conv_bias_grad(const double* g, double* grad_bias, const ConvShape& shape,
                    cudaStream_t stream);

}  // namespace fused_conv_relu::cuda_kernels
