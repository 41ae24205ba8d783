// The CPU kernels of fused_conv_relu over raw pointers, compiled once per CPU capability
// (runner_add_cpu_kernels: DEFAULT, AVX2, AVX512), each copy in its own namespace. No
// LibTorch header beyond ATen's vector types and at::parallel_for in the .cpp; conv_cpu.cpp
// picks a copy with runner::cpu_capability().
#pragma once

#include <cstdint>

#include "conv_shape.hpp"

namespace fused_conv_relu::cpu {

// The kernels of one capability for one scalar type. Pointers are to contiguous tensors. The
// samples are cut into `parts` ranges of ceil(N / parts), one per task of at::parallel_for
// (run here, where OpenMP is compiled in), part p with `scratch` + p * the scratch size.
template <typename T>
struct ConvKernels {
  // Elements `pack` writes for a (rows, depth) row-major matrix.
  int64_t (*packed_size)(int64_t rows, int64_t depth);
  // Reorders a (rows, depth) matrix (the weight as (O, C kh kw)) into the tile kernel's layout.
  void (*pack)(const T* matrix, int64_t rows, int64_t depth, T* packed);
  // Scratch elements one part needs, for forward and for backward.
  int64_t (*forward_scratch)(const ConvShape& shape);
  int64_t (*backward_scratch)(const ConvShape& shape);
  // y (N, O, Ho, Wo) = relu(conv(x, weight) + bias); bias may be null.
  void (*forward)(const ConvShape& shape, const T* x, const T* packed_weight, const T* bias, T* y,
                  int64_t parts, T* scratch);
  // With g = grad_y * (y > 0): grad_x = the transposed convolution of g (packed_flipped: the
  // weight flipped in kh and kw, as (C, O kh kw), packed); part p adds its samples' sums of
  // g . cols^T to grad_weight (parts, O, C kh kw) row p and of g to grad_bias (parts, O) row
  // p. A null output is not computed.
  void (*backward)(const ConvShape& shape, const T* x, const T* y, const T* grad_y,
                   const T* packed_flipped, T* grad_x, T* grad_weight, T* grad_bias, int64_t parts,
                   T* scratch);
};

namespace DEFAULT {
template <typename T>
const ConvKernels<T>& conv_kernels();
}  // namespace DEFAULT
namespace AVX2 {
template <typename T>
const ConvKernels<T>& conv_kernels();
}  // namespace AVX2
namespace AVX512 {
template <typename T>
const ConvKernels<T>& conv_kernels();
}  // namespace AVX512

}  // namespace fused_conv_relu::cpu
