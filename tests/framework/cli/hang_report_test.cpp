// The hang report of a failed run: its first line names the rank at fault, where it was, and
// the collective the others wait in, at the right step, under ddp and each sharded or split
// layout; the same report is in the results file; a rank without progress gives up by itself
// (train.stall_timeout_s), and a stall timeout below the collective timeout is refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "results/read_runs.hpp"
#include "results/results.hpp"
#include "run_binary.hpp"

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace runner::testing {
namespace {

// The blobs fixture on the layered probe for one epoch of 16 steps; returns the arguments.
std::string hang_run(const std::string& dir, const std::string& train, const std::string& rest) {
  write_file(dir + "/exp.toml",
             "[experiment]\nname = \"blobs\"\nresults = \"" + dir + "/r.h5\"\n" +
                 "[dataset]\nname = \"blobs\"\n[model]\nname = \"layered_probe\"\n"
                 "[train]\nepochs = 1\nbatch_size = 32\nthreads = 1\n" +
                 train + "[optimizer]\nname = \"sgd\"\nlr = 0.5\n" + rest);
  return "--plugin-path " + fixture_plugins() + " " + dir + "/exp.toml";
}

results::RunRecord reported_run(const std::string& path) {
  auto runs = results::read_runs(path);
  EXPECT_EQ(runs.size(), 1u);
  return runs.at(0);
}

// Rank 1 stalls as step 5 starts, for longer than the run's collective timeout (2 s), and then
// meets the collective rank 0 left: it ends by itself before the launcher's grace (12 s).
constexpr const char* kRank1StallsAtStep5 =
    "[fault]\nkind = \"stop\"\nrank = 1\nstep = 5\nseconds = 6\n";

class StalledRank : public ::testing::TestWithParam<Layout> {};

TEST_P(StalledRank, IsNamedWithWhereItIsAndTheCollectiveTheOtherWaitsIn) {
  const std::string dir = scratch_dir("hang_" + GetParam().name);
  const Output out = run_runner(hang_run(dir, "stall_timeout_s = 0\n",
                                         "[strategy]\nworld_size = 2\ntimeout_s = 2\n" +
                                             GetParam().strategy + "\n" + kRank1StallsAtStep5));
  ASSERT_EQ(out.exit_code, 5) << out.err;
  const auto run = reported_run(dir + "/r.h5");
  EXPECT_THAT(run.error, StartsWith("rank 1 has been in data loading of step 5 for ")) << run.error;
  EXPECT_THAT(run.error, ContainsRegex("; rank 0 waits in [a-z_]+ #[0-9]+ of world[^(]* \\(.*"
                                       "step 5, (forward|backward|optimizer)\\)$"))
      << run.error;
  EXPECT_THAT(out.err, HasSubstr("runner: error: " + run.error + "\n")) << out.err;
  ASSERT_EQ(run.hang_reports.size(), 1u);
  const results::HangReportRecord& report = run.hang_reports[0];
  EXPECT_EQ(report.attempt, 0);
  EXPECT_EQ(report.first_line, run.error);
  ASSERT_EQ(report.ranks.size(), 2u);
  EXPECT_THAT(report.ranks[0], StartsWith("rank 0: in ")) << report.ranks[0];
  EXPECT_THAT(report.ranks[0], HasSubstr(", waits in ")) << report.ranks[0];
  EXPECT_THAT(report.ranks[1], StartsWith("rank 1: in data loading of step 5 for "));
  EXPECT_THAT(report.ranks[1], HasSubstr("step 4")) << "its last completed: " << report.ranks[1];
  EXPECT_THAT(out.err, HasSubstr("  " + report.ranks[1] + "\n"));
}

// Data parallel, sharded, and split into stages (zero-3 and tensor meet a stall the same way:
// a rank waits in a collective of the step).
INSTANTIATE_TEST_SUITE_P(Strategies, StalledRank,
                         ::testing::Values(Layout{"ddp", "name = \"ddp\""}, sharded_layouts()[0],
                                           sharded_layouts()[2]),
                         layout_name);

// No launcher of runner's sees the ranks under torchrun: each failed rank says where the ranks
// were in its own log, and rank 0 keeps the report in the results file.
TEST(HangUnderTorchrun, EachFailedRankLogsTheReportAndRank0KeepsIt) {
  const std::string dir = scratch_dir("hang_torchrun");
  const std::string args = hang_run(dir, "stall_timeout_s = 0\n",
                                    "[strategy]\nname = \"ddp\"\nworld_size = 2\ntimeout_s = 2\n"
                                    "[fault]\nkind = \"stop\"\nrank = 1\nstep = 5\nseconds = 8\n");
  const std::vector<int> codes = run_as_torchrun(2, args, dir);
  EXPECT_EQ(codes.at(0), 5) << read_file(dir + "/out0");
  const std::string log = read_file(dir + "/out0");
  EXPECT_THAT(log, ContainsRegex("rank 0: where the ranks were: rank 1 has been in data loading "
                                 "of step 5 for [0-9.]+ s; rank 0 waits in all_reduce #"))
      << log;
  EXPECT_THAT(log, HasSubstr("rank 0:   rank 1: in data loading of step 5 for ")) << log;
  const auto run = reported_run(dir + "/r.h5");
  ASSERT_EQ(run.hang_reports.size(), 1u);
  EXPECT_THAT(run.hang_reports[0].first_line,
              StartsWith("rank 1 has been in data loading of step 5 for "));
  EXPECT_EQ(run.hang_reports[0].ranks.size(), 2u);
}

TEST(StallTimeout, ARankWithoutProgressGivesUpAndTheRestartNamesWhere) {
  const std::string dir = scratch_dir("hang_stall_watch");
  const Output out =
      run_runner(hang_run(dir, "stall_timeout_s = 1\n",
                          "[strategy]\nname = \"single\"\n[checkpoint]\nevery_steps = 4\n"
                          "[fault]\nkind = \"stop\"\nrank = 0\nstep = 6\nseconds = 60\n") +
                 " --max-restarts 1");
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_THAT(out.err, HasSubstr("rank 0: error: made no progress for 1 s in data loading of step "
                                 "6 (train.stall_timeout_s = 1)"))
      << out.err;
  const auto run = reported_run(dir + "/r.h5");
  EXPECT_EQ(run.status, results::Status::completed);
  ASSERT_EQ(run.restarts.size(), 1u);
  EXPECT_THAT(run.restarts[0].cause,
              ContainsRegex("^rank 0 has been in data loading of step 6 for [0-9.]+ s$"))
      << run.restarts[0].cause;
  EXPECT_EQ(run.restarts[0].resumed_step, 4);
  ASSERT_EQ(run.hang_reports.size(), 1u);
  EXPECT_EQ(run.hang_reports[0].first_line, run.restarts[0].cause);
  EXPECT_THAT(run.hang_reports[0].ranks.at(0),
              StartsWith("rank 0: gave up (train.stall_timeout_s), in data loading of step 6"));
}

TEST(StallTimeout, BelowTheCollectiveTimeoutIsAOneLineErrorNamingBothKeys) {
  const std::string dir = scratch_dir("hang_stall_below");
  const Output out =
      run_runner(hang_run(dir, "stall_timeout_s = 5\n",
                          "[strategy]\nname = \"ddp\"\nworld_size = 2\ntimeout_s = 20\n"));
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_THAT(out.err, HasSubstr("train.stall_timeout_s = 5: below the collective timeout "
                                 "(strategy.timeout_s = 20)"))
      << out.err;
  EXPECT_THAT(out.err, HasSubstr("hint: raise it to 20 or more, or set it to 0 to turn it off"));
  const Output negative = run_runner(hang_run(dir, "stall_timeout_s = -1\n", ""));
  EXPECT_EQ(negative.exit_code, 2) << negative.err;
  EXPECT_THAT(negative.err, HasSubstr("stall_timeout_s")) << negative.err;
}

}  // namespace
}  // namespace runner::testing
