// The CPU kernels of max_pool2d over raw pointers, compiled once per CPU capability
// (runner_add_cpu_kernels: DEFAULT, AVX2, AVX512), each copy in its own namespace: plain
// loops without branches, no LibTorch header beyond at::parallel_for in the .cpp (where
// OpenMP is compiled in). pool_cpu.cpp picks a copy with runner::cpu_capability().
#pragma once

#include <cstdint>

#include "pool_shape.hpp"

namespace max_pool2d::cpu {

// The kernels of one capability for one scalar type, on contiguous tensors; the planes are
// shared among the threads.
template <typename T>
struct PoolKernels {
  // y (planes, Ho, Wo) = the largest element of each window of x (planes, H, W), a NaN if the
  // window holds one; indices = its flat index in the H x W plane (the first of equals).
  void (*forward)(const PoolShape& shape, const T* x, T* y, int32_t* indices);
  // grad_x (planes, H, W) = 0, then grad_y added at each output's index (overlapping
  // windows accumulate, in output order).
  void (*backward)(const PoolShape& shape, const T* grad_y, const int32_t* indices, T* grad_x);
};

namespace DEFAULT {
template <typename T>
const PoolKernels<T>& pool_kernels();
}  // namespace DEFAULT
namespace AVX2 {
template <typename T>
const PoolKernels<T>& pool_kernels();
}  // namespace AVX2
namespace AVX512 {
template <typename T>
const PoolKernels<T>& pool_kernels();
}  // namespace AVX512

}  // namespace max_pool2d::cpu
