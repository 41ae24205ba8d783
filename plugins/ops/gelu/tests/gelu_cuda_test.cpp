// gelu on a CUDA device against its reference there, when there is one; and the clear error
// of a build without CUDA.
#include <gtest/gtest.h>
#include <runner/errors.hpp>

#include <string>

#include "gelu_cuda.hpp"
#include "gelu_op.hpp"
#include "gelu_test_support.hpp"

namespace gelu {
namespace {

constexpr bool kBuiltWithCuda = GELU_TEST_BUILT_WITH_CUDA;

TEST(GeluCuda, MatchesTheReferenceOnTheDevice) {
  if (!kBuiltWithCuda) GTEST_SKIP() << "built without CUDA (CPU-only LibTorch)";
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (const auto& [name, form] : test::forms()) {
    const GeluOp op(form);
    for (torch::ScalarType dtype : {torch::kFloat, torch::kDouble}) {
      const torch::TensorOptions on_device = torch::TensorOptions(dtype).device(torch::kCUDA);
      // Odd sizes, a transposed view, one more element than the blocks of the first pass.
      for (const torch::Tensor& x :
           {torch::randn({3, 7}, on_device), torch::randn({33, 17}, on_device).t(),
            torch::randn({65535 * 256 + 1}, on_device), torch::randn({0, 4}, on_device)}) {
        const torch::Tensor upstream = torch::randn(x.sizes(), x.options());
        const auto mine =
            test::value_and_gradient([&](const torch::Tensor& t) { return op(t); }, x, upstream);
        const auto reference = test::value_and_gradient(
            [&](const torch::Tensor& t) { return op.reference({t}, {}); }, x, upstream);
        const std::string what = name + " " + c10::toString(dtype) + " " + c10::str(x.sizes());
        EXPECT_TRUE(mine.value.is_cuda()) << what;
        EXPECT_LE(test::relative_error(mine.value, reference.value), op.tolerance(dtype)) << what;
        EXPECT_LE(test::relative_error(mine.gradient, reference.gradient), op.tolerance(dtype))
            << what;
      }
    }
  }
}

TEST(GeluCuda, ABuildWithoutCudaSaysSoInOneLine) {
  if (kBuiltWithCuda) GTEST_SKIP() << "this build has CUDA";
  for (int pass = 0; pass < 2; ++pass) {
    const torch::Tensor x = torch::ones({3});
    try {
      if (pass == 0)
        gelu_forward_cuda(x, Approximation::none);
      else
        gelu_backward_cuda(x, x, Approximation::none);
      FAIL() << "the CUDA stub returned";
    } catch (const runner::Error& e) {
      EXPECT_EQ(e.error_class(), runner::ErrorClass::runtime);
      EXPECT_TRUE(std::string(e.what()).rfind("gelu: this runner was built without CUDA", 0) == 0)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace gelu
