// max_pool2d against torch::max_pool2d: outputs equal and CPU gradients equal on odd shapes,
// overlapping and gapped windows, padding, a batch of 1, (C, H, W) and non-contiguous inputs;
// cases computed by hand (padding never wins, overlapping windows accumulate, NaN and -inf);
// gradcheck in float64; the op's own check cases.
#include <gtest/gtest.h>
#include <runner/gradcheck.hpp>

#include <limits>
#include <string>

#include "max_pool2d_op.hpp"

namespace max_pool2d {
namespace {

struct Window {
  int64_t kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w;

  runner::OpAttributes attributes() const {
    runner::OpAttributes a;
    a.set("kernel_size", {kernel_h, kernel_w})
        .set("stride", {stride_h, stride_w})
        .set("padding", {pad_h, pad_w});
    return a;
  }
};

const std::vector<Window> kWindows = {
    {2, 2, 2, 2, 0, 0}, {3, 3, 2, 2, 0, 0}, {3, 3, 1, 1, 1, 1}, {2, 3, 1, 2, 1, 0},
    {2, 2, 1, 1, 0, 0}, {1, 1, 1, 1, 0, 0}, {5, 5, 2, 2, 2, 2}, {4, 4, 3, 3, 2, 2},
    {2, 2, 3, 3, 0, 0}, {3, 2, 2, 1, 1, 1},
};

const std::vector<std::vector<int64_t>> kShapes = {{1, 1, 5, 7},   {2, 3, 8, 8}, {3, 2, 9, 11},
                                                   {2, 6, 28, 28}, {4, 13, 17},  {1, 2, 10, 33}};

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text;
  for (int64_t d : shape) text += (text.empty() ? "" : "x") + std::to_string(d);
  return text;
}

class MaxPool2dTest : public ::testing::Test {
 protected:
  void SetUp() override { torch::manual_seed(3); }

  // The output of the op and the gradient of x for the output weighting v.
  std::pair<torch::Tensor, torch::Tensor> run(bool reference, const torch::Tensor& x,
                                              const runner::OpAttributes& attributes,
                                              const torch::Tensor& v) const {
    const torch::Tensor leaf = x.detach().clone().requires_grad_(true);
    const torch::Tensor y =
        reference ? op_.reference({leaf}, attributes) : op_.forward({leaf}, attributes);
    (y * v).sum().backward();
    return {y.detach(), leaf.grad()};
  }

  // Expects output and gradient to equal the reference's exactly (the CPU adds in the same
  // order).
  void expect_equal_to_reference(const torch::Tensor& x, const runner::OpAttributes& attributes,
                                 const std::string& label) const {
    const torch::Tensor expected = op_.reference({x}, attributes);
    const torch::Tensor v = torch::randn(expected.sizes(), expected.options());
    const auto [y, grad] = run(false, x, attributes, v);
    const auto [y_ref, grad_ref] = run(true, x, attributes, v);
    EXPECT_TRUE(torch::equal(y, y_ref)) << label << " output";
    EXPECT_TRUE(torch::equal(grad, grad_ref)) << label << " gradient";
  }

  MaxPool2dOp op_;
};

TEST_F(MaxPool2dTest, RegistersOneOpOfOneInputWithAReference) {
  runner::PluginBuilder plugin;
  add_max_pool2d_op(plugin);
  ASSERT_EQ(plugin.components().size(), 1u);
  const runner::Component& c = plugin.components()[0];
  EXPECT_EQ(c.kind, runner::Kind::op);
  EXPECT_EQ(c.name, "max_pool2d");
  EXPECT_EQ(c.version, "1.0.0");
  EXPECT_TRUE(c.schema.keys().empty());
  std::shared_ptr<runner::Op> made = c.make_op(runner::Options("ops.max_pool2d"));
  EXPECT_EQ(made->arity(), 1);
  EXPECT_TRUE(made->has_reference());
}

// x = 0..15 row by row (4 x 4): each 2x2 window's maximum is its bottom-right element,
// 4 (2a + 1) + 2b + 1, and the gradient of the sum is 1 there, 0 elsewhere.
TEST_F(MaxPool2dTest, TwoByTwoPoolPicksEachWindowsLargestElement) {
  const torch::Tensor x = torch::arange(16, torch::kFloat).view({1, 1, 4, 4}).requires_grad_(true);
  const torch::Tensor y = op_.forward({x}, {});
  ASSERT_EQ(y.sizes(), (std::vector<int64_t>{1, 1, 2, 2}));
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < 2; ++b)
      EXPECT_EQ(y[0][0][a][b].item<float>(), static_cast<float>(4 * (2 * a + 1) + 2 * b + 1));
  y.sum().backward();
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 4; ++j)
      EXPECT_EQ(x.grad()[0][0][i][j].item<float>(), (i % 2 == 1 && j % 2 == 1) ? 1.0f : 0.0f);
}

// A 9 at the center of a 3 x 3 plane of zeros wins all four overlapping 2x2 stride-1 windows,
// so its gradient is the sum of the four output gradients.
TEST_F(MaxPool2dTest, OverlappingWindowsAddTheirGradients) {
  const torch::Tensor x = torch::zeros({1, 1, 3, 3}, torch::kDouble);
  x[0][0][1][1] = 9.0;
  x.requires_grad_(true);
  runner::OpAttributes attributes;
  attributes.set("kernel_size", {2, 2}).set("stride", {1, 1});
  const torch::Tensor y = op_.forward({x}, attributes);
  EXPECT_TRUE(torch::equal(y, torch::full({1, 1, 2, 2}, 9.0, torch::kDouble)));
  const torch::Tensor v = torch::tensor({1.0, 2.0, 3.0, 4.0}, torch::kDouble).view({1, 1, 2, 2});
  (y * v).sum().backward();
  EXPECT_EQ(x.grad()[0][0][1][1].item<double>(), 1.0 + 2.0 + 3.0 + 4.0);
  EXPECT_EQ(x.grad().abs().sum().item<double>(), 10.0);
}

// All -1 with padding 1: every window sees padding, yet every output is -1, not 0.
TEST_F(MaxPool2dTest, PaddedCellsNeverWin) {
  const torch::Tensor x = torch::full({1, 1, 2, 2}, -1.0f);
  runner::OpAttributes attributes;
  attributes.set("kernel_size", {3, 3}).set("stride", {1, 1}).set("padding", {1, 1});
  EXPECT_TRUE(torch::equal(op_.forward({x}, attributes), torch::full({1, 1, 2, 2}, -1.0f)));
}

TEST_F(MaxPool2dTest, NanWinsAndMinusInfinityWindowsPointAtTheirFirstElement) {
  const float inf = std::numeric_limits<float>::infinity();
  const torch::Tensor x = torch::full({1, 1, 4, 6}, -inf);
  x[0][0][0][1] = std::numeric_limits<float>::quiet_NaN();
  x[0][0][3][5] = 2.0f;
  for (const Window& w : {Window{2, 2, 2, 2, 0, 0}, Window{3, 3, 1, 1, 1, 1}}) {
    const runner::OpAttributes attributes = w.attributes();
    const torch::Tensor y = op_.forward({x}, attributes);
    const torch::Tensor y_ref = op_.reference({x}, attributes);
    EXPECT_TRUE(torch::equal(y.isnan(), y_ref.isnan()));
    EXPECT_TRUE(y[0][0][0][0].isnan().item<bool>());
    EXPECT_TRUE(torch::equal(y.nan_to_num(0, 1, -1), y_ref.nan_to_num(0, 1, -1)));
    const torch::Tensor v = torch::arange(y.numel(), torch::kFloat).view(y.sizes()) + 1;
    EXPECT_TRUE(
        torch::equal(run(false, x, attributes, v).second, run(true, x, attributes, v).second));
  }
}

TEST_F(MaxPool2dTest, OutputAndGradientEqualTheReference) {
  for (torch::ScalarType dtype : {torch::kFloat, torch::kDouble})
    for (const std::vector<int64_t>& shape : kShapes)
      for (const Window& w : kWindows) {
        const torch::Tensor x = torch::randn(shape, torch::TensorOptions().dtype(dtype));
        const std::string label =
            "x " + shape_text(shape) + " " + w.attributes().text() + " " + c10::toString(dtype);
        expect_equal_to_reference(x, w.attributes(), label);
      }
}

TEST_F(MaxPool2dTest, StrideDefaultsToTheKernelSize) {
  const torch::Tensor x = torch::randn({2, 3, 10, 11});
  runner::OpAttributes attributes;
  attributes.set("kernel_size", {3, 3});
  EXPECT_TRUE(torch::equal(op_.forward({x}, attributes), torch::max_pool2d(x, {3, 3})));
  EXPECT_EQ(op_.forward({x}, {}).sizes(), (std::vector<int64_t>{2, 3, 5, 5}));
}

TEST_F(MaxPool2dTest, NonContiguousInputGivesTheSameResult) {
  const torch::Tensor x = torch::randn({2, 9, 11, 3}).permute({0, 3, 1, 2});
  ASSERT_FALSE(x.is_contiguous());
  for (const Window& w : {kWindows[0], kWindows[2]}) {
    expect_equal_to_reference(x, w.attributes(), "non-contiguous " + w.attributes().text());
    EXPECT_TRUE(torch::equal(op_.forward({x}, w.attributes()),
                             op_.forward({x.contiguous()}, w.attributes())));
  }
}

TEST_F(MaxPool2dTest, GradcheckPassesInFloat64) {
  for (const Window& w : {kWindows[0], kWindows[1], kWindows[2], kWindows[3]}) {
    const runner::OpAttributes attributes = w.attributes();
    const runner::GradcheckResult result = runner::gradcheck(
        [&](const std::vector<torch::Tensor>& in) { return op_.forward(in, attributes); },
        {torch::randn({2, 2, 5, 6}, torch::kDouble)});
    EXPECT_TRUE(result.passed) << attributes.text() << ": " << result.failure;
  }
}

TEST_F(MaxPool2dTest, EveryCheckCaseMatchesTheReference) {
  for (torch::ScalarType dtype : {torch::kFloat, torch::kDouble})
    for (const std::vector<int64_t>& shape : op_.check_shapes()) {
      const std::vector<runner::OpCase> cases =
          op_.check_cases(shape, torch::TensorOptions().dtype(dtype));
      ASSERT_GE(cases.size(), 3u);
      for (const runner::OpCase& c : cases) {
        ASSERT_EQ(c.inputs.size(), 1u);
        expect_equal_to_reference(c.inputs[0], c.attributes,
                                  "check case " + c.attributes.text() + " " + c10::toString(dtype));
      }
    }
  EXPECT_EQ(op_.tolerance(torch::kFloat), 1e-6);
  EXPECT_EQ(op_.tolerance(torch::kDouble), 1e-14);
}

TEST_F(MaxPool2dTest, AnEmptyBatchGivesAnEmptyOutput) {
  const torch::Tensor x = torch::randn({0, 3, 8, 8}).requires_grad_(true);
  const torch::Tensor y = op_.forward({x}, {});
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{0, 3, 4, 4}));
  y.sum().backward();
  EXPECT_EQ(x.grad().sizes(), x.sizes());
}

}  // namespace
}  // namespace max_pool2d
