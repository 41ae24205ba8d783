// A plan trial's measured step as the results file gives it, and the rank correlation of the
// plan's predictions with the measured steps.
#include "results/plan_trials.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace runner::results {
namespace {

RunRecord run_with_steps(const std::vector<double>& durations, Status status) {
  RunRecord run;
  run.status = status;
  for (size_t i = 0; i < durations.size(); ++i)
    run.steps.push_back({static_cast<int64_t>(i + 1), 1.0, 1e-3, durations[i]});
  return run;
}

TEST(PlanTrials, TheMeasuredStepIsTheMedianAfterTheFirst) {
  EXPECT_DOUBLE_EQ(*measured_step_s(run_with_steps({9, 3, 1, 2}, Status::completed)), 2.0);
  EXPECT_DOUBLE_EQ(*measured_step_s(run_with_steps({9, 4, 2}, Status::completed)), 3.0);
  EXPECT_DOUBLE_EQ(*measured_step_s(run_with_steps({5}, Status::completed)), 5.0);
  EXPECT_FALSE(measured_step_s(run_with_steps({1, 2}, Status::failed)));
  EXPECT_FALSE(measured_step_s(run_with_steps({}, Status::completed)));
}

TEST(PlanTrials, RankCorrelationIsSpearmans) {
  EXPECT_DOUBLE_EQ(rank_correlation({1, 2, 3}, {10, 20, 30}), 1.0);
  EXPECT_DOUBLE_EQ(rank_correlation({1, 2, 3}, {3, 2, 1}), -1.0);
  // Without ties: 1 - 6 sum(d^2) / (n (n^2 - 1)) = 1 - 6 * 4 / (5 * 24).
  EXPECT_DOUBLE_EQ(rank_correlation({1, 2, 3, 4, 5}, {2, 1, 4, 3, 5}), 0.8);
  // Ties at their mean rank: ranks (1, 2.5, 2.5) against (1, 2, 3): 1.5 / sqrt(1.5 * 2).
  EXPECT_NEAR(rank_correlation({1, 7, 7}, {1, 2, 3}), 1.5 / std::sqrt(3.0), 1e-12);
  EXPECT_TRUE(std::isnan(rank_correlation({1}, {2})));
  EXPECT_TRUE(std::isnan(rank_correlation({4, 4}, {1, 2})));
}

}  // namespace
}  // namespace runner::results
