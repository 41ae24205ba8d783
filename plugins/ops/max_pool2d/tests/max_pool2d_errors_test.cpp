// max_pool2d's failure paths (each a one-line error of the right class naming the bad value)
// and its CUDA side: against the reference on a GPU, or the refusal of a build without CUDA.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <runner/errors.hpp>

#include <functional>
#include <string>

#include "max_pool2d_op.hpp"
#include "op_testing.hpp"
#include "pool_backends.hpp"

using ::testing::HasSubstr;

namespace max_pool2d {
namespace {

using op_testing::message_of;

class MaxPool2dErrorsTest : public ::testing::Test {
 protected:
  std::string run_error(std::vector<torch::Tensor> inputs, runner::OpAttributes attributes = {}) {
    return message_of<runner::RunError>([&] { op_.forward(inputs, attributes); });
  }
  std::string config_error(runner::OpAttributes attributes) {
    return message_of<runner::ConfigError>([&] { op_.forward({x_}, attributes); });
  }
  static runner::OpAttributes with(const std::string& name, std::vector<int64_t> values) {
    runner::OpAttributes a;
    a.set(name, std::move(values));
    return a;
  }

  MaxPool2dOp op_;
  torch::Tensor x_ = torch::randn({2, 3, 8, 8});
};

TEST_F(MaxPool2dErrorsTest, XOfAnotherRankIsRefusedWithItsShape) {
  const std::string flat = run_error({torch::randn({8, 8})});
  EXPECT_THAT(flat, HasSubstr("max_pool2d: x must be (N, C, H, W) or (C, H, W), got shape [8, 8]"))
      << flat;
  EXPECT_THAT(run_error({torch::randn({1, 2, 3, 8, 8})}), HasSubstr("got shape [1, 2, 3, 8, 8]"));
}

TEST_F(MaxPool2dErrorsTest, WindowLargerThanThePaddedInputIsRefused) {
  const std::string message = run_error({torch::randn({1, 1, 2, 9})}, with("kernel_size", {3, 3}));
  EXPECT_THAT(message, HasSubstr("the 3x3 window is larger than the padded input 2x9")) << message;
}

TEST_F(MaxPool2dErrorsTest, UnknownAttributeIsAConfigErrorListingTheKnownOnes) {
  const std::string message = config_error(with("dilation", {2, 2}));
  EXPECT_THAT(message,
              HasSubstr("unknown attribute \"dilation\" (known: kernel_size, padding, stride)"))
      << message;
}

TEST_F(MaxPool2dErrorsTest, AttributeOfTheWrongLengthIsAConfigError) {
  const std::string message = config_error(with("kernel_size", {3}));
  EXPECT_THAT(message, HasSubstr("attribute \"kernel_size\" needs 2 values {h, w}, got 1"))
      << message;
}

TEST_F(MaxPool2dErrorsTest, ValuesOutOfRangeAreConfigErrors) {
  EXPECT_THAT(config_error(with("kernel_size", {0, 2})),
              HasSubstr("attribute \"kernel_size\" must be at least 1, got 0"));
  EXPECT_THAT(config_error(with("stride", {2, -1})),
              HasSubstr("attribute \"stride\" must be at least 1, got -1"));
  EXPECT_THAT(config_error(with("padding", {-1, 0})),
              HasSubstr("attribute \"padding\" must be at least 0, got -1"));
}

TEST_F(MaxPool2dErrorsTest, PaddingOverHalfTheKernelIsAConfigError) {
  const std::string message = config_error(with("padding", {0, 2}));
  EXPECT_THAT(message, HasSubstr("attribute \"padding\" 2 is more than half the kernel size 2"))
      << message;
}

TEST_F(MaxPool2dErrorsTest, OnlyFloatAndDoubleAreAccepted) {
  const std::string message = run_error({x_.to(torch::kLong)});
  EXPECT_THAT(message, HasSubstr("supports float32 and float64 tensors, x is Long")) << message;
}

TEST_F(MaxPool2dErrorsTest, AnotherNumberOfInputsIsRefused) {
  const std::string message = run_error({x_, x_});
  EXPECT_THAT(message, HasSubstr("takes 1 input {x}, got 2")) << message;
}

TEST_F(MaxPool2dErrorsTest, MatchesTheReferenceOnTheGpu) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  if (!MAX_POOL2D_WITH_CUDA) GTEST_SKIP() << "built without CUDA (CPU-only LibTorch)";
  for (torch::ScalarType dtype : {torch::kFloat, torch::kDouble})
    for (const runner::OpCase& c :
         op_.check_cases({3, 2, 9, 11}, torch::TensorOptions().dtype(dtype).device(torch::kCUDA))) {
      const torch::Tensor x = c.inputs[0].detach().clone().requires_grad_(true);
      const torch::Tensor x_ref = c.inputs[0].detach().clone().requires_grad_(true);
      const torch::Tensor y = op_.forward({x}, c.attributes);
      const torch::Tensor y_ref = op_.reference({x_ref}, c.attributes);
      EXPECT_TRUE(torch::equal(y, y_ref)) << c.attributes.text();
      const torch::Tensor v = torch::randn_like(y);
      (y * v).sum().backward();
      (y_ref * v).sum().backward();
      const double scale = x_ref.grad().abs().max().item<double>();
      EXPECT_LE((x.grad() - x_ref.grad()).abs().max().item<double>(), op_.tolerance(dtype) * scale)
          << c.attributes.text();
    }
}

TEST_F(MaxPool2dErrorsTest, ABuildWithoutCudaRefusesGpuTensorsWithTheReason) {
  if (MAX_POOL2D_WITH_CUDA) GTEST_SKIP() << "built with CUDA";
  const PoolShape shape;
  const std::string message =
      message_of<runner::RunError>([&] { max_pool_forward_cuda(x_, shape); });
  EXPECT_THAT(message, HasSubstr("max_pool2d: this runner was built without CUDA")) << message;
  EXPECT_THAT(message, HasSubstr("the tensor is on cpu")) << message;
}

}  // namespace
}  // namespace max_pool2d
