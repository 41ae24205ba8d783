// Tests of the binary's errors: each class of failure exits with its own code and names its cause.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "run_binary.hpp"

using ::testing::HasSubstr;

namespace runner::testing {
namespace {

// One error line, at most one hint line: never a stack trace.
void expect_short_error(const Output& o) {
  EXPECT_THAT(o.err, HasSubstr("runner: error: ")) << o.err;
  EXPECT_LE(std::count(o.err.begin(), o.err.end(), '\n'), 2) << o.err;
}

TEST(CliErrors, AnUnknownKeyIsExitTwoWithItsPlace) {
  std::string dir = scratch_dir("unknown_key");
  write_file(dir + "/exp.toml", blobs_experiment(dir + "/r.h5", "batch_sise = 3\n"));
  Output o = run_runner("--plugin-path " + fixture_plugins() + " " + dir + "/exp.toml");
  EXPECT_EQ(o.exit_code, 2);
  expect_short_error(o);
  EXPECT_THAT(o.err, HasSubstr(dir + "/exp.toml:11:1")) << o.err;
  EXPECT_THAT(o.err, HasSubstr("did you mean 'batch_size'")) << o.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/r.h5")) << "nothing ran";
}

TEST(CliErrors, BadCommandLinesAreExitTwo) {
  Output missing = run_runner("/no/such/experiment.toml");
  EXPECT_EQ(missing.exit_code, 2);
  expect_short_error(missing);
  EXPECT_THAT(missing.err, HasSubstr("/no/such/experiment.toml")) << missing.err;
  EXPECT_THAT(missing.err, HasSubstr("does not exist")) << missing.err;
  Output flag = run_runner("--no-such-flag x.toml");
  EXPECT_EQ(flag.exit_code, 2);
  EXPECT_THAT(flag.err, HasSubstr("--no-such-flag")) << flag.err;
  Output nothing = run_runner("");
  EXPECT_EQ(nothing.exit_code, 2);
  EXPECT_THAT(nothing.err, HasSubstr("Usage")) << "the help, to say what is missing\n"
                                               << nothing.err;
  Output o = run_runner("--plugin-path /no/such/folder plugins");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_THAT(o.err, HasSubstr("/no/such/folder")) << o.err;
  std::string dir = scratch_dir("bad_set");
  write_file(dir + "/exp.toml", blobs_experiment(dir + "/r.h5"));
  Output set = run_runner("--plugin-path " + fixture_plugins() + " --set train.epochs=many " + dir +
                          "/exp.toml");
  EXPECT_EQ(set.exit_code, 2);
  EXPECT_THAT(set.err, HasSubstr("train.epochs")) << set.err;
}

TEST(CliErrors, AFileThatIsNotAPluginIsExitThree) {
  std::string dir = scratch_dir("not_plugin");
  write_file(dir + "/broken.so", "not a library");
  Output o = run_runner("--plugin-path " + dir + " plugins");
  EXPECT_EQ(o.exit_code, 3);
  expect_short_error(o);
  EXPECT_THAT(o.err, HasSubstr(dir + "/broken.so")) << o.err;
}

TEST(CliErrors, AVersionMismatchIsExitThree) {
  Output o = run_runner("--plugin-path " RUNNER_BINARY_DIR "/tests/fixtures/wrong_torch plugins");
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_THAT(o.err, HasSubstr("LibTorch 0.4.1")) << o.err;
}

TEST(CliErrors, MissingDataIsExitFourNamingTheFiles) {
  std::string dir = scratch_dir("missing_data");
  std::string text = fashion_slice_experiment(dir + "/r.h5");
  text.replace(text.find(kFashionMnist), kFashionMnist.size(), dir + "/nothing_here");
  write_file(dir + "/exp.toml", text);
  Output o = run_runner(dir + "/exp.toml");
  EXPECT_EQ(o.exit_code, 4);
  EXPECT_THAT(o.err, HasSubstr("train-images-idx3-ubyte")) << o.err;
  EXPECT_THAT(o.err, HasSubstr(dir + "/nothing_here")) << o.err;
}

TEST(CliErrors, ANanLossIsExitFiveAndTheRunIsRecordedFailed) {
  std::string dir = scratch_dir("nan");
  std::string text = blobs_experiment(dir + "/r.h5");
  text.replace(text.find("name = \"linear_probe\""), 21,
               "name = \"linear_probe\"\npoison_at_step = 3");
  write_file(dir + "/exp.toml", text);
  Output o = run_runner("--plugin-path " + fixture_plugins() + " " + dir + "/exp.toml");
  EXPECT_EQ(o.exit_code, 5);
  expect_short_error(o);
  EXPECT_THAT(o.err, HasSubstr("loss became nan at step 3")) << o.err;
  Output report = run_runner("report " + dir + "/r.h5");
  EXPECT_THAT(report.out, HasSubstr("failed")) << report.out;
}

TEST(CliErrors, ASweepWithAFailedRunIsExitSix) {
  std::string dir = scratch_dir("sweep_fail");
  write_file(dir + "/exp.toml",
             blobs_experiment(dir + "/r.h5", "[sweep]\n\"model.poison_at_step\" = [0, 2]\n"));
  Output o = run_runner("--plugin-path " + fixture_plugins() + " " + dir + "/exp.toml");
  EXPECT_EQ(o.exit_code, 6) << o.err;
  EXPECT_THAT(o.out, HasSubstr("completed")) << o.out;
  EXPECT_THAT(o.out, HasSubstr("failed")) << o.out;
}

// blobs with dim 4 and 5 classes: its factory refuses them with a config error.
const std::string kUnbuildableBlobs = " --set dataset.classes=5 ";

TEST(CliErrors, ADryRunExitsAsTheRealRunWouldWhenAComponentCannotBeBuilt) {
  std::string dir = scratch_dir("dry_run_unbuildable");
  write_file(dir + "/exp.toml", blobs_experiment(dir + "/r.h5"));
  const std::string plugins = "--plugin-path " + fixture_plugins() + " --plugin-path " +
                              RUNNER_BINARY_DIR "/tests/fixtures/throwing ";
  Output dry = run_runner(plugins + "--dry-run" + kUnbuildableBlobs + dir + "/exp.toml");
  EXPECT_EQ(dry.exit_code, 2) << dry.out << dry.err;
  expect_short_error(dry);
  EXPECT_THAT(dry.err, HasSubstr("dataset.dim must be >= dataset.classes")) << dry.err;
  EXPECT_THAT(dry.out, HasSubstr("# estimate: unavailable")) << dry.out;
  EXPECT_EQ(run_runner(plugins + kUnbuildableBlobs + dir + "/exp.toml").exit_code, 2);
  // A model factory that throws a plain exception: a plugin error, in both.
  Output exploding =
      run_runner(plugins + "--dry-run --set model.name=exploding " + dir + "/exp.toml");
  EXPECT_EQ(exploding.exit_code, 3) << exploding.err;
  EXPECT_THAT(exploding.err, HasSubstr("boom in the factory")) << exploding.err;
  EXPECT_EQ(run_runner(plugins + "--set model.name=exploding " + dir + "/exp.toml").exit_code, 3);
}

TEST(CliErrors, ASweepWhoseRunsFailOnTheirConfigIsExitTwo) {
  std::string dir = scratch_dir("sweep_config_fail");
  write_file(dir + "/exp.toml",
             blobs_experiment(dir + "/r.h5", "[sweep]\n\"dataset.classes\" = [5, 6]\n"));
  Output o = run_runner("--plugin-path " + fixture_plugins() + " " + dir + "/exp.toml");
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_THAT(o.err, HasSubstr("dataset.dim must be >= dataset.classes")) << o.err;
  Output dry = run_runner("--plugin-path " + fixture_plugins() + " --dry-run " + dir + "/exp.toml");
  EXPECT_EQ(dry.exit_code, 2) << dry.err;
}

TEST(CliErrors, APluginPathThatIsAFileIsNotAFolder) {
  std::string dir = scratch_dir("plugin_path_file");
  write_file(dir + "/plugin.so", "");
  Output o = run_runner("--plugin-path " + dir + "/plugin.so plugins");
  EXPECT_EQ(o.exit_code, 2);
  expect_short_error(o);
  EXPECT_THAT(o.err, HasSubstr(dir + "/plugin.so is not a folder")) << o.err;
}

// Refused by the run plan before any run starts: nothing is trained, no results file appears.
Output refused_before_training(const std::string& name, const std::string& train_keys) {
  std::string dir = scratch_dir(name);
  write_file(dir + "/exp.toml", blobs_experiment(dir + "/r.h5", train_keys));
  Output o = run_runner("--plugin-path " + fixture_plugins() + " " + dir + "/exp.toml");
  EXPECT_EQ(o.exit_code, 2) << o.err;
  expect_short_error(o);
  EXPECT_FALSE(std::filesystem::exists(dir + "/r.h5")) << "a run started";
  return o;
}

TEST(CliErrors, CheckpointingAModelWithoutLayersIsRefusedBeforeAnyRunStarts) {
  Output o = refused_before_training("no_layers", "activation_checkpointing = \"layers\"\n");
  EXPECT_THAT(o.err, HasSubstr("train.activation_checkpointing")) << o.err;
  EXPECT_THAT(o.err, HasSubstr("model 'linear_probe' lists no layers")) << o.err;
}

TEST(CliErrors, APlanOverTheMemoryBudgetIsRefusedBeforeAnyRunStarts) {
  // The probe's 20 parameters and a test batch of 1000 hold a few kB: over a budget of 1 byte.
  Output o = refused_before_training("budget", "memory_budget = 1e-9\n");
  EXPECT_THAT(o.err, HasSubstr("over train.memory_budget")) << o.err;
}

}  // namespace
}  // namespace runner::testing
