// fused_conv_relu's failure paths (each a one-line error of the right class naming the bad
// value) and its CUDA side: against the reference on a GPU, or the refusal of a build
// without CUDA.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <runner/errors.hpp>

#include <functional>
#include <string>

#include "conv_backends.hpp"
#include "conv_test_support.hpp"
#include "op_testing.hpp"

using ::testing::HasSubstr;

namespace fused_conv_relu {
namespace {

using op_testing::message_of;

class FusedConvReluErrorsTest : public ::testing::Test {
 protected:
  std::string run_error(std::vector<torch::Tensor> inputs, runner::OpAttributes attributes = {}) {
    return message_of<runner::RunError>([&] { op_.forward(inputs, attributes); });
  }
  std::string config_error(runner::OpAttributes attributes) {
    return message_of<runner::ConfigError>([&] { op_.forward({x_, w_, b_}, attributes); });
  }

  FusedConvReluOp op_;
  torch::Tensor x_ = torch::randn({2, 3, 8, 8});
  torch::Tensor w_ = torch::randn({4, 3, 3, 3});
  torch::Tensor b_ = torch::randn({4});
};

TEST_F(FusedConvReluErrorsTest, XOfAnotherRankIsRefusedWithItsShape) {
  const std::string message = run_error({torch::randn({3, 8, 8}), w_, b_});
  EXPECT_THAT(message,
              HasSubstr("fused_conv_relu: x must be 4-D (N, C, H, W), got shape [3, 8, 8]"))
      << message;
}

TEST_F(FusedConvReluErrorsTest, WeightOfAnotherRankIsRefused) {
  const std::string message = run_error({x_, torch::randn({4, 27}), b_});
  EXPECT_THAT(message, HasSubstr("weight must be 4-D (O, C, kh, kw), got shape [4, 27]"))
      << message;
}

TEST_F(FusedConvReluErrorsTest, ChannelMismatchNamesBothCounts) {
  const std::string message = run_error({x_, torch::randn({4, 5, 3, 3}), b_});
  EXPECT_THAT(message, HasSubstr("x has 3 channels but weight [4, 5, 3, 3] expects 5")) << message;
}

TEST_F(FusedConvReluErrorsTest, BiasOfTheWrongSizeIsRefused) {
  const std::string message = run_error({x_, w_, torch::randn({5})});
  EXPECT_THAT(message, HasSubstr("bias must have shape [4] (one per output channel), got [5]"))
      << message;
  EXPECT_THAT(run_error({x_, w_, torch::randn({4, 1})}), HasSubstr("got [4, 1]"));
}

TEST_F(FusedConvReluErrorsTest, KernelLargerThanThePaddedInputIsRefused) {
  const std::string message = run_error({torch::randn({1, 3, 2, 9}), w_, b_});
  EXPECT_THAT(message, HasSubstr("the 3x3 kernel is larger than the padded input 2x9")) << message;
  runner::OpAttributes padding;
  padding.set("padding", {1, 0});
  EXPECT_NO_THROW(op_.forward({torch::randn({1, 3, 2, 9}), w_, b_}, padding));
}

TEST_F(FusedConvReluErrorsTest, UnknownAttributeIsAConfigErrorListingTheKnownOnes) {
  runner::OpAttributes attributes;
  attributes.set("dilation", {2, 2});
  const std::string message = config_error(attributes);
  EXPECT_THAT(message, HasSubstr("unknown attribute \"dilation\" (known: padding, stride)"))
      << message;
}

TEST_F(FusedConvReluErrorsTest, AttributeOfTheWrongLengthIsAConfigError) {
  runner::OpAttributes attributes;
  attributes.set("stride", {1, 1, 1});
  const std::string message = config_error(attributes);
  EXPECT_THAT(message, HasSubstr("attribute \"stride\" needs 2 values {h, w}, got 3")) << message;
}

TEST_F(FusedConvReluErrorsTest, NegativePaddingAndZeroStrideAreConfigErrors) {
  runner::OpAttributes negative;
  negative.set("padding", {1, -1});
  EXPECT_THAT(config_error(negative),
              HasSubstr("attribute \"padding\" must be at least 0, got -1"));
  runner::OpAttributes zero;
  zero.set("stride", {0, 1});
  EXPECT_THAT(config_error(zero), HasSubstr("attribute \"stride\" must be at least 1, got 0"));
}

TEST_F(FusedConvReluErrorsTest, OnlyFloatAndDoubleOfOneDtypeAreAccepted) {
  const std::string integers =
      run_error({x_.to(torch::kInt), w_.to(torch::kInt), b_.to(torch::kInt)});
  EXPECT_THAT(integers, HasSubstr("supports float32 and float64 tensors, x is Int")) << integers;
  const std::string mixed = run_error({x_, w_.to(torch::kDouble), b_});
  EXPECT_THAT(mixed, HasSubstr("weight is Double but x is Float")) << mixed;
}

TEST_F(FusedConvReluErrorsTest, AnotherNumberOfInputsIsRefused) {
  const std::string message = run_error({x_, w_});
  EXPECT_THAT(message, HasSubstr("takes 3 inputs {x, weight, bias}, got 2")) << message;
}

TEST_F(FusedConvReluErrorsTest, MatchesTheReferenceOnTheGpu) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  if (!FUSED_CONV_RELU_WITH_CUDA) GTEST_SKIP() << "built without CUDA (CPU-only LibTorch)";
  const torch::Device gpu(torch::kCUDA, 0);
  for (torch::ScalarType dtype : {torch::kFloat, torch::kDouble})
    for (const testing::Case& c : {testing::Case{{2, 3, 9, 11}, 5, 3, 3, 1, 1, 1, 1},
                                   testing::Case{{1, 4, 8, 7}, 3, 2, 3, 2, 1, 1, 0, false}}) {
      std::vector<torch::Tensor> inputs;
      for (const torch::Tensor& t : c.inputs(dtype)) inputs.push_back(t.defined() ? t.to(gpu) : t);
      testing::expect_matches_reference(op_, inputs, c.attributes(), op_.tolerance(dtype),
                                        c.name() + " on cuda:0");
    }
}

TEST_F(FusedConvReluErrorsTest, ABuildWithoutCudaRefusesGpuTensorsWithTheReason) {
  if (FUSED_CONV_RELU_WITH_CUDA) GTEST_SKIP() << "built with CUDA";
  const ConvShape shape;
  const std::string message =
      message_of<runner::RunError>([&] { conv_relu_forward_cuda(x_, w_, b_, shape); });
  EXPECT_THAT(message, HasSubstr("fused_conv_relu: this runner was built without CUDA")) << message;
  EXPECT_THAT(message, HasSubstr("the tensor is on cpu")) << message;
}

}  // namespace
}  // namespace fused_conv_relu
