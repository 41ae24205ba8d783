// Tests of the op plugins' shared checks: attribute pairs, unknown attributes, window sizes and
// the errors naming the op.
#include "op_checks.hpp"

#include <gtest/gtest.h>
#include <runner/errors.hpp>

#include "op_testing.hpp"

namespace op_support {
namespace {

using op_testing::message_of;
using runner::ConfigError;
using runner::OpAttributes;
using runner::RunError;

TEST(OpChecks, APairAttributeTakesItsFallbackWhenMissing) {
  EXPECT_EQ(pair_attribute("op", OpAttributes{}, "stride", {2, 3}, 1),
            (std::vector<int64_t>{2, 3}));
  OpAttributes given;
  given.set("stride", {4, 5});
  EXPECT_EQ(pair_attribute("op", given, "stride", {2, 3}, 1), (std::vector<int64_t>{4, 5}));
}

TEST(OpChecks, APairAttributeOfAnotherLengthOrBelowItsMinimumIsNamed) {
  OpAttributes one;
  one.set("stride", {4});
  EXPECT_EQ(message_of<ConfigError>([&] {
              pair_attribute("op", one, "stride", {1, 1}, 1);
            }),
            "op: attribute \"stride\" needs 2 values {h, w}, got 1");
  OpAttributes negative;
  negative.set("padding", {0, -1});
  EXPECT_EQ(message_of<ConfigError>([&] {
              pair_attribute("op", negative, "padding", {0, 0}, 0);
            }),
            "op: attribute \"padding\" must be at least 0, got -1");
}

TEST(OpChecks, AnUnknownAttributeIsNamedWithTheKnownOnes) {
  OpAttributes attributes;
  attributes.set("dilation", {2, 2});
  EXPECT_EQ(message_of<ConfigError>([&] {
              check_known_attributes("op", attributes, {"padding", "stride"});
            }),
            "op: unknown attribute \"dilation\" (known: padding, stride)");
  attributes = OpAttributes{};
  attributes.set("stride", {1, 1});
  EXPECT_NO_THROW(check_known_attributes("op", attributes, {"padding", "stride"}));
}

TEST(OpChecks, WindowOutputsFollowTheSlidingWindowFormula) {
  EXPECT_EQ(window_outputs(28, 5, 1, 2), 28);  // (28 + 4 - 5) / 1 + 1
  EXPECT_EQ(window_outputs(28, 2, 2, 0), 14);  // (28 - 2) / 2 + 1
  EXPECT_EQ(window_outputs(7, 3, 2, 1), 4);    // (7 + 2 - 3) / 2 + 1
}

TEST(OpChecks, AWindowLargerThanThePaddedInputIsARunError) {
  const std::vector<int64_t> x{1, 1, 2, 9};
  EXPECT_EQ(message_of<RunError>([&] { check_window_fits("op", "window", x, 2, 9, 3, 3, 0, 0); }),
            "op: the 3x3 window is larger than the padded input 2x9 (x [1, 1, 2, 9], padding 0,0)");
  EXPECT_NO_THROW(check_window_fits("op", "kernel", x, 2, 9, 3, 3, 1, 0));
}

}  // namespace
}  // namespace op_support
