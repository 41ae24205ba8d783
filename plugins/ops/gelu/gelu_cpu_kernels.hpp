// gelu's vectorized CPU kernels over flat contiguous arrays. The kernel sources are compiled
// once per CPU capability (runner_add_cpu_kernels), each copy in its own namespace named after
// the capability; gelu_cpu.cpp picks the copy for this processor at run time.
#pragma once

#include <cstdint>

#include "gelu_approximation.hpp"

namespace gelu {

template <typename T>
struct CpuKernelsOf {
  // y[i] = gelu(x[i]) for i < n.
  void (*forward)(const T* x, T* y, int64_t n);
  // dx[i] = dy[i] * gelu'(x[i]) for i < n; dx may be dy.
  void (*backward)(const T* x, const T* dy, T* dx, int64_t n);
};

// The kernels of one form.
struct CpuKernels {
  CpuKernelsOf<float> f32;
  CpuKernelsOf<double> f64;
};

namespace DEFAULT {
CpuKernels cpu_kernels(Approximation form);
}
#if defined(__x86_64__)
namespace AVX2 {
CpuKernels cpu_kernels(Approximation form);
}
namespace AVX512 {
CpuKernels cpu_kernels(Approximation form);
}
#endif

}  // namespace gelu
