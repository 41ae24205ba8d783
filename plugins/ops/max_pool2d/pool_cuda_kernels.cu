// The CUDA kernels of max_pool2d (pool_cuda_kernels.hpp). The backward gathers rather than
// scatters, so overlapping windows need no atomics and the sums are deterministic, in the
// order the CPU adds them.
#include "pool_cuda_kernels.hpp"

#include <algorithm>

#include "cuda_grid.cuh"

namespace max_pool2d::cuda_kernels {
namespace {

using op_support::blocks_for;
using op_support::global_index;
using op_support::global_stride;
using op_support::kThreads;

template <typename T>
__global__ void forward_kernel(const T* __restrict__ x, T* __restrict__ y,
                               int32_t* __restrict__ indices, PoolShape s) {
  const int64_t total = s.planes * s.out_h * s.out_w;
  for (int64_t q = global_index(); q < total; q += global_stride()) {
    const int64_t b = q % s.out_w, a = q / s.out_w % s.out_h, p = q / (s.out_w * s.out_h);
    const int64_t top = a * s.stride_h - s.pad_h, left = b * s.stride_w - s.pad_w;
    const int64_t first_row = max(top, int64_t(0)), last_row = min(top + s.kernel_h, s.height);
    const int64_t first_col = max(left, int64_t(0)), last_col = min(left + s.kernel_w, s.width);
    const T* plane = x + p * s.height * s.width;
    T best = -INFINITY;
    int64_t best_at = first_row * s.width + first_col;
    for (int64_t r = first_row; r < last_row; ++r)
      for (int64_t c = first_col; c < last_col; ++c) {
        const T value = plane[r * s.width + c];
        if (value > best || value != value) {  // value != value: a NaN
          best = value;
          best_at = r * s.width + c;
        }
      }
    y[q] = best;
    indices[q] = static_cast<int32_t>(best_at);
  }
}

// The outputs along one axis whose window covers input position u: [first, last].
struct Span {
  int64_t first, last;
};
__device__ Span covering(int64_t u, int64_t kernel, int64_t stride, int64_t pad, int64_t extent) {
  const int64_t t = u + pad;  // a covers u when a * stride <= t < a * stride + kernel
  const int64_t first = t < kernel ? 0 : (t - kernel) / stride + 1;
  return {first, min(t / stride, extent - 1)};
}

template <typename T>
__global__ void backward_kernel(const T* __restrict__ grad_y, const int32_t* __restrict__ indices,
                                T* __restrict__ grad_x, PoolShape s) {
  const int64_t total = s.planes * s.height * s.width;
  for (int64_t e = global_index(); e < total; e += global_stride()) {
    const int64_t v = e % s.width, u = e / s.width % s.height, p = e / (s.width * s.height);
    const int32_t at = static_cast<int32_t>(u * s.width + v);
    const Span rows = covering(u, s.kernel_h, s.stride_h, s.pad_h, s.out_h);
    const Span cols = covering(v, s.kernel_w, s.stride_w, s.pad_w, s.out_w);
    const int64_t plane = p * s.out_h * s.out_w;
    T sum = 0;
    for (int64_t a = rows.first; a <= rows.last; ++a)
      for (int64_t b = cols.first; b <= cols.last; ++b) {
        const int64_t q = plane + a * s.out_w + b;
        if (indices[q] == at) sum += grad_y[q];
      }
    grad_x[e] = sum;
  }
}

template <typename T>
void launch_forward(const T* x, T* y, int32_t* indices, const PoolShape& s, cudaStream_t stream) {
  const int64_t total = s.planes * s.out_h * s.out_w;
  forward_kernel<T><<<blocks_for(total), kThreads, 0, stream>>>(x, y, indices, s);
}

template <typename T>
void launch_backward(const T* grad_y, const int32_t* indices, T* grad_x, const PoolShape& s,
                     cudaStream_t stream) {
  const int64_t total = s.planes * s.height * s.width;
  backward_kernel<T><<<blocks_for(total), kThreads, 0, stream>>>(grad_y, indices, grad_x, s);
}

}  // namespace

void max_pool_forward(const float* x, float* y, int32_t* indices, const PoolShape& shape,
                      cudaStream_t stream) {
  launch_forward(x, y, indices, shape, stream);
}
void max_pool_forward(const double* x, double* y, int32_t* indices, const PoolShape& shape,
                      cudaStream_t stream) {
  launch_forward(x, y, indices, shape, stream);
}

void max_pool_backward(const float* grad_y, const int32_t* indices, float* grad_x,
                       const PoolShape& shape, cudaStream_t stream) {
  launch_backward(grad_y, indices, grad_x, shape, stream);
}
void max_pool_backward(const double* grad_y, const int32_t* indices, double* grad_x,
                       const PoolShape& shape, cudaStream_t stream) {
  launch_backward(grad_y, indices, grad_x, shape, stream);
}

}  // namespace max_pool2d::cuda_kernels
