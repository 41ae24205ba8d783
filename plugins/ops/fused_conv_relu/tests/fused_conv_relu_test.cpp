// fused_conv_relu against conv2d then relu: outputs and gradients on odd shapes, strides,
// paddings, a batch of 1 and non-contiguous inputs; a case computed by hand; gradcheck in
// float64; the op's own check cases; determinism across runs and thread counts.
#include <gtest/gtest.h>
#include <runner/gradcheck.hpp>

#include <algorithm>

#include "conv_function.hpp"
#include "conv_test_support.hpp"

namespace fused_conv_relu {
namespace {

using testing::Case;
using testing::expect_matches_reference;
using testing::relative_error;

// Kernels 1x1 to 5x5, strides 1 to 3, paddings 0 to 2 (beyond kernel - 1 too), rows wider
// than a register tile, output channels that fill no tile, a batch of 1.
const std::vector<Case> kCases = {
    {{1, 1, 5, 7}, 4, 3, 3, 1, 1, 1, 1},        {{2, 3, 8, 8}, 4, 3, 3, 1, 1, 0, 0, false},
    {{3, 4, 9, 11}, 5, 3, 3, 2, 2, 1, 1},       {{1, 2, 6, 5}, 3, 1, 1, 1, 1, 0, 0},
    {{2, 3, 7, 9}, 5, 2, 3, 2, 2, 1, 1, false}, {{4, 16, 28, 28}, 16, 3, 3, 1, 1, 1, 1},
    {{2, 5, 13, 53}, 17, 3, 3, 1, 1, 1, 1},     {{1, 3, 10, 10}, 4, 5, 5, 1, 1, 2, 2},
    {{2, 2, 9, 9}, 4, 3, 3, 3, 3, 0, 0},        {{1, 2, 6, 6}, 3, 3, 3, 1, 1, 2, 2},
    {{2, 2, 5, 5}, 3, 1, 1, 1, 1, 1, 1},        {{2, 3, 8, 10}, 6, 3, 2, 1, 2, 0, 2},
    {{1, 1, 3, 3}, 2, 3, 3, 1, 1, 0, 0},        {{3, 1, 28, 28}, 16, 3, 3, 1, 1, 1, 1},
};

class FusedConvReluTest : public ::testing::Test {
 protected:
  void SetUp() override { torch::manual_seed(7); }
  FusedConvReluOp op_;
};

TEST_F(FusedConvReluTest, RegistersOneOpOfThreeInputsWithAReference) {
  runner::PluginBuilder plugin;
  add_fused_conv_relu_op(plugin);
  ASSERT_EQ(plugin.components().size(), 1u);
  const runner::Component& c = plugin.components()[0];
  EXPECT_EQ(c.kind, runner::Kind::op);
  EXPECT_EQ(c.name, "fused_conv_relu");
  EXPECT_EQ(c.version, "1.0.0");
  EXPECT_TRUE(c.schema.keys().empty());
  std::shared_ptr<runner::Op> made = c.make_op(runner::Options("ops.fused_conv_relu"));
  EXPECT_EQ(made->arity(), 3);
  EXPECT_TRUE(made->has_reference());
}

// x all ones (1, 1, 3, 3), weight all ones (1, 1, 2, 2), bias -3.5, padding 1: an output
// covers (rows in range) x (columns in range) ones, so it is max(count - 3.5, 0): 0.5 where
// the window lies inside, 0 where it hangs over the border. For the sum of the outputs,
// grad_bias counts the positive outputs, grad_weight sums x under them, and grad_x counts
// the positive windows over each input.
TEST_F(FusedConvReluTest, MatchesACaseComputedByHand) {
  const torch::Tensor x = torch::ones({1, 1, 3, 3}, torch::kDouble).requires_grad_(true);
  const torch::Tensor w = torch::ones({1, 1, 2, 2}, torch::kDouble).requires_grad_(true);
  const torch::Tensor b = torch::full({1}, -3.5, torch::kDouble).requires_grad_(true);
  runner::OpAttributes padding_1;
  padding_1.set("padding", {1, 1});
  const torch::Tensor y = op_.forward({x, w, b}, padding_1);
  ASSERT_EQ(y.sizes(), (std::vector<int64_t>{1, 1, 4, 4}));
  const auto in_range = [](int64_t start) {  // cells of a 2-wide window from `start` in 0..2
    return std::min<int64_t>(start + 2, 3) - std::max<int64_t>(start, 0);
  };
  for (int64_t a = 0; a < 4; ++a)
    for (int64_t c = 0; c < 4; ++c) {
      const double count = static_cast<double>(in_range(a - 1) * in_range(c - 1));
      EXPECT_DOUBLE_EQ(y[0][0][a][c].item<double>(), std::max(count - 3.5, 0.0)) << a << "," << c;
    }
  y.sum().backward();
  EXPECT_DOUBLE_EQ(b.grad()[0].item<double>(), 4.0);
  EXPECT_TRUE(torch::equal(w.grad(), torch::full({1, 1, 2, 2}, 4.0, torch::kDouble)));
  const torch::Tensor expected_grad_x =
      torch::tensor({1.0, 2.0, 1.0, 2.0, 4.0, 2.0, 1.0, 2.0, 1.0}, torch::kDouble)
          .view({1, 1, 3, 3});
  EXPECT_TRUE(torch::equal(x.grad(), expected_grad_x)) << x.grad();
}

TEST_F(FusedConvReluTest, OutputAndGradientsMatchTheReference) {
  for (torch::ScalarType dtype : {torch::kFloat, torch::kDouble})
    for (const Case& c : kCases)
      expect_matches_reference(op_, c.inputs(dtype), c.attributes(), op_.tolerance(dtype),
                               c.name() + " " + c10::toString(dtype));
}

TEST_F(FusedConvReluTest, NonContiguousInputsGiveTheSameResult) {
  // x as a permuted (N, H, W, C) tensor, the weight as a transposed (C, O, kh, kw) one.
  const torch::Tensor x = torch::randn({2, 9, 11, 3}).permute({0, 3, 1, 2});
  const torch::Tensor w = torch::randn({3, 5, 3, 3}).transpose(0, 1);
  const torch::Tensor b = torch::randn({10}).slice(0, 0, 10, 2);
  ASSERT_FALSE(x.is_contiguous());
  ASSERT_FALSE(w.is_contiguous());
  ASSERT_FALSE(b.is_contiguous());
  runner::OpAttributes attributes;
  attributes.set("padding", {1, 1});
  expect_matches_reference(op_, {x, w, b}, attributes, op_.tolerance(torch::kFloat),
                           "non-contiguous");
  EXPECT_TRUE(
      torch::equal(op_.forward({x, w, b}, attributes),
                   op_.forward({x.contiguous(), w.contiguous(), b.contiguous()}, attributes)));
}

TEST_F(FusedConvReluTest, GradcheckPassesInFloat64) {
  const std::vector<Case> small = {{{2, 2, 5, 6}, 3, 3, 3, 1, 1, 1, 1},
                                   {{1, 2, 6, 7}, 2, 3, 3, 2, 2, 0, 0, false},
                                   {{2, 1, 5, 5}, 2, 2, 3, 2, 1, 1, 0},
                                   {{1, 2, 4, 4}, 2, 1, 1, 1, 1, 1, 1}};
  for (const Case& c : small) {
    const runner::OpAttributes attributes = c.attributes();
    const runner::GradcheckResult result = runner::gradcheck(
        [&](const std::vector<torch::Tensor>& in) { return op_.forward(in, attributes); },
        c.inputs(torch::kDouble));
    EXPECT_TRUE(result.passed) << c.name() << ": " << result.failure;
  }
}

TEST_F(FusedConvReluTest, EveryCheckCaseMatchesTheReference) {
  for (torch::ScalarType dtype : {torch::kFloat, torch::kDouble})
    for (const std::vector<int64_t>& shape : op_.check_shapes()) {
      const std::vector<runner::OpCase> cases =
          op_.check_cases(shape, torch::TensorOptions().dtype(dtype));
      ASSERT_GE(cases.size(), 4u);
      for (size_t i = 0; i < cases.size(); ++i)
        expect_matches_reference(op_, cases[i].inputs, cases[i].attributes, op_.tolerance(dtype),
                                 "check case " + std::to_string(i) + " " +
                                     cases[i].attributes.text() + " " + c10::toString(dtype));
    }
}

TEST_F(FusedConvReluTest, ComputesOnlyTheGradientsAskedFor) {
  const Case c{{2, 3, 8, 8}, 4, 3, 3, 1, 1, 1, 1};
  std::vector<torch::Tensor> in = c.inputs(torch::kFloat);
  const torch::Tensor w = in[1].clone().requires_grad_(true);
  const torch::Tensor y = op_.forward({in[0], w, in[2]}, c.attributes());
  y.sum().backward();
  EXPECT_FALSE(in[0].grad().defined());
  EXPECT_FALSE(in[2].grad().defined());
  const torch::Tensor w_ref = in[1].clone().requires_grad_(true);
  op_.reference({in[0], w_ref, in[2]}, c.attributes()).sum().backward();
  EXPECT_LE(relative_error(w.grad(), w_ref.grad()), 1e-5);

  const torch::Tensor x = in[0].clone().requires_grad_(true);
  const std::vector<torch::Tensor> precise = testing::in_double(in);
  const torch::Tensor x_ref = precise[0].clone().requires_grad_(true);
  op_.forward({x, in[1], in[2]}, c.attributes()).sum().backward();
  op_.reference({x_ref, precise[1], precise[2]}, c.attributes()).sum().backward();
  EXPECT_LE(relative_error(x.grad(), x_ref.grad()), 1e-5);
}

TEST_F(FusedConvReluTest, ResultsDoNotDependOnTheRunOrTheThreadCount) {
  const Case c{{5, 4, 12, 12}, 6, 3, 3, 1, 1, 1, 1};
  const std::vector<torch::Tensor> in = c.inputs(torch::kFloat);
  const int threads = at::get_num_threads();
  const auto gradients = [&] {
    std::vector<torch::Tensor> leaves = {in[0].clone().requires_grad_(true),
                                         in[1].clone().requires_grad_(true),
                                         in[2].clone().requires_grad_(true)};
    torch::Tensor y = op_.forward(leaves, c.attributes());
    y.sum().backward();
    return std::vector<torch::Tensor>{y.detach(), leaves[0].grad(), leaves[1].grad(),
                                      leaves[2].grad()};
  };
  at::set_num_threads(2);
  const std::vector<torch::Tensor> first = gradients(), second = gradients();
  at::set_num_threads(1);
  const std::vector<torch::Tensor> single = gradients();
  at::set_num_threads(threads);
  for (size_t i = 0; i < first.size(); ++i) EXPECT_TRUE(torch::equal(first[i], second[i])) << i;
  // Each sample is computed alone: output and grad_x do not depend on the split; the weight
  // and bias sums are grouped by thread.
  EXPECT_TRUE(torch::equal(first[0], single[0]));
  EXPECT_TRUE(torch::equal(first[1], single[1]));
  EXPECT_LE(relative_error(first[2], single[2]), 1e-6);
  EXPECT_LE(relative_error(first[3], single[3]), 1e-6);
}

TEST_F(FusedConvReluTest, AnEmptyBatchGivesAnEmptyOutputAndZeroGradients) {
  const torch::Tensor x = torch::randn({0, 2, 5, 5}).requires_grad_(true);
  const torch::Tensor w = torch::randn({3, 2, 3, 3}).requires_grad_(true);
  const torch::Tensor b = torch::randn({3}).requires_grad_(true);
  const torch::Tensor y = op_.forward({x, w, b}, {});
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{0, 3, 3, 3}));
  y.sum().backward();
  EXPECT_TRUE(torch::equal(w.grad(), torch::zeros_like(w)));
  EXPECT_TRUE(torch::equal(b.grad(), torch::zeros_like(b)));
}

}  // namespace
}  // namespace fused_conv_relu
