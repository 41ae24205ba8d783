// Tests of the learning rate schedules: constant, step, cosine, one-cycle as PyTorch, warmup.
#include <gtest/gtest.h>

#include <cmath>

#include "train/optimizers.hpp"

namespace runner::train {
namespace {

Options schedule(const std::string& name) {
  Options o("schedule");
  o.set("name", name);
  o.set("step_size", int64_t{2});
  o.set("gamma", 0.5);
  o.set("min_lr", 0.0);
  o.set("max_lr", 0.0);
  o.set("pct_start", 0.25);
  o.set("warmup_steps", int64_t{0});
  return o;
}

TEST(Schedule, ConstantKeepsTheBaseRate) {
  LearningRateSchedule s(schedule("constant"), 0.1, 10, 3);
  EXPECT_DOUBLE_EQ(s.at(0), 0.1);
  EXPECT_DOUBLE_EQ(s.at(29), 0.1);
}

TEST(Schedule, StepMultipliesByGammaEveryStepSizeEpochs) {
  LearningRateSchedule s(schedule("step"), 0.1, 10, 6);
  EXPECT_DOUBLE_EQ(s.at(19), 0.1);    // epoch 1 (0-based)
  EXPECT_DOUBLE_EQ(s.at(20), 0.05);   // epoch 2
  EXPECT_DOUBLE_EQ(s.at(45), 0.025);  // epoch 4
}

TEST(Schedule, CosineFallsFromBaseToMinimum) {
  Options o = schedule("cosine");
  o.set("min_lr", 0.01);
  LearningRateSchedule s(o, 0.1, 10, 10);  // 100 steps
  EXPECT_DOUBLE_EQ(s.at(0), 0.1);
  EXPECT_NEAR(s.at(50), 0.01 + 0.09 * 0.5, 1e-12);
  EXPECT_NEAR(s.at(25), 0.01 + 0.09 * (1 + std::cos(M_PI * 0.25)) / 2, 1e-12);
  EXPECT_NEAR(s.at(100), 0.01, 1e-12);
}

TEST(Schedule, OneCycleRisesToMaxThenAnnealsAsPyTorch) {
  Options o = schedule("one_cycle");
  o.set("max_lr", 1.0);
  LearningRateSchedule s(o, 0.1, 10, 10);  // 100 steps, warm-up ends at step 24
  EXPECT_NEAR(s.at(0), 1.0 / 25, 1e-12);
  EXPECT_NEAR(s.at(24), 1.0, 1e-12);
  EXPECT_NEAR(s.at(99), 1.0 / 25 / 1e4, 1e-12);
  EXPECT_LT(s.at(60), s.at(30));
}

TEST(Schedule, WarmupRampsLinearly) {
  Options o = schedule("constant");
  o.set("warmup_steps", int64_t{4});
  LearningRateSchedule s(o, 0.2, 10, 1);
  EXPECT_DOUBLE_EQ(s.at(0), 0.05);
  EXPECT_DOUBLE_EQ(s.at(3), 0.2);
  EXPECT_DOUBLE_EQ(s.at(4), 0.2);
}

}  // namespace
}  // namespace runner::train
