// train.check_collectives through the binary: a rank that calls a collective the others do not
// (fault.kind = "extra_collective") fails the run at once with both calls named, where
// without the check the backend meets it as it can; with no mismatch the check changes no loss.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "results/read_runs.hpp"
#include "results/results.hpp"
#include "run_binary.hpp"

using ::testing::HasSubstr;

namespace runner::testing {
namespace {

// The blobs fixture on 2 ranks of `strategy`, one epoch of 16 steps; returns the arguments.
std::string checked_run(const std::string& dir, const std::string& strategy,
                        const std::string& rest) {
  write_file(dir + "/exp.toml",
             "[experiment]\nname = \"blobs\"\nresults = \"" + dir + "/r.h5\"\n" +
                 "[dataset]\nname = \"blobs\"\n[model]\nname = \"layered_probe\"\n"
                 "[train]\nepochs = 1\nbatch_size = 32\nthreads = 1\n" +
                 "[optimizer]\nname = \"sgd\"\nlr = 0.5\n[strategy]\n" + strategy +
                 "\nworld_size = 2\ntimeout_s = 60\n" + rest);
  return "--plugin-path " + fixture_plugins() + " " + dir + "/exp.toml";
}

constexpr const char* kDdp = "name = \"ddp\"";
constexpr const char* kRank1CallsOneMoreAtStep3 =
    "[fault]\nkind = \"extra_collective\"\nrank = 1\nstep = 3\n";

struct ExtraCall {
  std::string name, strategy;
  std::string rank0_call;  // part of the error's text for what rank 0 called
};

class ExtraCallChecked : public ::testing::TestWithParam<ExtraCall> {};

// The first collective after step 3 starts: ddp's bucket, zero-2's reduce-scatter, and under
// a pipeline (whose sends and receives are not compared) the losses' all-reduce at the end.
TEST_P(ExtraCallChecked, FailsTheRunAtOnceNamingBothCalls) {
  const std::string dir = scratch_dir("check_collectives_" + GetParam().name);
  const Output out = run_runner("--set train.check_collectives=true " +
                                checked_run(dir, GetParam().strategy, kRank1CallsOneMoreAtStep3));
  ASSERT_EQ(out.exit_code, 5) << out.err;
  const auto runs = results::read_runs(dir + "/r.h5");
  ASSERT_EQ(runs.size(), 1u);
  // Sequence numbers as the ranks count them: equal on both, whatever the steps before made.
  const std::regex both_calls(
      "rank [01] failed: ranks 0 and 1 called different (collectives|sizes \\([0-9]+ and "
      "[0-9]+ elements\\)) as #([0-9]+) of world: rank 0 [a-z_]+ #\\2 of world \\([^;]+\\); "
      "rank 1 all_reduce #\\2 of world \\(fault injected: fault.kind = \"extra_collective\" at "
      "step 3, [^;]+\\)");
  EXPECT_TRUE(std::regex_match(runs[0].error, both_calls)) << runs[0].error;
  EXPECT_THAT(runs[0].error, HasSubstr(GetParam().rank0_call)) << runs[0].error;
  EXPECT_THAT(out.err, HasSubstr("runner: error: " + runs[0].error)) << out.err;
}

INSTANTIATE_TEST_SUITE_P(
    Strategies, ExtraCallChecked,
    ::testing::Values(ExtraCall{"ddp", kDdp, "rank 0 all_reduce #"},
                      ExtraCall{"zero2", "name = \"zero\"\nstage = 2", "rank 0 reduce_scatter #"},
                      ExtraCall{"pipeline", "name = \"pipeline\"\nstages = 2",
                                "(the losses of the last steps, "}),
    [](const ::testing::TestParamInfo<ExtraCall>& info) { return info.param.name; });

// Without the check the backend meets the extra call as it can (Gloo aborts a rank whose peer
// sent another size); the run fails in any case, and the error names no comparison.
TEST(CheckCollectives, WithoutTheCheckTheRunStillFailsButNamesNoCalls) {
  const std::string dir = scratch_dir("check_collectives_off");
  const Output out = run_runner(checked_run(dir, kDdp, kRank1CallsOneMoreAtStep3));
  EXPECT_NE(out.exit_code, 0) << out.err;
  const auto runs = results::read_runs(dir + "/r.h5");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, results::Status::failed);
  EXPECT_EQ(runs[0].error.find("called different"), std::string::npos) << runs[0].error;
}

TEST(CheckCollectives, CallsThatAgreeTrainTheSameLossesStepForStep) {
  const std::string dir = scratch_dir("check_collectives_same");
  const Output out =
      run_runner("--quiet " +
                 checked_run(dir, kDdp, "[sweep]\n\"train.check_collectives\" = [false, true]\n"));
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const auto runs = results::read_runs(dir + "/r.h5");
  ASSERT_EQ(runs.size(), 2u);
  ASSERT_EQ(runs[0].steps.size(), 16u);
  ASSERT_EQ(runs[1].steps.size(), runs[0].steps.size());
  for (size_t i = 0; i < runs[0].steps.size(); ++i)
    EXPECT_EQ(runs[0].steps[i].loss, runs[1].steps[i].loss) << "step " << i + 1;
}

}  // namespace
}  // namespace runner::testing
