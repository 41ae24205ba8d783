// Tests of the gradient buckets: packing in reverse, gradients in them, zeros for unreached ones.
#include <gtest/gtest.h>

#include "../gradient_buckets.hpp"
#include "tiny_model.hpp"

namespace runner::testing::ddp_tests {
namespace {

using strategies::GradientBuckets;

std::vector<torch::Tensor> parameters_of(TinyModel& model) { return model.parameters(); }

TEST(GradientBuckets, PackParametersInReverseUpToTheBucketSize) {
  TinyModel model;  // first.weight 128 B, first.bias 32, norm.weight 32, norm.bias 32,
                    // second.weight 96, second.bias 12
  auto params = parameters_of(model);
  ASSERT_EQ(params.size(), 6u);
  GradientBuckets one(params, 1 << 20, std::make_shared<SingleRankCommunicator>(), true);
  EXPECT_EQ(one.layout(), (std::vector<std::vector<size_t>>{{5, 4, 3, 2, 1, 0}}));
  GradientBuckets small(params, 140, std::make_shared<SingleRankCommunicator>(), true);
  // 12 + 96 + 32 = 140, + 32 > 140; 32 + 32 = 64, + 128 > 140; 128.
  EXPECT_EQ(small.layout(), (std::vector<std::vector<size_t>>{{5, 4, 3}, {2, 1}, {0}}));
}

TEST(GradientBuckets, GradientsEndUpInTheBucketsAndParametersPointIntoThem) {
  TinyModel model;
  auto params = parameters_of(model);
  GradientBuckets buckets(params, 140, std::make_shared<SingleRankCommunicator>(), true);
  Batch batch = batch_of(0);
  buckets.begin_backward();
  model.loss(model.forward(batch.inputs), batch.targets).backward();
  std::vector<torch::Tensor> autograd;  // undefined for norm's, which forward skips
  for (const auto& p : params) autograd.push_back(p.grad().defined() ? p.grad().clone() : p.grad());
  buckets.finish_backward();
  for (size_t k = 0; k < params.size(); ++k) {
    if (!autograd[k].defined()) continue;
    EXPECT_TRUE(torch::equal(params[k].grad(), autograd[k])) << k;
  }
  // Buckets {5, 4, 3}, {2, 1}, {0}: the gradients of one bucket share its buffer.
  EXPECT_TRUE(params[5].grad().is_alias_of(params[4].grad()));
  EXPECT_TRUE(params[2].grad().is_alias_of(params[1].grad()));
  EXPECT_FALSE(params[1].grad().is_alias_of(params[0].grad()));
}

TEST(GradientBuckets, AParameterBackwardDidNotReachGetsAZeroGradient) {
  TinyModel model;  // batch_norm off: norm's parameters get no gradient
  auto params = parameters_of(model);
  GradientBuckets buckets(params, 1 << 20, std::make_shared<SingleRankCommunicator>(), true);
  Batch batch = batch_of(0);
  buckets.begin_backward();
  model.loss(model.forward(batch.inputs), batch.targets).backward();
  buckets.finish_backward();
  EXPECT_TRUE(torch::equal(params[2].grad(), torch::zeros_like(params[2])));
}

}  // namespace
}  // namespace runner::testing::ddp_tests
