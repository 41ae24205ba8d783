// Tests of the experiment runner: every run recorded, failed runs and their exit, results' name.
#include "sweep/experiment_runner.hpp"
#include "config/load_experiment.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <runner_testing/run_fixtures.hpp>

#include "results/read_runs.hpp"

using ::testing::HasSubstr;
using ::testing::Not;

namespace runner::sweep {
namespace {

using runner::testing::blobs_experiment;
using runner::testing::fixture_registry;
using runner::testing::temp_path;

int run(const plugin_host::Registry& registry, const std::string& text, std::string& printed) {
  auto experiment = config::parse_experiment(text, "sweep.toml", {}, registry);
  std::ostringstream out, errors;
  record::Console console(out, false, false);
  int code = run_experiment(experiment, registry, console, errors);
  printed = out.str() + errors.str();
  return code;
}

// The blobs experiment with `sweep`, writing its results to `file`.
std::string sweep_into(const std::string& file, const std::string& sweep) {
  std::string text = blobs_experiment("[sweep]\n" + sweep + "\n");
  return text.insert(text.find("seed"), "results = \"" + file + "\"\n");
}

TEST(ExperimentRunner, ASweepRecordsEveryRunAndPrintsTheTable) {
  auto registry = fixture_registry();
  std::string file = temp_path("sweep.h5"), printed;
  std::string text = sweep_into(file, "\"train.batch_size\" = [16, 64]");
  EXPECT_EQ(run(registry, text, printed), 0) << printed;
  auto runs = results::read_runs(file);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].status, results::Status::completed);
  EXPECT_EQ(runs[1].header.sweep_point.at(0).second, results::SweepValue(int64_t{64}));
  EXPECT_EQ(runs[0].epochs.size(), 2u);
  EXPECT_THAT(printed, HasSubstr("train.batch_size")) << printed;
  EXPECT_THAT(printed, HasSubstr("per-class test accuracy")) << printed;
  EXPECT_EQ(run(registry, text, printed), 0);
  EXPECT_EQ(results::read_runs(file).size(), 4u) << "running again appends";
}

// The table's rows begin with each run's group.
TEST(ExperimentRunner, TheTableListsThisSweepsRunsNotTheFilesEarlierOnes) {
  auto registry = fixture_registry();
  std::string file = temp_path("table.h5"), printed;
  std::string text = sweep_into(file, "\"train.batch_size\" = [16, 64]");
  ASSERT_EQ(run(registry, text, printed), 0) << printed;
  ASSERT_EQ(run(registry, text, printed), 0) << printed;
  const auto runs = results::read_runs(file);
  ASSERT_EQ(runs.size(), 4u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_THAT(printed, Not(HasSubstr("\n" + runs[i].group + " "))) << printed;
    EXPECT_THAT(printed, HasSubstr("\n" + runs[i + 2].group + " ")) << printed;
  }
}

TEST(ExperimentRunner, AFailedRunIsRecordedAndTheSweepGoesOn) {
  auto registry = fixture_registry();
  std::string file = temp_path("failing.h5"), printed;
  std::string text = sweep_into(file, "\"model.poison_at_step\" = [2, 0]");
  EXPECT_EQ(run(registry, text, printed), 6) << printed;
  auto runs = results::read_runs(file);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].status, results::Status::failed);
  EXPECT_THAT(runs[0].error, HasSubstr("loss became nan"));
  EXPECT_EQ(runs[1].status, results::Status::completed);
}

TEST(ExperimentRunner, ASingleFailedRunExitsWithItsErrorClass) {
  auto registry = fixture_registry();
  std::string file = temp_path("single_fail.h5"), printed;
  std::string text = sweep_into(file, "\"model.poison_at_step\" = [1]");
  EXPECT_EQ(run(registry, text, printed), 5) << printed;
  EXPECT_THAT(printed, HasSubstr("runner: error: loss became nan")) << printed;
}

TEST(ExperimentRunner, ResultsDefaultToTheExperimentName) {
  auto registry = fixture_registry();
  auto experiment = config::parse_experiment(blobs_experiment(), "x.toml", {}, registry);
  EXPECT_EQ(results_path(experiment), "results/blobs.h5");
}

}  // namespace
}  // namespace runner::sweep
