// check-op's verdicts on ops that are right, wrong forward, wrong backward, picky or without
// a reference.
#include "opcheck/check_op.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "opcheck/cases.hpp"
#include "opcheck/compare.hpp"
#include "opcheck/report_text.hpp"
#include "test_ops.hpp"

using ::testing::HasSubstr;

namespace runner::opcheck {
namespace {

CheckSettings quick() {
  CheckSettings settings;
  settings.repeats = 1;
  return settings;
}

TEST(CheckOp, RightOpPassesEveryComparisonAndGradcheck) {
  CheckReport report = check_op("square", opcheck_test::RightSquare(), quick());
  EXPECT_TRUE(report.passed()) << report_text(report);
  // Each default shape once contiguous and once strided, but (1, 1): one element is contiguous
  // whatever its strides.
  EXPECT_EQ(report.cases.size(), 2 * opcheck_test::NoReferenceSquare().check_shapes().size() - 1);
  for (const auto& c : report.cases) {
    ASSERT_EQ(c.differences.size(), 2u) << c.label;  // output and the gradient of x
    EXPECT_EQ(c.differences[0].what, "output");
    EXPECT_EQ(c.differences[1].what, "grad of input 0");
  }
  EXPECT_FALSE(report.gradchecks.empty());
  EXPECT_EQ(report.timings.size(), opcheck_test::NoReferenceSquare().check_shapes().size());
  EXPECT_THAT(report_text(report), HasSubstr("check-op square: passed"));
}

TEST(CheckOp, WrongBackwardFailsTheGradientsAndGradcheck) {
  CheckReport report = check_op("square", opcheck_test::WrongBackwardSquare(), quick());
  EXPECT_FALSE(report.passed());
  for (const auto& c : report.cases) {
    EXPECT_TRUE(c.differences[0].within) << c.label;  // the forward is right
    // 3x against 2x: off by half of the reference's gradient, wherever x is not all zero.
    EXPECT_NEAR(c.differences[1].max_rel, 0.5, 1e-6) << c.label;
    EXPECT_FALSE(c.differences[1].within);
  }
  for (const auto& g : report.gradchecks) EXPECT_FALSE(g.result.passed) << g.label;
  EXPECT_THAT(report_text(report), HasSubstr("OVER TOLERANCE"));
  EXPECT_THAT(report_text(report), HasSubstr("check-op square: FAILED"));
}

TEST(CheckOp, TheReferenceRunsInFloat64SoItsFloat32SlipsAreNotTheOps) {
  CheckReport report = check_op("square", opcheck_test::Float32SlipReferenceSquare(), quick());
  EXPECT_TRUE(report.passed()) << report_text(report);
  for (const auto& c : report.cases)
    for (const auto& d : c.differences) EXPECT_LT(d.max_rel, 1e-6) << c.label << " " << d.what;
}

TEST(CheckOp, AReferenceThatRefusesFloat64RunsInTheCasesOwnDtype) {
  CheckReport report = check_op("square", opcheck_test::Float32OnlyReferenceSquare(), quick());
  EXPECT_TRUE(report.passed()) << report_text(report);
  CheckReport wrong = check_op("square", opcheck_test::WrongBackwardSquare(), quick());
  EXPECT_EQ(report.cases.size(), wrong.cases.size());
}

TEST(CheckOp, WrongForwardFailsTheOutput) {
  CheckReport report = check_op("square", opcheck_test::WrongForwardSquare(), quick());
  EXPECT_FALSE(report.passed());
  for (const auto& c : report.cases) {
    EXPECT_NEAR(c.differences[0].max_rel, 1e-3, 1e-6) << c.label;
    EXPECT_FALSE(c.differences[0].within);
  }
}

TEST(CheckOp, AnOpThatThrowsOnStridedInputFailsThoseCasesOnly) {
  CheckReport report = check_op("square", opcheck_test::ContiguousOnlySquare(), quick());
  EXPECT_FALSE(report.passed());
  for (const auto& c : report.cases) {
    const bool strided = c.label.find("non-contiguous") != std::string::npos;
    EXPECT_EQ(c.failure.empty(), !strided) << c.label;
    if (strided) {
      EXPECT_EQ(c.failure, "needs a contiguous input");
    }
  }
}

TEST(CheckOp, WithoutReferenceOnlyRunsAndGradchecks) {
  CheckReport report = check_op("square", opcheck_test::NoReferenceSquare(), quick());
  EXPECT_TRUE(report.passed()) << report_text(report);
  EXPECT_FALSE(report.has_reference);
  for (const auto& c : report.cases) EXPECT_TRUE(c.differences.empty());
  EXPECT_THAT(report_text(report), HasSubstr("has no reference"));
}

TEST(CheckOp, UserShapesReplaceTheOpsAndAreTimed) {
  CheckSettings settings = quick();
  settings.shapes = {{5, 6}, {2, 3, 4}};
  CheckReport report = check_op("square", opcheck_test::RightSquare(), settings);
  ASSERT_EQ(report.timings.size(), 2u);
  EXPECT_EQ(report.timings[0].label, "(5, 6)");
  EXPECT_GT(report.timings[0].op_forward, 0);
  EXPECT_GT(report.timings[0].reference_backward, 0);
  EXPECT_EQ(report.cases.size(), 4u);
}

TEST(CheckOp, LargeShapesAreGradcheckedOnTheOpsOwnSmallOnes) {
  CheckSettings settings = quick();
  settings.shapes = {{100, 100}};
  CheckReport report = check_op("square", opcheck_test::RightSquare(), settings);
  EXPECT_EQ(report.gradchecks.size(), opcheck_test::NoReferenceSquare().check_shapes().size());
}

TEST(Difference, IsTheLargestGapOverTheLargestReferenceValue) {
  Difference d =
      difference("output", torch::tensor({1.0, 2.0, -3.0}), torch::tensor({1.0, 4.0, -3.5}), 0.4);
  EXPECT_DOUBLE_EQ(d.max_abs, 2.0);
  EXPECT_DOUBLE_EQ(d.max_rel, 2.0 / 4.0);
  EXPECT_FALSE(d.within);
  EXPECT_TRUE(difference("x", torch::zeros({0}), torch::zeros({0}), 0).within);
  EXPECT_FALSE(difference("x", torch::tensor({NAN}), torch::tensor({1.0}), 1).within);
}

TEST(Cases, NonContiguousCopyHoldsTheSameValues) {
  LabelledCase c{"(3, 5)", OpCase{{torch::randn({3, 5})}, {}}};
  std::optional<LabelledCase> strided = non_contiguous(c);
  ASSERT_TRUE(strided);
  EXPECT_FALSE(strided->c.inputs[0].is_contiguous());
  EXPECT_TRUE(torch::equal(strided->c.inputs[0], c.c.inputs[0]));
  EXPECT_EQ(strided->label, "(3, 5) non-contiguous");
  EXPECT_FALSE(non_contiguous({"", OpCase{{torch::zeros({0})}, {}}}));
  EXPECT_FALSE(non_contiguous({"", OpCase{{torch::zeros({1, 1})}, {}}}));
}

}  // namespace
}  // namespace runner::opcheck
