// The CUDA kernels of fused_conv_relu (conv_cuda_kernels.hpp). Direct formulations, no
// atomics: every output element is written by one thread or one block, so results are
// deterministic. Sums run in a fixed order per element.
#include "conv_cuda_kernels.hpp"

#include <algorithm>

#include "cuda_grid.cuh"

namespace fused_conv_relu::cuda_kernels {
namespace {

using op_support::blocks_for;
using op_support::global_index;
using op_support::global_stride;
using op_support::kThreads;

// The sum of `value` over the block's threads, in thread 0.
template <typename T>
__device__ T block_sum(T value) {
  __shared__ T partial[kThreads];
  partial[threadIdx.x] = value;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  return partial[0];
}

template <typename T>
__global__ void forward_kernel(const T* __restrict__ x, const T* __restrict__ weight,
                               const T* __restrict__ bias, T* __restrict__ y, ConvShape s) {
  const int64_t total = s.batch * s.out_channels * s.out_h * s.out_w;
  for (int64_t index = global_index(); index < total; index += global_stride()) {
    const int64_t b = index % s.out_w, a = index / s.out_w % s.out_h;
    const int64_t o = index / (s.out_w * s.out_h) % s.out_channels;
    const int64_t n = index / (s.out_w * s.out_h * s.out_channels);
    T sum = 0;
    for (int64_t c = 0; c < s.channels; ++c)
      for (int64_t i = 0; i < s.kernel_h; ++i) {
        const int64_t row = a * s.stride_h - s.pad_h + i;
        if (row < 0 || row >= s.height) continue;
        const T* in = x + ((n * s.channels + c) * s.height + row) * s.width;
        const T* w = weight + ((o * s.channels + c) * s.kernel_h + i) * s.kernel_w;
        for (int64_t j = 0; j < s.kernel_w; ++j) {
          const int64_t col = b * s.stride_w - s.pad_w + j;
          if (col >= 0 && col < s.width) sum += in[col] * w[j];
        }
      }
    if (bias) sum += bias[o];
    y[index] = sum < T(0) ? T(0) : sum;  // NaN passes, as in torch::relu
  }
}

template <typename T>
__global__ void mask_kernel(const T* __restrict__ grad_y, const T* __restrict__ y,
                            T* __restrict__ g, int64_t count) {
  for (int64_t index = global_index(); index < count; index += global_stride())
    g[index] = y[index] > T(0) ? grad_y[index] : T(0);
}

// Output position along one axis that input position `u` reaches through kernel offset `i`,
// or -1: u = a * stride - pad + i.
__device__ int64_t source_of(int64_t u, int64_t i, int64_t stride, int64_t pad, int64_t extent) {
  const int64_t t = u + pad - i;
  if (t < 0 || t % stride != 0 || t / stride >= extent) return -1;
  return t / stride;
}

// The kernel offsets are the outer loops, so source_of()'s divisions run once per offset, not
// once per offset and output channel; the channel loop inside only steps pointers.
template <typename T>
__global__ void input_grad_kernel(const T* __restrict__ g, const T* __restrict__ weight,
                                  T* __restrict__ grad_x, ConvShape s) {
  const int64_t total = s.batch * s.channels * s.height * s.width;
  const int64_t plane = s.out_h * s.out_w, weight_step = s.channels * s.kernel_h * s.kernel_w;
  for (int64_t index = global_index(); index < total; index += global_stride()) {
    const int64_t v = index % s.width, u = index / s.width % s.height;
    const int64_t c = index / (s.width * s.height) % s.channels;
    const int64_t n = index / (s.width * s.height * s.channels);
    T sum = 0;
    for (int64_t i = 0; i < s.kernel_h; ++i) {
      const int64_t a = source_of(u, i, s.stride_h, s.pad_h, s.out_h);
      if (a < 0) continue;
      for (int64_t j = 0; j < s.kernel_w; ++j) {
        const int64_t b = source_of(v, j, s.stride_w, s.pad_w, s.out_w);
        if (b < 0) continue;
        const T* g_at = g + n * s.out_channels * plane + a * s.out_w + b;  // channel 0
        const T* w_at = weight + (c * s.kernel_h + i) * s.kernel_w + j;    // channel 0
        for (int64_t o = 0; o < s.out_channels; ++o) sum += g_at[o * plane] * w_at[o * weight_step];
      }
    }
    grad_x[index] = sum;
  }
}

// Each thread takes output positions of the plane and walks the samples at each, so one
// division places a position for all N samples, and a warp reads consecutive positions.
template <typename T>
__global__ void weight_grad_kernel(const T* __restrict__ g, const T* __restrict__ x,
                                   T* __restrict__ grad_weight, ConvShape s) {
  const int64_t e = blockIdx.x;  // (o, c, i, j)
  const int64_t j = e % s.kernel_w, i = e / s.kernel_w % s.kernel_h;
  const int64_t c = e / (s.kernel_w * s.kernel_h) % s.channels;
  const int64_t o = e / (s.kernel_w * s.kernel_h * s.channels);
  const int64_t plane = s.out_h * s.out_w, in_plane = s.height * s.width;
  const int64_t g_step = s.out_channels * plane, x_step = s.channels * in_plane;  // next sample
  T sum = 0;
  for (int64_t p = threadIdx.x; p < plane; p += blockDim.x) {
    const int64_t a = p / s.out_w, b = p % s.out_w;
    const int64_t row = a * s.stride_h - s.pad_h + i, col = b * s.stride_w - s.pad_w + j;
    if (row < 0 || row >= s.height || col < 0 || col >= s.width) continue;
    const T* g_at = g + o * plane + p;                       // sample 0
    const T* x_at = x + c * in_plane + row * s.width + col;  // sample 0
    for (int64_t n = 0; n < s.batch; ++n) sum += g_at[n * g_step] * x_at[n * x_step];
  }
  sum = block_sum(sum);
  if (threadIdx.x == 0) grad_weight[e] = sum;
}

template <typename T>
__global__ void bias_grad_kernel(const T* __restrict__ g, T* __restrict__ grad_bias, ConvShape s) {
  const int64_t o = blockIdx.x;
  const int64_t plane = s.out_h * s.out_w, outputs = s.batch * plane;
  T sum = 0;
  for (int64_t p = threadIdx.x; p < outputs; p += blockDim.x)
    sum += g[(p / plane * s.out_channels + o) * plane + p % plane];
  sum = block_sum(sum);
  if (threadIdx.x == 0) grad_bias[o] = sum;
}

template <typename T>
void launch_forward(const T* x, const T* weight, const T* bias, T* y, const ConvShape& s,
                    cudaStream_t stream) {
  const int64_t total = s.batch * s.out_channels * s.out_h * s.out_w;
  forward_kernel<T><<<blocks_for(total), kThreads, 0, stream>>>(x, weight, bias, y, s);
}

template <typename T>
void launch_mask(const T* grad_y, const T* y, T* g, int64_t count, cudaStream_t stream) {
  mask_kernel<T><<<blocks_for(count), kThreads, 0, stream>>>(grad_y, y, g, count);
}

template <typename T>
void launch_input_grad(const T* g, const T* weight, T* grad_x, const ConvShape& s,
                       cudaStream_t stream) {
  const int64_t total = s.batch * s.channels * s.height * s.width;
  input_grad_kernel<T><<<blocks_for(total), kThreads, 0, stream>>>(g, weight, grad_x, s);
}

template <typename T>
void launch_weight_grad(const T* g, const T* x, T* grad_weight, const ConvShape& s,
                        cudaStream_t stream) {
  const int64_t weights = s.out_channels * s.channels * s.kernel_h * s.kernel_w;
  weight_grad_kernel<T>
      <<<static_cast<unsigned>(weights), kThreads, 0, stream>>>(g, x, grad_weight, s);
}

template <typename T>
void launch_bias_grad(const T* g, T* grad_bias, const ConvShape& s, cudaStream_t stream) {
  bias_grad_kernel<T>
      <<<static_cast<unsigned>(s.out_channels), kThreads, 0, stream>>>(g, grad_bias, s);
}

}  // namespace

void conv_relu_forward(const float* x, const float* weight, const float* bias, float* y,
                       const ConvShape& shape, cudaStream_t stream) {
  launch_forward(x, weight, bias, y, shape, stream);
}
void conv_relu_forward(const double* x, const double* weight, const double* bias, double* y,
                       const ConvShape& shape, cudaStream_t stream) {
  launch_forward(x, weight, bias, y, shape, stream);
}

void relu_mask(const float* grad_y, const float* y, float* g, int64_t count, cudaStream_t stream) {
  launch_mask(grad_y, y, g, count, stream);
}
void relu_mask(const double* grad_y, const double* y, double* g, int64_t count,
               cudaStream_t stream) {
  launch_mask(grad_y, y, g, count, stream);
}

void conv_input_grad(const float* g, const float* weight, float* grad_x, const ConvShape& shape,
                     cudaStream_t stream) {
  launch_input_grad(g, weight, grad_x, shape, stream);
}
void conv_input_grad(const double* g, const double* weight, double* grad_x, const ConvShape& shape,
                     cudaStream_t stream) {
  launch_input_grad(g, weight, grad_x, shape, stream);
}

void conv_weight_grad(const float* g, const float* x, float* grad_weight, const ConvShape& shape,
                      cudaStream_t stream) {
  launch_weight_grad(g, x, grad_weight, shape, stream);
}
void conv_weight_grad(const double* g, const double* x, double* grad_weight, const ConvShape& shape,
                      cudaStream_t stream) {
  launch_weight_grad(g, x, grad_weight, shape, stream);
}

void conv_bias_grad(const float* g, float* grad_bias, const ConvShape& shape, cudaStream_t stream) {
  launch_bias_grad(g, grad_bias, shape, stream);
}
void conv_bias_grad(const double* g, double* grad_bias, const ConvShape& shape,
                    cudaStream_t stream) {
  launch_bias_grad(g, grad_bias, shape, stream);
}

}  // namespace fused_conv_relu::cuda_kernels
