// A rank of a sharded or split run killed mid-step: every rank ends within the timeout, and
// the run is recorded failed naming the rank, as with ddp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <ostream>
#include <string>

#include "results/read_runs.hpp"
#include "results/results.hpp"
#include "run_binary.hpp"

using ::testing::HasSubstr;

namespace runner::testing {
namespace {

class KilledRank : public ::testing::TestWithParam<Layout> {};

// Rank 1 kills itself in its fifth training step: a zero rank holding shards, a pipeline's
// last stage, the second rank of a tensor-parallel group.
TEST_P(KilledRank, EndsTheRunNamingIt) {
  const std::string dir = scratch_dir("killed_" + GetParam().name);
  std::string text =
      blobs_experiment(dir + "/r.h5",
                       "threads = 1\n[optimizer]\nname = \"sgd\"\nlr = 0.5\n[strategy]\n"
                       "world_size = 2\ntimeout_s = 20\n" +
                           GetParam().strategy + "\n");
  text.replace(
      text.find("name = \"linear_probe\"\n"), 22,
      "name = \"layered_probe\"\nfail_at_step = 5\nfail_on_rank = 1\nfail_how = \"kill\"\n");
  write_file(dir + "/exp.toml", text);
  const auto start = std::chrono::steady_clock::now();
  const Output out = run_runner("--plugin-path " + fixture_plugins() + " " + dir + "/exp.toml");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
  EXPECT_EQ(out.exit_code, 5) << out.err;
  EXPECT_THAT(out.err, HasSubstr("rank 1 was killed by signal 9 (SIGKILL)")) << out.err;
  const auto runs = results::read_runs(dir + "/r.h5");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, results::Status::failed);
  EXPECT_THAT(runs[0].error, ::testing::StartsWith("rank 1 was killed by signal 9 (SIGKILL), "))
      << runs[0].error;
  const std::string pattern = "[" + dir.substr(0, 1) + "]" + dir.substr(1) + "/exp.toml";
  EXPECT_NE(std::system(("pgrep -f '" + pattern + "' >/dev/null").c_str()), 0)
      << "a rank outlived the launcher";
}

INSTANTIATE_TEST_SUITE_P(Strategies, KilledRank, ::testing::ValuesIn(sharded_layouts()),
                         layout_name);

}  // namespace
}  // namespace runner::testing
