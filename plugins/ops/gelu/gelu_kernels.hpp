// gelu's CUDA kernels over raw device arrays. No LibTorch header here, so nvcc builds them
// whenever it is found, even against a CPU-only LibTorch. Each launcher enqueues one
// grid-stride kernel on `stream` and returns cudaGetLastError() (the launch's error).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "gelu_approximation.hpp"

namespace gelu {

// y[i] = gelu(x[i]) for i < n.
cudaError_t launch_gelu_forward(const float* x, float* y, int64_t n, Approximation form,
                                cudaStream_t stream);
cudaError_t launch_gelu_forward(const double* x, double* y, int64_t n, Approximation form,
                                cudaStream_t stream);

// dx[i] = dy[i] * gelu'(x[i]) for i < n.
cudaError_t launch_gelu_backward(const float* x, const float* dy, float* dx, int64_t n,
                                 Approximation form, cudaStream_t stream);
cudaError_t launch_gelu_backward(const double* x, const double* dy, double* dx, int64_t n,
                                 Approximation form, cudaStream_t stream);

}  // namespace gelu
