// gelu's CPU kernels of the erf and tanh forms, compiled once per CPU capability: in each
// copy at::vec::Vectorized has that capability's width and its erf(), exp() and tanh() call
// SLEEF, as at::gelu's own kernel does. The formulas follow at::gelu's kernel operation by
// operation and, like it, let the compiler fuse a multiply and an add into one FMA.
#include "gelu_cpu_loops.hpp"

namespace gelu {
namespace CPU_CAPABILITY {
namespace {

constexpr double kInvSqrt2 = 0.70710678118654752440;     // 1 / sqrt(2)
constexpr double kInvSqrt2Pi = 0.39894228040143267794;   // 1 / sqrt(2 pi)
constexpr double kSqrt2OverPi = 0.79788456080286535588;  // sqrt(2 / pi)
constexpr double kTanhCubic = 0.044715;                  // the x^3 coefficient of the tanh form

// a * b + c. at::gelu's vector code computes x phi(x) + Phi(x) with one rounding (an FMA
// where the processor has one); its scalar code leaves the choice to the compiler, as here.
inline float multiply_add(float a, float b, float c) { return a * b + c; }
inline double multiply_add(double a, double b, double c) { return a * b + c; }
template <typename T>
Vectorized<T> multiply_add(const Vectorized<T>& a, const Vectorized<T>& b, const Vectorized<T>& c) {
  return at::vec::fmadd(a, b, c);
}

// x * Phi(x), Phi(x) = 0.5 (1 + erf(x / sqrt 2)).
template <typename N>
N gelu_none(const N& x) {
  return x * constant<N>(0.5) * (constant<N>(1) + erf_of(x * constant<N>(kInvSqrt2)));
}

// dy * (Phi(x) + x phi(x)), phi(x) = exp(-x^2 / 2) / sqrt(2 pi).
template <typename N>
N gelu_none_grad(const N& x, const N& dy) {
  const N cdf = constant<N>(0.5) * (constant<N>(1) + erf_of(x * constant<N>(kInvSqrt2)));
  const N pdf = constant<N>(kInvSqrt2Pi) * exp_of(x * x * constant<N>(-0.5));
  return dy * multiply_add(x, pdf, cdf);
}

// u = sqrt(2 / pi) (x + 0.044715 x^3), the argument of tanh in the tanh form.
template <typename N>
N tanh_argument(const N& x, const N& x_squared) {
  return constant<N>(kSqrt2OverPi) * (x + constant<N>(kTanhCubic) * (x_squared * x));
}

// 0.5 x (1 + tanh(u)).
template <typename N>
N gelu_tanh(const N& x) {
  return constant<N>(0.5) * x * (constant<N>(1) + tanh_of(tanh_argument(x, x * x)));
}

// dy * (0.5 (1 + t) + 0.5 x (1 - t^2) du/dx), t = tanh(u),
// du/dx = sqrt(2 / pi) (1 + 3 * 0.044715 x^2).
template <typename N>
N gelu_tanh_grad(const N& x, const N& dy) {
  const N x_squared = x * x;
  const N t = tanh_of(tanh_argument(x, x_squared));
  const N du_dx = constant<N>(kSqrt2OverPi) *
                  (constant<N>(1) + constant<N>(3) * constant<N>(kTanhCubic) * x_squared);
  const N left_derivative = constant<N>(0.5) * (constant<N>(1) + t);
  const N right_derivative = constant<N>(0.5) * x * (constant<N>(1) - t * t) * du_dx;
  return dy * (left_derivative + right_derivative);
}

template <typename T>
void none_forward(const T* x, T* y, int64_t n) {
  map_in_parallel([](const auto& v) { return gelu_none(v); }, x, y, n);
}

template <typename T>
void none_backward(const T* x, const T* dy, T* dx, int64_t n) {
  map2_in_parallel([](const auto& v, const auto& g) { return gelu_none_grad(v, g); }, x, dy, dx, n);
}

template <typename T>
void tanh_forward(const T* x, T* y, int64_t n) {
  map_in_parallel([](const auto& v) { return gelu_tanh(v); }, x, y, n);
}

template <typename T>
void tanh_backward(const T* x, const T* dy, T* dx, int64_t n) {
  map2_in_parallel([](const auto& v, const auto& g) { return gelu_tanh_grad(v, g); }, x, dy, dx, n);
}

}  // namespace

CpuKernels cpu_kernels(Approximation form) {
  switch (form) {
    case Approximation::tanh:
      return {{&tanh_forward<float>, &tanh_backward<float>},
              {&tanh_forward<double>, &tanh_backward<double>}};
    case Approximation::sigmoid: return sigmoid_cpu_kernels();
    default:
      return {{&none_forward<float>, &none_backward<float>},
              {&none_forward<double>, &none_backward<double>}};
  }
}

}  // namespace CPU_CAPABILITY
}  // namespace gelu
