// Tests of the commands: version, plugins, describe, dry runs, --set and the plugin folders.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include <torch/cuda.h>

#include "results/read_runs.hpp"
#include "results/results.hpp"
#include "run_binary.hpp"
#include "runner/version.hpp"

using ::testing::HasSubstr;

namespace runner::testing {
namespace {

TEST(Cli, VersionPrintsTheVersion) {
  Output o = run_runner("--version");
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_THAT(o.out, HasSubstr(RUNNER_VERSION)) << o.out;
}

TEST(Cli, PluginsListsKindNameVersionDescriptionAndLibrary) {
  Output o = run_runner("plugins");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  for (const char* part : {"dataset/mnist", "model/lenet5", "strategy/single", "op/relu",
                           "lib/runner/plugins/lenet5.so", "1.0.0"})
    EXPECT_THAT(o.out, HasSubstr(part)) << part << " missing from\n" << o.out;
}

TEST(Cli, DescribePrintsEveryKeyWithTypeAndDefault) {
  Output o = run_runner("describe model/lenet5");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("activation")) << o.out;
  EXPECT_THAT(o.out, HasSubstr("\"relu\"")) << o.out;
  EXPECT_THAT(o.out, HasSubstr("pool")) << o.out;
  Output host = run_runner("describe optimizer");
  EXPECT_THAT(host.out, HasSubstr("nesterov")) << host.out;
}

TEST(Cli, DescribeAloneListsWhatCanBeDescribed) {
  Output o = run_runner("describe");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  for (const char* part : {"  train\n", "  checkpoint\n", "  sweep\n", "augment/NAME",
                           "  model/lenet5\n", "  strategy/ddp\n", "  op/gelu\n"})
    EXPECT_THAT(o.out, HasSubstr(part)) << part << " missing from\n" << o.out;
}

TEST(Cli, DescribeAnUnknownComponentSuggestsTheClosest) {
  Output o = run_runner("describe model/lenett5");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_THAT(o.err, HasSubstr("did you mean 'lenet5'")) << o.err;
  Output no_kind = run_runner("describe lenet5");
  EXPECT_EQ(no_kind.exit_code, 2);
  EXPECT_THAT(no_kind.err, HasSubstr("`runner describe lenet5`: expected KIND/NAME"))
      << no_kind.err;
  Output unknown_kind = run_runner("describe widget/lenet5");
  EXPECT_EQ(unknown_kind.exit_code, 2);
  EXPECT_THAT(unknown_kind.err, HasSubstr("unknown kind 'widget'")) << unknown_kind.err;
}

TEST(Cli, DryRunPrintsResolvedRunsAndTrainsNothing) {
  std::string dir = scratch_dir("dry_run");
  write_file(dir + "/exp.toml",
             blobs_experiment(dir + "/r.h5", "[sweep]\n\"train.batch_size\" = [8, 16]\n"));
  Output o = run_runner("--plugin-path " + fixture_plugins() + " --dry-run " + dir + "/exp.toml");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("2 run(s)")) << o.out;
  EXPECT_THAT(o.out, HasSubstr("train.batch_size=16")) << o.out;
  EXPECT_THAT(o.out, HasSubstr("batch_size = 8")) << o.out;
  EXPECT_FALSE(std::filesystem::exists(dir + "/r.h5"));
}

// The dry run says what this machine does with each run: in the run's own comment, and in the
// summary table it ends with, each reason once below it; -q prints the table alone.
TEST(Cli, DryRunSaysWhichRunsThisMachineSkipsAndWhy) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "a machine with GPUs may run nccl's runs";
  std::string dir = scratch_dir("dry_run_skips");
  write_file(dir + "/exp.toml",
             blobs_experiment(dir + "/r.h5",
                              "[strategy]\nname = \"ddp\"\nworld_size = 2\n[sweep]\n"
                              "\"strategy.backend\" = [\"nccl\", \"gloo\"]\n"
                              "\"train.batch_size\" = [16, 32]\n"));
  const std::string args = "--plugin-path " + fixture_plugins() + " --dry-run " + dir + "/exp.toml";
  Output o = run_runner(args);
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("\n# here: skipped: backend nccl")) << o.out;
  EXPECT_THAT(o.out, HasSubstr("run  id ")) << o.out;
  EXPECT_THAT(o.out, HasSubstr("skipped (1)\n")) << o.out;
  EXPECT_THAT(o.out, HasSubstr("\n(1) backend nccl")) << o.out;
  EXPECT_EQ(o.out.find("(2)"), std::string::npos) << "one reason, named once\n" << o.out;
  EXPECT_THAT(o.out, HasSubstr("\n2 of 4 runs run here, 2 skipped\n")) << o.out;

  Output quiet = run_runner("-q " + args);
  EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.out.find("# run 1/4"), std::string::npos) << quiet.out;
  EXPECT_EQ(quiet.out.rfind("run  id ", 0), 0u) << "the table alone\n" << quiet.out;
  EXPECT_THAT(quiet.out, HasSubstr("\n2 of 4 runs run here, 2 skipped\n")) << quiet.out;
}

// A run the sweep would refuse whole here (more local ranks than cores) is named with the
// reason; the dry run still plans it (for a machine that has the cores) and exits 0, the real
// run exits 2.
TEST(Cli, DryRunNamesARunThisMachineWouldRefuse) {
  std::string dir = scratch_dir("dry_run_refused");
  write_file(dir + "/exp.toml",
             blobs_experiment(dir + "/r.h5", "[strategy]\nname = \"ddp\"\nworld_size = 1024\n"));
  Output o = run_runner("--plugin-path " + fixture_plugins() + " --dry-run " + dir + "/exp.toml");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("# here: would refuse the sweep before any run: "
                               "strategy.world_size = 1024: a local launch starts at most one "
                               "rank per core"))
      << o.out;
  EXPECT_THAT(o.out, HasSubstr("refused (1)")) << o.out;
  EXPECT_THAT(o.out, HasSubstr("0 of 1 run runs here; 1 would refuse the sweep here: none "
                               "would start"))
      << o.out;
  EXPECT_EQ(run_runner("--plugin-path " + fixture_plugins() + " " + dir + "/exp.toml").exit_code,
            2);
}

TEST(Cli, SetOverridesAKeyTypedBySchema) {
  std::string dir = scratch_dir("set");
  write_file(dir + "/exp.toml", blobs_experiment(dir + "/r.h5"));
  Output o = run_runner("--plugin-path " + fixture_plugins() + " -q --set train.epochs=3 " +
                        "--set dataset.train_size=64 " + dir + "/exp.toml");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.out, "") << "--quiet prints nothing";
  auto runs = results::read_runs(dir + "/r.h5");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].epochs.size(), 3u);
  EXPECT_EQ(runs[0].steps.size(), 3u * 2);
}

TEST(Cli, PluginFoldersComeFromTheEnvironmentAndTheExperiment) {
  std::string dir = scratch_dir("plugin_sources");
  write_file(dir + "/exp.toml", blobs_experiment(dir + "/r.h5"));
  EXPECT_EQ(
      run_runner("-q " + dir + "/exp.toml", "RUNNER_PLUGIN_PATH=" + fixture_plugins()).exit_code,
      0);
  std::string text = blobs_experiment(dir + "/r2.h5");
  text.insert(text.find("results"), "plugin_path = [\"" + fixture_plugins() + "\"]\n");
  write_file(dir + "/exp2.toml", text);
  Output o = run_runner("-q " + dir + "/exp2.toml");
  EXPECT_EQ(o.exit_code, 0) << o.err;
}

// Every command that loads plugins warns, once, of a plugin folder any user may write to, and
// goes on.
TEST(Cli, EveryCommandThatLoadsPluginsWarnsOfAFolderEveryUserMayWrite) {
  namespace fs = std::filesystem;
  const std::string dir = scratch_dir("open_plugin_folder");
  const std::string open = dir + "/plugins";
  fs::create_directory(open);
  fs::copy_file(fixture_plugins() + "/fixture_good.so", open + "/fixture_good.so");
  fs::permissions(open, fs::perms::all);
  write_file(dir + "/exp.toml", blobs_experiment(dir + "/r.h5"));
  const std::string warning = "runner: warning: plugin folder " + fs::canonical(open).string() +
                              " is writable by every user";
  for (const std::string& command : {std::string("plugins"), std::string("describe dataset/blobs"),
                                     "--dry-run " + dir + "/exp.toml", "-q " + dir + "/exp.toml"}) {
    Output o = run_runner("--plugin-path " + open + " " + command);
    EXPECT_EQ(o.exit_code, 0) << command << ": " << o.err;
    const size_t at = o.err.find(warning);
    EXPECT_NE(at, std::string::npos) << command << ": " << o.err;
    EXPECT_EQ(o.err.find(warning, at + 1), std::string::npos) << command << ": said twice";
  }
}

}  // namespace
}  // namespace runner::testing
