// step_series: every step up to 500 steps, 250 buckets of consecutive steps beyond, each
// bucket's numbers worked out here from the steps' formula.
#include "report/html/step_series.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace runner::report::html {
namespace {

using results::StepRecord;

// Step s has loss s and lasts 2 s: a bucket's mean, least and most follow from its ends.
std::vector<StepRecord> linear_steps(int64_t count) {
  std::vector<StepRecord> steps;
  for (int64_t s = 1; s <= count; ++s)
    steps.push_back({s, static_cast<double>(s), 0.1, 2.0 * static_cast<double>(s)});
  return steps;
}

TEST(StepSeries, KeepsEveryStepOfUpTo500) {
  const StepSeries series = step_series(linear_steps(500));
  EXPECT_EQ(series.count, 500u);
  ASSERT_EQ(series.step.size(), 500u);
  for (size_t i = 0; i < series.step.size(); ++i) {
    const double s = static_cast<double>(i + 1);
    EXPECT_EQ(series.step[i], static_cast<int64_t>(i + 1));
    EXPECT_EQ(series.loss[i], s);
    EXPECT_EQ(series.loss_low[i], s);
    EXPECT_EQ(series.loss_high[i], s);
    EXPECT_EQ(series.duration_s[i], 2 * s);
  }
}

void expect_buckets_of(int64_t count) {
  const StepSeries series = step_series(linear_steps(count));
  EXPECT_EQ(series.count, static_cast<size_t>(count));
  ASSERT_EQ(series.step.size(), kStepBuckets);
  ASSERT_EQ(series.loss.size(), kStepBuckets);
  for (size_t i = 0; i < kStepBuckets; ++i) {
    const int64_t first = static_cast<int64_t>(i) * count / 250 + 1;
    const int64_t last = static_cast<int64_t>(i + 1) * count / 250;
    EXPECT_EQ(series.step[i], last) << i;
    EXPECT_DOUBLE_EQ(series.loss[i], (first + last) / 2.0) << i;
    EXPECT_EQ(series.loss_low[i], first) << i;
    EXPECT_EQ(series.loss_high[i], last) << i;
    EXPECT_DOUBLE_EQ(series.duration_s[i], static_cast<double>(first + last)) << i;
  }
  EXPECT_EQ(series.step.back(), count) << "the series reaches the data's end";
}

TEST(StepSeries, Makes250BucketsOfMoreThan500Steps) {
  expect_buckets_of(2001);
  expect_buckets_of(12000);
  expect_buckets_of(12345);
}

TEST(StepSeries, LeavesNaNOutOfABucketAndKeepsABucketOfNaNOnly) {
  std::vector<StepRecord> steps = linear_steps(750);  // buckets of 3 steps
  const double nan = std::numeric_limits<double>::quiet_NaN();
  steps[0].loss = nan;
  for (size_t i = 3; i < 6; ++i) steps[i].loss = nan;
  const StepSeries series = step_series(steps);
  EXPECT_EQ(series.loss[0], 2.5);
  EXPECT_EQ(series.loss_low[0], 2);
  EXPECT_EQ(series.loss_high[0], 3);
  EXPECT_TRUE(std::isnan(series.loss[1]));
  EXPECT_TRUE(std::isnan(series.loss_low[1]));
  EXPECT_TRUE(std::isnan(series.loss_high[1]));
  EXPECT_EQ(series.duration_s[1], 10);
}

TEST(StepSeries, NoStepsGiveAnEmptySeries) {
  const StepSeries series = step_series({});
  EXPECT_EQ(series.count, 0u);
  EXPECT_TRUE(series.step.empty());
  EXPECT_TRUE(series.loss.empty());
}

}  // namespace
}  // namespace runner::report::html
