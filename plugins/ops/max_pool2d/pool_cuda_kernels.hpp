// The CUDA kernels of max_pool2d over raw device pointers to contiguous tensors, each launched
// on `stream`. No LibTorch header: nvcc builds them even where LibTorch has no CUDA.
// x and grad_x (planes, H, W); y, grad_y and indices (planes, Ho, Wo).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "pool_shape.hpp"

namespace max_pool2d::cuda_kernels {

// y = the maximum of each window (a NaN if the window holds one), indices = its flat index in
// the H x W plane, scanned as on the CPU: one thread per output.
void max_pool_forward(const float* x, float* y, int32_t* indices, const PoolShape& shape,
                      cudaStream_t stream);
void max_pool_forward(const double* x, double* y, int32_t* indices, const PoolShape& shape,
                      cudaStream_t stream);

// grad_x = the sum of grad_y over the outputs whose index is that element: one thread per
// input element gathers from the windows that cover it, in output order, without atomics.
void max_pool_backward(const float* grad_y, const int32_t* indices, float* grad_x,
                       const PoolShape& shape, cudaStream_t stream);
void max_pool_backward(const double* grad_y, const int32_t* indices, double* grad_x,
                       const PoolShape& shape, cudaStream_t stream);

}  // namespace max_pool2d::cuda_kernels
