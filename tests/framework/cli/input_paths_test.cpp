// The paths commands read besides the results and experiment files, given a FIFO, a missing
// folder or a file where a folder belongs: plugin folders from --plugin-path and
// RUNNER_PLUGIN_PATH (one rule for both), a plugin library, --resume and a checkpoint's
// manifest. One line, the documented exit code, at once: each runs under a 60 s kill.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "checkpoint/folders.hpp"
#include "results/read_runs.hpp"
#include "run_binary.hpp"

using ::testing::HasSubstr;

namespace runner::testing {
namespace {

namespace fs = std::filesystem;

const std::string kKillAfter = "timeout -s KILL 60";

struct TrainedForResume {
  std::string dir, experiment, checkpoint;
};

// The fixture's blobs experiment trained once in its own folder, and its final checkpoint.
TrainedForResume trained_in_folder(const std::string& name) {
  TrainedForResume t;
  t.dir = scratch_dir("inputs_" + name);
  t.experiment = t.dir + "/exp.toml";
  write_file(t.experiment, blobs_experiment(t.dir + "/r.h5"));
  EXPECT_EQ(run_runner("-q --plugin-path " + fixture_plugins() + " " + t.experiment, kKillAfter)
                .exit_code,
            0);
  const results::RunRecord run = results::read_runs(t.dir + "/r.h5").at(0);
  t.checkpoint = checkpoint::latest_complete(run.checkpoints).value_or("");
  return t;
}

TEST(InputPaths, PluginFoldersAreOneRuleWhereverTheyAreNamed) {
  const std::string dir = scratch_dir("inputs_plugin_path");
  ASSERT_EQ(mkfifo((dir + "/fifo").c_str(), 0600), 0);
  for (const std::string& how : {"RUNNER_PLUGIN_PATH=" + dir + "/fifo " + kKillAfter,
                                 "RUNNER_PLUGIN_PATH=" + dir + "/none " + kKillAfter}) {
    const Output output = run_runner("plugins", how);
    EXPECT_EQ(output.exit_code, 2) << how << ": " << output.err;
    EXPECT_THAT(output.err, HasSubstr("(from RUNNER_PLUGIN_PATH)")) << output.err;
  }
  const Output fifo = run_runner("plugins", "RUNNER_PLUGIN_PATH=" + dir + "/fifo " + kKillAfter);
  EXPECT_THAT(fifo.err, HasSubstr("plugin path " + dir + "/fifo is not a folder but a FIFO"));
  const Output via_option = run_runner("--plugin-path " + dir + "/fifo plugins", kKillAfter);
  EXPECT_EQ(via_option.exit_code, 2) << via_option.err;
  EXPECT_THAT(via_option.err, HasSubstr("is not a folder but a FIFO (from --plugin-path)"));

  fs::create_directory(dir + "/plugins");
  ASSERT_EQ(mkfifo((dir + "/plugins/x.so").c_str(), 0600), 0);
  const Output library = run_runner("--plugin-path " + dir + "/plugins plugins", kKillAfter);
  EXPECT_EQ(library.exit_code, 3) << library.err;
  EXPECT_THAT(library.err, HasSubstr(dir + "/plugins/x.so: is a FIFO, not a plugin library"));
}

TEST(InputPaths, ResumeRefusesAFifoAndACheckpointOfFifos) {
  const TrainedForResume t = trained_in_folder("resume");
  const std::string run = "--plugin-path " + fixture_plugins() + " " + t.experiment + " --resume ";
  const std::string fifo = t.dir + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const Output named_fifo = run_runner(run + fifo, kKillAfter);
  EXPECT_EQ(named_fifo.exit_code, 2) << named_fifo.err;
  EXPECT_THAT(named_fifo.err, HasSubstr("--resume " + fifo + ": is a FIFO, not a folder"));

  fs::remove(t.checkpoint + "/manifest.json");
  ASSERT_EQ(mkfifo((t.checkpoint + "/manifest.json").c_str(), 0600), 0);
  const Output manifest = run_runner(run + t.checkpoint, kKillAfter);
  EXPECT_EQ(manifest.exit_code, 4) << manifest.err;
  EXPECT_THAT(manifest.err,
              HasSubstr(t.checkpoint + "/manifest.json: is a FIFO, not a checkpoint manifest"));
}

}  // namespace
}  // namespace runner::testing
