// runner::gradcheck (SDK) on functions whose gradients are known.
#include <runner/gradcheck.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_ops.hpp"

using ::testing::HasSubstr;

namespace {

TEST(Gradcheck, PassesAnAutogradFunctionOfTwoInputs) {
  runner::GradcheckResult result = runner::gradcheck(
      [](const std::vector<torch::Tensor>& x) { return torch::sin(x[0]) * x[1].exp(); },
      {torch::randn({3, 4}), torch::randn({3, 4})});
  EXPECT_TRUE(result.passed) << result.failure;
  EXPECT_LT(result.max_error, 1e-6);
}

TEST(Gradcheck, FailsAWrongBackwardAndNamesTheElement) {
  runner::GradcheckResult result = runner::gradcheck(
      [](const std::vector<torch::Tensor>& x) { return opcheck_test::Square<3>::apply(x[0]); },
      {torch::ones({2, 2})});
  EXPECT_FALSE(result.passed);
  // d(x^2)/dx = 2 at x = 1; the wrong backward says 3, so the gap is |v| per element.
  EXPECT_GT(result.max_error, 0.0);
  EXPECT_THAT(result.failure, HasSubstr("input 0 element 0")) << result.failure;
}

TEST(Gradcheck, SkipsIntegerAndAbsentInputs) {
  runner::GradcheckResult result = runner::gradcheck(
      [](const std::vector<torch::Tensor>& x) {
        return x[0] * x[1].to(torch::kDouble) + (x[2].defined() ? 1 : 0);
      },
      {torch::randn({4}), torch::arange(4), torch::Tensor()});
  EXPECT_TRUE(result.passed) << result.failure;
}

}  // namespace
