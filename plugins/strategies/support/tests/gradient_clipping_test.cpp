#include <gtest/gtest.h>

#include <runner/strategies/gradient_clipping.hpp>

#include <cmath>

#include "with_gradient.hpp"

namespace runner::strategies {
namespace {

using testing::with_gradient;

double global_norm(const std::vector<torch::Tensor>& params) {
  double squares = 0;
  for (const auto& p : params) squares += p.grad().to(torch::kFloat64).square().sum().item<double>();
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

}  // namespace
}  // namespace runner::strategies
