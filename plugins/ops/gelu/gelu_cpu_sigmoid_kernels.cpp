// gelu's CPU kernels of the sigmoid form, compiled once per CPU capability and without
// floating-point contraction (-ffp-contract=off, see CMakeLists.txt): the reference,
// x * torch::sigmoid(1.702 x), is a chain of separate ATen kernels that round every product
// and sum on its own, and the gradient below sums its two terms as autograd does.
#include "gelu_cpu_loops.hpp"

namespace gelu {
namespace CPU_CAPABILITY {
namespace {

constexpr double kSigmoidScale = 1.702;  // x * sigmoid(1.702 x)

// s = sigmoid(1.702 x) = 1 / (1 + exp(-1.702 x)).
template <typename N>
N scaled_sigmoid(const N& x) {
  return constant<N>(1) / (constant<N>(1) + exp_of(x * constant<N>(-kSigmoidScale)));
}

// x * s.
template <typename N>
N gelu_sigmoid(const N& x) {
  return x * scaled_sigmoid(x);
}

// dy * (s + 1.702 x s (1 - s)), as the chain rule through x * sigmoid(1.702 x) sums it:
// dy s (the product's other factor) + 1.702 ((dy x) (1 - s) s) (through the sigmoid).
template <typename N>
N gelu_sigmoid_grad(const N& x, const N& dy) {
  const N s = scaled_sigmoid(x);
  return dy * s + dy * x * (constant<N>(1) - s) * s * constant<N>(kSigmoidScale);
}

template <typename T>
void sigmoid_forward(const T* x, T* y, int64_t n) {
  map_in_parallel([](const auto& v) { return gelu_sigmoid(v); }, x, y, n);
}

template <typename T>
void sigmoid_backward(const T* x, const T* dy, T* dx, int64_t n) {
  map2_in_parallel([](const auto& v, const auto& g) { return gelu_sigmoid_grad(v, g); }, x, dy, dx,
                   n);
}

}  // namespace

CpuKernels sigmoid_cpu_kernels() {
  return {{&sigmoid_forward<float>, &sigmoid_backward<float>},
          {&sigmoid_forward<double>, &sigmoid_backward<double>}};
}

}  // namespace CPU_CAPABILITY
}  // namespace gelu
