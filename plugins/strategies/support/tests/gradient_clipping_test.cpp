// Tests of clipping: the norm after clipping, gradients under the limit, norms global over shards.
#include <gtest/gtest.h>

#include <runner/strategies/gradient_clipping.hpp>

#include <cmath>

#include "with_gradient.hpp"

namespace runner::strategies::support_tests {
namespace {

using testing::with_gradient;

double global_norm(const std::vector<torch::Tensor>& params) {
  double squares = 0;
  for (const auto& p : params)
    squares += p.grad().to(torch::kFloat64).square().sum().item<double>();
  return std::sqrt(squares);
}

TEST(GradientClipping, TheGlobalNormAfterClippingIsTheLimit) {
  torch::manual_seed(3);
  std::vector<torch::Tensor> params{with_gradient(torch::randn({40, 30})),
                                    with_gradient(torch::randn({30})),
                                    with_gradient(torch::randn({7, 3, 3}))};
  const double before = global_norm(params);
  ASSERT_GT(before, 1.0);
  const torch::Tensor direction = params[0].grad() / before;
  EXPECT_NEAR(clip_gradient_norm(params, 1.0), before, 1e-6 * before);
  EXPECT_NEAR(global_norm(params), 1.0, 1e-6);
  // Every gradient shrank by the same factor: the direction is kept.
  EXPECT_TRUE(torch::allclose(params[0].grad(), direction, 1e-5, 1e-7));
}

TEST(GradientClipping, GradientsUnderTheLimitAreLeftAlone) {
  std::vector<torch::Tensor> params{with_gradient(torch::tensor({0.3, 0.4}))};  // norm 0.5
  EXPECT_NEAR(clip_gradient_norm(params, 1.0), 0.5, 1e-7);
  EXPECT_TRUE(torch::equal(params[0].grad(), torch::tensor({0.3, 0.4})));
}

TEST(GradientClipping, TheNormIsGlobalOverShardsOnOtherRanks) {
  // This rank's shard has norm 3; another rank's has norm 4: the global norm is 5.
  std::vector<torch::Tensor> mine{with_gradient(torch::tensor({3.0}))};
  const auto other_rank = [](torch::Tensor& squares) { squares.add_(16.0); };
  EXPECT_NEAR(clip_gradient_norm(mine, 1.0, other_rank), 5.0, 1e-9);
  EXPECT_NEAR(mine[0].grad().item<double>(), 3.0 / 5.0, 1e-7);
}

TEST(GradientClipping, WholeGradientsAreCountedOnceBesideTheShards) {
  // Shards of norm 3 here and 4 elsewhere, and a gradient of norm 12 every rank holds alike:
  // sqrt(9 + 16 + 144) = 13, the whole gradient not summed over the ranks.
  std::vector<torch::Tensor> mine{with_gradient(torch::tensor({3.0}))};
  std::vector<torch::Tensor> whole{with_gradient(torch::tensor({12.0}))};
  const auto other_rank = [](torch::Tensor& squares) { squares.add_(16.0); };
  EXPECT_NEAR(clip_gradient_norm(mine, 1.0, other_rank, whole), 13.0, 1e-9);
  EXPECT_NEAR(mine[0].grad().item<double>(), 3.0 / 13.0, 1e-7);
  EXPECT_NEAR(whole[0].grad().item<double>(), 12.0 / 13.0, 1e-7);
}

TEST(GradientClipping, TheSumIsCalledEvenWithoutGradientsHere) {
  // A rank whose shard got no gradient still joins the collective the others wait in.
  std::vector<torch::Tensor> none{torch::zeros({2})};
  bool summed = false;
  const auto other_rank = [&](torch::Tensor& squares) {
    summed = true;
    squares.add_(4.0);
  };
  EXPECT_NEAR(clip_gradient_norm(none, 10.0, other_rank), 2.0, 1e-9);
  EXPECT_TRUE(summed);
}

}  // namespace
}  // namespace runner::strategies::support_tests
