// The op against its reference (at::gelu, or x * sigmoid(1.702 x)), values and gradients,
// for each form and dtype, on every kind of shape: empty, batch 1, odd sizes, strided views,
// and tensors large enough to be split among threads; and the op's own check-op cases.
#include <gtest/gtest.h>

#include <memory>

#include "gelu_op.hpp"
#include "gelu_test_support.hpp"

namespace gelu {
namespace {

using test::forms;
using test::relative_error;

const std::vector<torch::ScalarType> kDtypes = {torch::kFloat, torch::kDouble};

// The op and its reference on `x`, values and gradients for a random upstream gradient,
// within the op's tolerance.
void expect_matches_reference(const GeluOp& op, const torch::Tensor& x, const std::string& what) {
  const torch::Tensor upstream = torch::randn(x.sizes(), x.options());
  const auto mine =
      test::value_and_gradient([&](const torch::Tensor& t) { return op(t); }, x, upstream);
  const auto reference = test::value_and_gradient(
      [&](const torch::Tensor& t) { return op.reference({t}, {}); }, x, upstream);
  const double tolerance = op.tolerance(x.scalar_type());
  ASSERT_EQ(mine.value.sizes(), x.sizes()) << what;
  ASSERT_EQ(mine.gradient.sizes(), x.sizes()) << what;
  EXPECT_EQ(mine.value.scalar_type(), x.scalar_type()) << what;
  EXPECT_LE(relative_error(mine.value, reference.value), tolerance) << what << " value";
  EXPECT_LE(relative_error(mine.gradient, reference.gradient), tolerance) << what << " gradient";
}

// Every form and dtype on the tensor `make(dtype)` returns.
void expect_all_match(const std::function<torch::Tensor(torch::ScalarType)>& make,
                      const std::string& what) {
  for (const auto& [name, form] : forms()) {
    const GeluOp op(form);
    for (torch::ScalarType dtype : kDtypes)
      expect_matches_reference(op, make(dtype), what + ", " + name + ", " + c10::toString(dtype));
  }
}

TEST(GeluReference, OddShapesAndABatchOfOne) {
  for (const std::vector<int64_t>& shape :
       std::vector<std::vector<int64_t>>{{1}, {1, 1}, {3, 7}, {1, 17}, {2, 5, 9}, {1, 3, 17, 33}}) {
    expect_all_match([&](torch::ScalarType dtype) { return torch::randn(shape, dtype) * 3; },
                     "shape " + c10::str(shape));
  }
}

TEST(GeluReference, AnEmptyTensorGivesEmptyValueAndGradient) {
  expect_all_match(
      [](torch::ScalarType dtype) {
        return torch::randn({0, 5}, dtype);
      },
      "shape (0, 5)");
}

TEST(GeluReference, ATransposedView) {
  expect_all_match(
      [](torch::ScalarType dtype) {
        torch::Tensor x = torch::randn({9, 13}, dtype).t();  // (13, 9), strides (1, 13)
        EXPECT_FALSE(x.is_contiguous());
        return x;
      },
      "transposed (13, 9)");
}

TEST(GeluReference, AStridedSlice) {
  expect_all_match(
      [](torch::ScalarType dtype) {
        torch::Tensor x = torch::randn({6, 40}, dtype).slice(1, 1, 40, 3);  // (6, 13), step 3
        EXPECT_FALSE(x.is_contiguous());
        return x;
      },
      "every third column (6, 13)");
}

TEST(GeluReference, TensorsSplitAmongThreads) {
  at::set_num_threads(2);
  ASSERT_EQ(at::get_num_threads(), 2);
  expect_all_match(
      [](torch::ScalarType dtype) {
        return torch::randn({4, 32769}, dtype) * 4;
      },
      "shape (4, 32769)");
  expect_all_match(
      [](torch::ScalarType dtype) {
        return torch::randn({3, 7, 10007}, dtype);
      },
      "shape (3, 7, 10007)");
}

TEST(GeluReference, OneThreadOrTwoMatchTheReference) {
  for (int threads : {1, 2}) {
    at::set_num_threads(threads);
    expect_all_match(
        [](torch::ScalarType dtype) {
          return torch::randn({5, 65537}, dtype) * 4;
        },
        "shape (5, 65537), threads " + std::to_string(threads));
  }
}

TEST(GeluReference, ExtremeInputsMatchTheReference) {
  expect_all_match(
      [](torch::ScalarType dtype) {
        return torch::tensor({-1e4, -100.0, -20.0, -9.0, -1e-30, 0.0, 1e-30, 9.0, 20.0, 1e4},
                             dtype);
      },
      "extreme values");
}

TEST(GeluReference, EveryCheckCaseOfEveryCheckShapeMatches) {
  for (const auto& [name, form] : forms()) {
    const GeluOp op(form);
    ASSERT_TRUE(op.has_reference());
    for (torch::ScalarType dtype : kDtypes)
      for (const std::vector<int64_t>& shape : op.check_shapes())
        for (const runner::OpCase& c : op.check_cases(shape, torch::TensorOptions(dtype))) {
          ASSERT_EQ(c.inputs.size(), 1u);
          expect_matches_reference(op, c.inputs[0],
                                   name + " " + c10::str(shape) + " " + c10::toString(dtype));
        }
  }
}

TEST(GeluReference, CheckShapesIncludeOddSizesABatchOfOneAndAThreadedSize) {
  const std::vector<std::vector<int64_t>> shapes = GeluOp(Approximation::none).check_shapes();
  bool batch_of_one = false, odd = false, threaded = false;
  for (const std::vector<int64_t>& shape : shapes) {
    const int64_t numel = c10::multiply_integers(shape);
    batch_of_one |= shape[0] == 1;
    odd |= numel % 2 == 1;
    threaded |= numel > 100000;
  }
  EXPECT_TRUE(batch_of_one);
  EXPECT_TRUE(odd);
  EXPECT_TRUE(threaded);
}

TEST(GeluReference, TolerancesAreAFewUlpsOfFloat) {
  EXPECT_LE(GeluOp(Approximation::none).tolerance(torch::kFloat), 2e-6);
  EXPECT_LE(GeluOp(Approximation::tanh).tolerance(torch::kFloat), 5e-6);
  EXPECT_LE(GeluOp(Approximation::sigmoid).tolerance(torch::kFloat), 1e-6);
  for (const auto& [name, form] : forms())
    EXPECT_LE(GeluOp(form).tolerance(torch::kDouble), 1e-12) << name;
}

}  // namespace
}  // namespace gelu
