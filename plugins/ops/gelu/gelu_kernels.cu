// gelu's CUDA kernels: one thread per element in a grid-stride loop, the form a template
// argument so each kernel holds one formula. Same formulas as the CPU kernels
// (gelu_cpu_kernels.cpp), in float with the single-precision math functions, in double with
// the double ones.
#include "gelu_kernels.hpp"

#include "cuda_grid.cuh"

namespace gelu {
namespace {

using op_support::blocks_for;
using op_support::global_index;
using op_support::global_stride;
using op_support::kThreads;

constexpr double kInvSqrt2 = 0.70710678118654752440;     // 1 / sqrt(2)
constexpr double kInvSqrt2Pi = 0.39894228040143267794;   // 1 / sqrt(2 pi)
constexpr double kSqrt2OverPi = 0.79788456080286535588;  // sqrt(2 / pi)
constexpr double kTanhCubic = 0.044715;                  // the x^3 coefficient of the tanh form
constexpr double kSigmoidScale = 1.702;                  // x * sigmoid(1.702 x)

__device__ inline float erf_of(float v) { return erff(v); }
__device__ inline double erf_of(double v) { return erf(v); }
__device__ inline float exp_of(float v) { return expf(v); }
__device__ inline double exp_of(double v) { return exp(v); }
__device__ inline float tanh_of(float v) { return tanhf(v); }
__device__ inline double tanh_of(double v) { return tanh(v); }

// sqrt(2 / pi) (x + 0.044715 x^3)
template <typename T>
__device__ T tanh_argument(T x) {
  return T(kSqrt2OverPi) * (x + T(kTanhCubic) * x * x * x);
}

// sigmoid(1.702 x)
template <typename T>
__device__ T scaled_sigmoid(T x) {
  return T(1) / (T(1) + exp_of(-T(kSigmoidScale) * x));
}

template <Approximation form, typename T>
__device__ T gelu_value(T x) {
  if constexpr (form == Approximation::none) {
    return x * T(0.5) * (T(1) + erf_of(x * T(kInvSqrt2)));
  } else if constexpr (form == Approximation::tanh) {
    return T(0.5) * x * (T(1) + tanh_of(tanh_argument(x)));
  } else {
    return x * scaled_sigmoid(x);
  }
}

template <Approximation form, typename T>
__device__ T gelu_derivative(T x) {
  if constexpr (form == Approximation::none) {
    const T cdf = T(0.5) * (T(1) + erf_of(x * T(kInvSqrt2)));
    const T pdf = T(kInvSqrt2Pi) * exp_of(T(-0.5) * x * x);
    return cdf + x * pdf;
  } else if constexpr (form == Approximation::tanh) {
    const T t = tanh_of(tanh_argument(x));
    const T du_dx = T(kSqrt2OverPi) * (T(1) + T(3 * kTanhCubic) * x * x);
    return T(0.5) * (T(1) + t) + T(0.5) * x * (T(1) - t * t) * du_dx;
  } else {
    const T s = scaled_sigmoid(x);
    return s * (T(1) + T(kSigmoidScale) * x * (T(1) - s));
  }
}

template <Approximation form, typename T>
__global__ void forward_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t n) {
  for (int64_t i = global_index(); i < n; i += global_stride()) y[i] = gelu_value<form>(x[i]);
}

template <Approximation form, typename T>
__global__ void backward_kernel(const T* __restrict__ x, const T* __restrict__ dy,
                                T* __restrict__ dx, int64_t n) {
  for (int64_t i = global_index(); i < n; i += global_stride())
    dx[i] = dy[i] * gelu_derivative<form>(x[i]);
}

template <typename T>
cudaError_t launch_forward(const T* x, T* y, int64_t n, Approximation form, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  const int blocks = blocks_for(n);
  switch (form) {
    case Approximation::none:
      forward_kernel<Approximation::none><<<blocks, kThreads, 0, stream>>>(x, y, n);
      break;
    case Approximation::tanh:
      forward_kernel<Approximation::tanh><<<blocks, kThreads, 0, stream>>>(x, y, n);
      break;
    case Approximation::sigmoid:
      forward_kernel<Approximation::sigmoid><<<blocks, kThreads, 0, stream>>>(x, y, n);
      break;
  }
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_backward(const T* x, const T* dy, T* dx, int64_t n, Approximation form,
                            cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  const int blocks = blocks_for(n);
  switch (form) {
    case Approximation::none:
      backward_kernel<Approximation::none><<<blocks, kThreads, 0, stream>>>(x, dy, dx, n);
      break;
    case Approximation::tanh:
      backward_kernel<Approximation::tanh><<<blocks, kThreads, 0, stream>>>(x, dy, dx, n);
      break;
    case Approximation::sigmoid:
      backward_kernel<Approximation::sigmoid><<<blocks, kThreads, 0, stream>>>(x, dy, dx, n);
      break;
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_gelu_forward(const float* x, float* y, int64_t n, Approximation form,
                                cudaStream_t stream) {
  return launch_forward(x, y, n, form, stream);
}

cudaError_t launch_gelu_forward(const double* x, double* y, int64_t n, Approximation form,
                                cudaStream_t stream) {
  return launch_forward(x, y, n, form, stream);
}

cudaError_t launch_gelu_backward(const float* x, const float* dy, float* dx, int64_t n,
                                 Approximation form, cudaStream_t stream) {
  return launch_backward(x, dy, dx, n, form, stream);
}

cudaError_t launch_gelu_backward(const double* x, const double* dy, double* dx, int64_t n,
                                 Approximation form, cudaStream_t stream) {
  return launch_backward(x, dy, dx, n, form, stream);
}

}  // namespace gelu
