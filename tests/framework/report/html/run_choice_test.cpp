// choose_runs: points of (experiment, sweep point) in first-run order, each point's result, and
// the role of every other run, as Python's chosen_runs chooses.
#include "report/html/run_choice.hpp"

#include <gtest/gtest.h>

#include "html_test_runs.hpp"

namespace runner::report::html {
namespace {

using results::RunRecord;
using results::Status;
using testing::abandoned_run;
using testing::test_run;

std::vector<Role> roles_of(const std::vector<RunRecord>& runs) { return choose_runs(runs).roles; }

TEST(RunChoice, GivesEveryRoleAtOnePoint) {
  const std::vector<RunRecord> runs = {test_run("smoke", Status::completed, 5),
                                       test_run("first", Status::completed, 10),
                                       test_run("result", Status::completed, 10),
                                       test_run("failed", Status::failed, 4),
                                       test_run("skipped", Status::skipped),
                                       test_run("running", Status::running, 2),
                                       abandoned_run("killed")};
  const RunChoice choice = choose_runs(runs);
  ASSERT_EQ(choice.points.size(), 1u);
  EXPECT_EQ(choice.points[0].result, 2u);
  EXPECT_EQ(choice.points[0].status, "completed");
  EXPECT_EQ(choice.roles, (std::vector<Role>{Role::smoke, Role::earlier, Role::result, Role::failed,
                                             Role::skipped, Role::running, Role::partial}));
  EXPECT_EQ(choice.points_of, (std::vector<size_t>(runs.size(), 0)));
}

TEST(RunChoice, TheMostStepsWinAndATieGoesToTheLatest) {
  const std::vector<RunRecord> runs = {
      test_run("a", Status::completed, 10), test_run("b", Status::completed, 20),
      test_run("c", Status::completed, 20), test_run("d", Status::completed, 15)};
  EXPECT_EQ(choose_runs(runs).points[0].result, 2u);
  EXPECT_EQ(roles_of(runs),
            (std::vector<Role>{Role::smoke, Role::earlier, Role::result, Role::smoke}));
}

TEST(RunChoice, APointWithoutACompletedRunHasNoResultAndItsLatestRunsStatus) {
  const std::vector<RunRecord> runs = {
      test_run("p0-failed", Status::failed, 1, {{"k", int64_t{0}}}),
      test_run("p0-skipped", Status::skipped, 0, {{"k", int64_t{0}}}),
      test_run("p1-failed", Status::failed, 1, {{"k", int64_t{1}}}),
      abandoned_run("p1-killed", {{"k", int64_t{1}}}),
      test_run("p2-running", Status::running, 1, {{"k", int64_t{2}}}),
      test_run("p3-failed", Status::failed, 1, {{"k", int64_t{3}}})};
  const RunChoice choice = choose_runs(runs);
  ASSERT_EQ(choice.points.size(), 4u);
  const char* statuses[] = {"skipped", "partial", "running", "failed"};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_FALSE(choice.points[i].result) << i;
    EXPECT_EQ(choice.points[i].status, statuses[i]) << i;
  }
}

TEST(RunChoice, PointsAreTheExperimentAndTheSweepValuesInTheOrderOfTheirFirstRuns) {
  const std::vector<RunRecord> runs = {
      test_run("a1", Status::completed, 1, {{"lr", 0.1}, {"bs", int64_t{32}}}, "a"),
      test_run("a2", Status::completed, 1, {{"lr", 0.2}, {"bs", int64_t{32}}}, "a"),
      test_run("b1", Status::completed, 1, {{"lr", 0.1}, {"bs", int64_t{32}}}, "b"),
      test_run("a1-again", Status::completed, 1, {{"bs", int64_t{32}}, {"lr", 0.1}}, "a")};
  const RunChoice choice = choose_runs(runs);
  ASSERT_EQ(choice.points.size(), 3u);
  EXPECT_EQ(choice.points_of, (std::vector<size_t>{0, 1, 2, 0}));
  EXPECT_EQ(choice.points[0].runs, (std::vector<size_t>{0, 3}));
  EXPECT_EQ(choice.points[0].result, 3u);
  EXPECT_EQ(choice.points[2].experiment, "b");
}

TEST(RunChoice, NoRunsHaveNoPoints) {
  const RunChoice choice = choose_runs({});
  EXPECT_TRUE(choice.points.empty());
  EXPECT_TRUE(choice.roles.empty());
}

TEST(RoleName, NamesEachRoleAsThePageDoes) {
  EXPECT_STREQ(role_name(Role::result), "result");
  EXPECT_STREQ(role_name(Role::smoke), "smoke");
  EXPECT_STREQ(role_name(Role::earlier), "earlier");
  EXPECT_STREQ(role_name(Role::failed), "failed");
  EXPECT_STREQ(role_name(Role::skipped), "skipped");
  EXPECT_STREQ(role_name(Role::partial), "partial");
  EXPECT_STREQ(role_name(Role::running), "running");
}

}  // namespace
}  // namespace runner::report::html
