// Tests of the loss scaler: unscaling, overflows that halve the scale, growth, overflow on a shard.
#include <gtest/gtest.h>

#include <runner/strategies/loss_scaler.hpp>

#include <limits>

#include "with_gradient.hpp"

namespace runner::strategies::support_tests {
namespace {

using testing::with_gradient;

LossScaling settings(int64_t growth_interval) {
  LossScaling s;
  s.initial_scale = 1024;
  s.growth_interval = growth_interval;
  return s;
}

TEST(LossScaler, ScalesTheLossAndUnscalesFiniteGradients) {
  LossScaler scaler(settings(10));
  EXPECT_DOUBLE_EQ(scaler.scale_loss(torch::tensor(0.5)).item<double>(), 512.0);
  auto p = with_gradient(torch::tensor({1024.0, -2048.0}));
  EXPECT_TRUE(scaler.unscale({p}));
  EXPECT_TRUE(torch::equal(p.grad(), torch::tensor({1.0, -2.0})));
}

TEST(LossScaler, AnOverflowIsFoundInAnyGradientAndHalvesTheScale) {
  LossScaler scaler(settings(10));
  auto fine = with_gradient(torch::tensor({1.0}));
  auto overflowed = with_gradient(torch::tensor({1.0, std::numeric_limits<double>::infinity()}));
  EXPECT_FALSE(scaler.unscale({fine, overflowed}));
  scaler.update(false);
  EXPECT_DOUBLE_EQ(scaler.scale(), 512.0);
  auto nan = with_gradient(torch::tensor({std::numeric_limits<double>::quiet_NaN()}));
  EXPECT_FALSE(scaler.unscale({nan}));
}

TEST(LossScaler, GrowsAfterTheIntervalOfGoodStepsAndAnOverflowRestartsTheCount) {
  LossScaler scaler(settings(3));
  scaler.update(true);
  scaler.update(true);
  EXPECT_DOUBLE_EQ(scaler.scale(), 1024.0);
  scaler.update(true);
  EXPECT_DOUBLE_EQ(scaler.scale(), 2048.0);
  scaler.update(true);
  scaler.update(true);
  scaler.update(false);  // 2 good steps, then an overflow: the count starts again
  EXPECT_DOUBLE_EQ(scaler.scale(), 1024.0);
  scaler.update(true);
  scaler.update(true);
  EXPECT_DOUBLE_EQ(scaler.scale(), 1024.0);
  scaler.update(true);
  EXPECT_DOUBLE_EQ(scaler.scale(), 2048.0);
}

TEST(LossScaler, AnOverflowOnAnotherShardCountsThroughTheSum) {
  LossScaler scaler(settings(10));
  auto fine = with_gradient(torch::tensor({2.0}));
  // Another rank's shard overflowed: the sum over shards brings its count here.
  EXPECT_FALSE(scaler.unscale({fine}, [](torch::Tensor& bad) { bad.add_(1); }));
  EXPECT_TRUE(scaler.unscale({fine}, [](torch::Tensor&) {}));
}

}  // namespace
}  // namespace runner::strategies::support_tests
