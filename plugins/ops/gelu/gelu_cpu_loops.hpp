// What gelu's kernel sources share (included by them only, inside their CPU_CAPABILITY
// namespace): the math of a formula for a scalar and for a vector, and the loops.
//
// The loops mirror ATen's cpu_kernel_vec so that each element is computed the way the
// reference computes it: at::parallel_for with ATen's grain splits the array among threads,
// each part runs two vectors per step, and its last elements (fewer than two vectors) go
// through the scalar formula with the C library's erf/exp/tanh. A formula is written once, for
// a number that is either a scalar or a vector, in the reference's order of operations. SLEEF
// and the C library can differ by an ulp, which matters where 1 + erf(x), 1 + tanh(u) or a
// gradient near its zero cancels; taking the reference's path for each element makes the op
// equal to ATen's kernels bit for bit when both run the same vector width (measured on
// LibTorch 1.13 for every form, dtype and capability).
#pragma once

#include <ATen/Parallel.h>
#include <ATen/cpu/vec/vec.h>

#include <cmath>
#include <cstdint>

#include "gelu_cpu_kernels.hpp"

namespace gelu {
namespace CPU_CAPABILITY {

// The kernels of the sigmoid form (gelu_cpu_sigmoid_kernels.cpp).
CpuKernels sigmoid_cpu_kernels();

namespace {

using at::vec::Vectorized;

// Elements per thread at least: ATen's elementwise grain (at::internal::GRAIN_SIZE).
inline constexpr int64_t kGrainSize = 32768;

inline float erf_of(float v) { return std::erf(v); }
inline double erf_of(double v) { return std::erf(v); }
inline float exp_of(float v) { return std::exp(v); }
inline double exp_of(double v) { return std::exp(v); }
inline float tanh_of(float v) { return std::tanh(v); }
inline double tanh_of(double v) { return std::tanh(v); }
template <typename T>
Vectorized<T> erf_of(const Vectorized<T>& v) {
  return v.erf();
}
template <typename T>
Vectorized<T> exp_of(const Vectorized<T>& v) {
  return v.exp();
}
template <typename T>
Vectorized<T> tanh_of(const Vectorized<T>& v) {
  return v.tanh();
}

template <typename N>
struct ScalarOf {
  using type = N;
};
template <typename T>
struct ScalarOf<Vectorized<T>> {
  using type = T;
};

// `value` rounded to the element type, then (for a vector) broadcast.
template <typename N>
N constant(double value) {
  return N(static_cast<typename ScalarOf<N>::type>(value));
}

// y[i] = f(x[i]) over one thread's part: two vectors per step, then scalars.
template <typename T, typename F>
void map_part(const F& f, const T* x, T* y, int64_t n) {
  using Vec = Vectorized<T>;
  constexpr int64_t width = Vec::size();
  int64_t i = 0;
  for (; i + 2 * width <= n; i += 2 * width) {
    f(Vec::loadu(x + i)).store(y + i);
    f(Vec::loadu(x + i + width)).store(y + i + width);
  }
  for (; i < n; ++i) y[i] = f(x[i]);
}

// dx[i] = f(x[i], dy[i]) over one thread's part: two vectors per step, then scalars.
template <typename T, typename F>
void map2_part(const F& f, const T* x, const T* dy, T* dx, int64_t n) {
  using Vec = Vectorized<T>;
  constexpr int64_t width = Vec::size();
  int64_t i = 0;
  for (; i + 2 * width <= n; i += 2 * width) {
    f(Vec::loadu(x + i), Vec::loadu(dy + i)).store(dx + i);
    f(Vec::loadu(x + i + width), Vec::loadu(dy + i + width)).store(dx + i + width);
  }
  for (; i < n; ++i) dx[i] = f(x[i], dy[i]);
}

template <typename T, typename F>
void map_in_parallel(const F& f, const T* x, T* y, int64_t n) {
  at::parallel_for(0, n, kGrainSize, [&](int64_t begin, int64_t end) {
    map_part(f, x + begin, y + begin, end - begin);
  });
}

template <typename T, typename F>
void map2_in_parallel(const F& f, const T* x, const T* dy, T* dx, int64_t n) {
  at::parallel_for(0, n, kGrainSize, [&](int64_t begin, int64_t end) {
    map2_part(f, x + begin, dy + begin, dx + begin, end - begin);
  });
}

}  // namespace
}  // namespace CPU_CAPABILITY
}  // namespace gelu
