// gelu against its formulas written here in plain C++ double (values and derivatives), a few
// values known by heart, and runner::gradcheck's finite differences, for each form.
#include <gtest/gtest.h>
#include <runner/gradcheck.hpp>

#include <cmath>
#include <functional>

#include "gelu_function.hpp"
#include "gelu_test_support.hpp"

namespace gelu {
namespace {

using test::forms;

const double kPi = std::acos(-1.0);
// Relative error (max difference over max magnitude): SLEEF's and the C library's erf, exp
// and tanh differ by an ulp, and 1 - tanh^2 in the tanh form's derivative loses a few bits.
const double kDoubleTolerance = 1e-14;

double normal_cdf(double x) { return 0.5 * (1 + std::erf(x / std::sqrt(2.0))); }
double normal_pdf(double x) { return std::exp(-x * x / 2) / std::sqrt(2 * kPi); }
double tanh_argument(double x) { return std::sqrt(2 / kPi) * (x + 0.044715 * x * x * x); }
double sigmoid(double z) { return 1 / (1 + std::exp(-z)); }

double formula(Approximation form, double x) {
  switch (form) {
    case Approximation::tanh: return 0.5 * x * (1 + std::tanh(tanh_argument(x)));
    case Approximation::sigmoid: return x * sigmoid(1.702 * x);
    default: return x * normal_cdf(x);
  }
}

double derivative(Approximation form, double x) {
  switch (form) {
    case Approximation::tanh: {
      const double t = std::tanh(tanh_argument(x));
      const double du_dx = std::sqrt(2 / kPi) * (1 + 3 * 0.044715 * x * x);
      return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * du_dx;
    }
    case Approximation::sigmoid: {
      const double s = sigmoid(1.702 * x);
      return s + 1.702 * x * s * (1 - s);
    }
    default: return normal_cdf(x) + x * normal_pdf(x);
  }
}

// `f` applied to each element of a 1-D double tensor.
torch::Tensor elementwise(const torch::Tensor& x, const std::function<double(double)>& f) {
  torch::Tensor out = torch::empty_like(x);
  for (int64_t i = 0; i < x.numel(); ++i) out[i] = f(x[i].item<double>());
  return out;
}

TEST(GeluFormula, EachFormEqualsItsFormulaInDouble) {
  const torch::Tensor x = torch::linspace(-8, 8, 161, torch::kDouble);
  for (const auto& [name, form] : forms()) {
    const torch::Tensor expected =
        elementwise(x, [form = form](double v) { return formula(form, v); });
    EXPECT_LE(test::relative_error(gelu(x, form), expected), kDoubleTolerance) << name;
  }
}

TEST(GeluFormula, EachGradientEqualsTheDerivativeTimesTheUpstreamGradient) {
  const torch::Tensor x = torch::linspace(-8, 8, 161, torch::kDouble);
  const torch::Tensor upstream = torch::linspace(-2, 3, 161, torch::kDouble);
  for (const auto& [name, form] : forms()) {
    const torch::Tensor expected =
        upstream * elementwise(x, [form = form](double v) { return derivative(form, v); });
    const torch::Tensor gradient =
        test::value_and_gradient([form = form](const torch::Tensor& t) { return gelu(t, form); }, x,
                                 upstream)
            .gradient;
    EXPECT_LE(test::relative_error(gradient, expected), kDoubleTolerance) << name;
  }
}

TEST(GeluFormula, KnownValues) {
  for (const auto& [name, form] : forms()) {
    const auto at = [form = form](double v) {
      return gelu(torch::tensor({v}, torch::kDouble), form).item<double>();
    };
    EXPECT_EQ(at(0), 0.0) << name;
    EXPECT_NEAR(at(30), 30.0, 1e-12) << name;  // gelu(x) -> x for large x
    EXPECT_NEAR(at(-30), 0.0, 1e-12) << name;  // and -> 0 for very negative x
    // gelu'(0) = 1/2 in every form: Phi(0), (1 + tanh 0) / 2, sigmoid(0).
    const auto slope = test::value_and_gradient(
        [form = form](const torch::Tensor& t) { return gelu(t, form); },
        torch::zeros({1}, torch::kDouble), torch::ones({1}, torch::kDouble));
    EXPECT_DOUBLE_EQ(slope.gradient.item<double>(), 0.5) << name;
  }
  // Phi(1) = 0.841344746068543 (the normal table): gelu(1) with erf.
  EXPECT_NEAR(gelu(torch::tensor({1.0}, torch::kDouble), Approximation::none).item<double>(),
              0.841344746068543, 1e-15);
}

TEST(GeluFormula, GradcheckPassesForEachForm) {
  const torch::Tensor x = torch::randn({3, 5}, torch::kDouble) * 2;
  for (const auto& [name, form] : forms()) {
    runner::GradcheckResult result = runner::gradcheck(
        [form = form](const std::vector<torch::Tensor>& inputs) { return gelu(inputs[0], form); },
        {x});
    EXPECT_TRUE(result.passed) << name << ": " << result.failure;
    EXPECT_LT(result.max_error, 1e-7) << name;
  }
}

TEST(GeluFormula, GradcheckPassesOnANonContiguousInput) {
  const torch::Tensor x = torch::randn({3, 4}, torch::kDouble);
  for (const auto& [name, form] : forms()) {
    runner::GradcheckResult result = runner::gradcheck(
        [form = form](const std::vector<torch::Tensor>& inputs) {
          // The same (3, 4) values, seen by gelu with strides (1, 3).
          const torch::Tensor strided = inputs[0].t().contiguous().t();
          EXPECT_FALSE(strided.is_contiguous());
          return gelu(strided, form);
        },
        {x});
    EXPECT_TRUE(result.passed) << name << ": " << result.failure;
  }
}

}  // namespace
}  // namespace gelu
