// Each compiled copy of the CPU kernels (DEFAULT and, where the processor has them, AVX2 and
// AVX512) called directly on raw arrays, against the reference: the run-time choice picks
// only one of them, so the others are tested here.
#include <gtest/gtest.h>
#include <runner/cpu_capability.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "gelu_cpu_kernels.hpp"
#include "gelu_op.hpp"
#include "gelu_test_support.hpp"

namespace gelu {
namespace {

using test::forms;
using test::relative_error;

using KernelsOf = CpuKernels (*)(Approximation);

struct NamedCopy {
  std::string name;
  KernelsOf kernels;
  runner::CpuCapability capability;
};

// A copy of another width than ATen's computes some elements with other erf and tanh
// implementations (SLEEF's against the C library's): float32 tanh gradients then differ by up
// to 3.8e-6 (measured), where 1 - tanh^2 amplifies an ulp. The copy of ATen's width is held
// to the op's own tolerance.
double tolerance_of(const NamedCopy& copy, const GeluOp& op, torch::ScalarType dtype) {
  const bool atens_width = copy.capability == runner::cpu_capability();
  return dtype == torch::kFloat && !atens_width ? 5e-6 : op.tolerance(dtype);
}

// The copies this processor can run.
std::vector<NamedCopy> runnable_copies() {
  std::vector<NamedCopy> copies = {
      {"default", &DEFAULT::cpu_kernels, runner::CpuCapability::DEFAULT}};
#if defined(__x86_64__)
  const runner::CpuCapability widest = runner::detail::widest_supported();  // not lowered
  if (widest >= runner::CpuCapability::AVX2)
    copies.push_back({"avx2", &AVX2::cpu_kernels, runner::CpuCapability::AVX2});
  if (widest >= runner::CpuCapability::AVX512)
    copies.push_back({"avx512", &AVX512::cpu_kernels, runner::CpuCapability::AVX512});
#endif
  return copies;
}

template <typename T>
const CpuKernelsOf<T>& of_type(const CpuKernels& kernels);
template <>
const CpuKernelsOf<float>& of_type<float>(const CpuKernels& kernels) {
  return kernels.f32;
}
template <>
const CpuKernelsOf<double>& of_type<double>(const CpuKernels& kernels) {
  return kernels.f64;
}

// The kernels of `copy` for `T` on a length that leaves whole vectors and a scalar tail in
// every width, against the reference.
template <typename T>
void expect_copy_matches(const NamedCopy& copy) {
  const torch::ScalarType dtype = c10::CppTypeToScalarType<T>::value;
  const torch::Tensor x = torch::randn({1031}, dtype) * 3;
  const torch::Tensor upstream = torch::randn({1031}, dtype);
  for (const auto& [name, form] : forms()) {
    const GeluOp op(form);
    const CpuKernels all = copy.kernels(form);
    const CpuKernelsOf<T>& kernels = of_type<T>(all);
    torch::Tensor y = torch::empty_like(x);
    torch::Tensor dx = torch::empty_like(x);
    kernels.forward(x.data_ptr<T>(), y.data_ptr<T>(), x.numel());
    kernels.backward(x.data_ptr<T>(), upstream.data_ptr<T>(), dx.data_ptr<T>(), x.numel());
    const auto reference = test::value_and_gradient(
        [&](const torch::Tensor& t) { return op.reference({t}, {}); }, x, upstream);
    const std::string what = copy.name + " " + c10::toString(dtype) + " " + name;
    const double tolerance = tolerance_of(copy, op, dtype);
    EXPECT_LE(relative_error(y, reference.value), tolerance) << what;
    EXPECT_LE(relative_error(dx, reference.gradient), tolerance) << what << " gradient";
  }
}

TEST(GeluKernels, EveryRunnableCopyMatchesTheReference) {
  for (const NamedCopy& copy : runnable_copies()) {
    expect_copy_matches<float>(copy);
    expect_copy_matches<double>(copy);
  }
}

// gelu(1) of each form, from its formula: Phi(1) = (1 + erf(1 / sqrt 2)) / 2;
// (1 + tanh(sqrt(2 / pi) (1 + 0.044715))) / 2; sigmoid(1.702).
double gelu_of_one(Approximation form) {
  switch (form) {
    case Approximation::none: return 0.5 * (1 + std::erf(1 / std::sqrt(2.0)));
    case Approximation::tanh: return 0.5 * (1 + std::tanh(std::sqrt(2 / M_PI) * 1.044715));
    case Approximation::sigmoid: return 1 / (1 + std::exp(-1.702));
  }
  return NAN;
}

TEST(GeluKernels, AKernelWritesExactlyTheElementsItIsGiven) {
  for (const NamedCopy& copy : runnable_copies()) {
    for (const auto& [name, form] : forms()) {
      // 37 = two vectors of 16 and a tail of 5 in float on AVX512; more vectors elsewhere.
      std::vector<float> x(37, 1.0f), y(38, -7.0f), dy(37, 1.0f), dx(38, -7.0f);
      const CpuKernelsOf<float> kernels = copy.kernels(form).f32;
      kernels.forward(x.data(), y.data(), 37);
      kernels.backward(x.data(), dy.data(), dx.data(), 37);
      EXPECT_EQ(y[37], -7.0f) << copy.name << " " << name;
      EXPECT_EQ(dx[37], -7.0f) << copy.name << " " << name;
      EXPECT_NEAR(y[0], y[36], 1e-6) << copy.name << " " << name;  // by vector and by scalar
      EXPECT_NEAR(y[36], gelu_of_one(form), 1e-6) << copy.name << " " << name;
    }
  }
}

}  // namespace
}  // namespace gelu
