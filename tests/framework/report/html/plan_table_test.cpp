// plan_table: `runner plan`'s trials among a file's runs, one per point, fastest predicted
// first, with the median step after the first as measured and Spearman's rank correlation.
#include "report/html/plan_table.hpp"

#include <gtest/gtest.h>

#include <string>

#include "html_test_runs.hpp"

namespace runner::report::html {
namespace {

using nlohmann::json;
using results::RunRecord;
using results::Status;
using testing::test_run;

// A trial of `strategy` predicted at `predicted_s`; its step s lasts s ms (test_run), so the
// median after the first of n steps is (n + 2) / 2 ms.
RunRecord trial(const std::string& strategy, double predicted_s, Status status, int64_t steps,
                const std::string& experiment = "study") {
  RunRecord run = test_run(strategy, status, steps, {{"strategy.name", strategy}}, experiment);
  run.header.config_toml =
      "[experiment]\nplan_step_s = " + std::to_string(predicted_s) + "\n[train]\nepochs = 1\n";
  return run;
}

json plans_of(const std::vector<RunRecord>& runs) { return plans_json(runs, choose_runs(runs)); }

TEST(PlanTable, TrialsAreOrderedAsPredictedWithTheirMeasuredStepAndRankCorrelation) {
  const std::vector<RunRecord> runs = {
      trial("a", 0.03, Status::completed, 4), trial("b", 0.01, Status::completed, 6),
      trial("c", 0.02, Status::completed, 2), trial("d", 0.04, Status::failed, 3),
      test_run("by-hand", Status::completed, 5)};
  const json plans = plans_of(runs);
  ASSERT_EQ(plans.size(), 1u) << plans.dump();
  const json& plan = plans[0];
  EXPECT_EQ(plan["experiment"], "study");
  ASSERT_EQ(plan["trials"].size(), 4u) << "the run started by hand is no trial";
  const std::vector<size_t> order = {1, 2, 0, 3};  // b, c, a, d: by predicted step
  const std::vector<double> predicted = {0.01, 0.02, 0.03, 0.04};
  const std::vector<double> measured = {0.004, 0.002, 0.003};
  for (size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ(plan["trials"][i]["run"], order[i]);
    EXPECT_DOUBLE_EQ(plan["trials"][i]["predicted_s"].get<double>(), predicted[i]);
    if (i < measured.size()) {
      EXPECT_DOUBLE_EQ(plan["trials"][i]["measured_s"].get<double>(), measured[i]);
    }
  }
  EXPECT_TRUE(plan["trials"][3]["measured_s"].is_null()) << "a failed trial measured nothing";
  EXPECT_EQ(plan["measured"], 3);
  // Ranks of predicted (1, 2, 3) against measured (3, 1, 2): 1 - 6 * 6 / (3 * 8).
  EXPECT_DOUBLE_EQ(plan["rank_correlation"].get<double>(), -0.5);
}

TEST(PlanTable, APointTriedAgainIsOneTrialItsResult) {
  const std::vector<RunRecord> runs = {trial("a", 0.01, Status::failed, 1),
                                       trial("a", 0.01, Status::completed, 4),
                                       trial("b", 0.02, Status::running, 2)};
  const json plan = plans_of(runs)[0];
  ASSERT_EQ(plan["trials"].size(), 2u);
  EXPECT_EQ(plan["trials"][0]["run"], 1);
  EXPECT_EQ(plan["trials"][1]["run"], 2) << "a point without a result stands by its latest run";
  EXPECT_TRUE(plan["trials"][1]["measured_s"].is_null());
  EXPECT_TRUE(plan["rank_correlation"].is_null()) << "fewer than 3 measured";
  EXPECT_EQ(plan["measured"], 1);
}

// Three measured trials of one step time each: no order to correlate, so none is given.
TEST(PlanTable, MeasuredStepsAllAlikeHaveNoRankCorrelation) {
  const json plan =
      plans_of({trial("a", 0.01, Status::completed, 4), trial("b", 0.02, Status::completed, 4),
                trial("c", 0.03, Status::completed, 4)})[0];
  EXPECT_EQ(plan["measured"], 3);
  EXPECT_TRUE(plan["rank_correlation"].is_null());
}

TEST(PlanTable, EachExperimentIsItsOwnPlan) {
  const std::vector<RunRecord> runs = {trial("a", 0.01, Status::completed, 4, "first"),
                                       trial("a", 0.02, Status::completed, 4, "second")};
  const json plans = plans_of(runs);
  ASSERT_EQ(plans.size(), 2u);
  EXPECT_EQ(plans[0]["experiment"], "first");
  EXPECT_EQ(plans[1]["experiment"], "second");
}

TEST(PlanTable, AFileWithoutTrialsHasNoPlanAndABadPredictionIsNoTrial) {
  std::vector<RunRecord> runs = {test_run("by-hand", Status::completed, 5),
                                 trial("zero", 0.0, Status::completed, 3)};
  runs.push_back(trial("damaged", 0.01, Status::completed, 3));
  runs.back().header.config_toml = "[experiment\nplan_step_s = 0.01";
  EXPECT_TRUE(plans_of(runs).empty());
}

}  // namespace
}  // namespace runner::report::html
