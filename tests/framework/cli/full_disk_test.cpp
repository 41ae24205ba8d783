// Results on a full disk: the disk fills up in the middle of a run (a preloaded library fails
// the writes past a size with ENOSPC), or the file reaches the file-size limit. The run ends
// with a one-line error and exit 4, and the epochs flushed before stay readable.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "checkpoint/folders.hpp"
#include "results/read_runs.hpp"
#include "results/results.hpp"
#include "run_binary.hpp"

using ::testing::HasSubstr;
using ::testing::Not;

namespace runner::testing {
namespace {

std::string full_disk_environment(const std::string& file, uintmax_t bytes) {
  return "LD_PRELOAD=" RUNNER_BINARY_DIR
         "/tests/fixtures/full_disk/full_disk.so"
         " RUNNER_FULL_DISK_FILE=" +
         file + " RUNNER_FULL_DISK_BYTES=" + std::to_string(bytes);
}

TEST(FullDisk, TheRunEndsWithExitFourAndTheFlushedEpochsStayReadable) {
  const std::string dir = scratch_dir("full_disk");
  // The same run on a roomy disk first: the disk then fills up before the run's end, as the
  // room it reserves ahead of each write runs out.
  const std::string roomy = dir + "/roomy.h5";
  const std::string epochs = "-q --set train.epochs=200 --plugin-path " + fixture_plugins();
  write_file(dir + "/roomy.toml", blobs_experiment(roomy));
  ASSERT_EQ(run_runner(epochs + " " + dir + "/roomy.toml").exit_code, 0);
  const uintmax_t whole = std::filesystem::file_size(roomy);

  const std::string full = dir + "/full.h5";
  write_file(dir + "/full.toml", blobs_experiment(full));
  const Output o =
      run_runner(epochs + " " + dir + "/full.toml", full_disk_environment(full, whole));
  EXPECT_EQ(o.exit_code, 4) << o.err;
  EXPECT_THAT(o.err, HasSubstr("no space left on " + full)) << o.err;
  EXPECT_THAT(o.err, Not(HasSubstr("slist"))) << o.err;

  const auto runs = results::read_runs(full);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, results::Status::failed);
  EXPECT_THAT(runs[0].error, HasSubstr("no space left on " + full)) << runs[0].error;
  EXPECT_TRUE(runs[0].damage.empty()) << runs[0].damage;
  EXPECT_GE(runs[0].epochs.size(), 1u);
  EXPECT_LT(runs[0].epochs.size(), 200u);
  for (size_t e = 0; e < runs[0].epochs.size(); ++e)
    EXPECT_EQ(runs[0].epochs[e].epoch, static_cast<int64_t>(e) + 1);
}

// The disk fills up while a checkpoint is saved: the run ends naming the shard with exit 4,
// the checkpoint before it stays complete, and --resume goes on from it to the end.
TEST(FullDisk, ACheckpointThatCannotBeSavedEndsTheRunAndTheOneBeforeStays) {
  const std::string dir = scratch_dir("full_disk_checkpoint");
  const std::string results = dir + "/r.h5";
  std::string text = blobs_experiment(results, "[checkpoint]\nevery_steps = 5\nkeep = 5\n");
  text.replace(text.find("epochs = 1"), 10, "epochs = 2");
  write_file(dir + "/exp.toml", text);
  const std::string plugins = "-q --plugin-path " + fixture_plugins() + " ";
  ASSERT_EQ(run_runner(plugins + dir + "/exp.toml").exit_code, 0);
  const std::string folder = results::read_runs(results).at(0).checkpoints;
  std::filesystem::remove(results);
  std::filesystem::remove_all(folder);

  const std::string shard = folder + "/step-000000010/rank-0.safetensors";
  const Output o =
      run_runner(plugins + dir + "/exp.toml", full_disk_environment(shard + ".tmp", 64));
  EXPECT_EQ(o.exit_code, 4) << o.err;
  EXPECT_THAT(o.err, HasSubstr("no space left on " + shard)) << o.err;
  EXPECT_EQ(checkpoint::complete_checkpoints(folder),
            std::vector<std::string>{checkpoint::checkpoint_folder(folder, 5)});

  const Output resumed = run_runner(plugins + dir + "/exp.toml --resume");
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  const auto runs = results::read_runs(results);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, results::Status::completed);
  EXPECT_EQ(runs[0].steps.size(), 32u);
}

// A file-size limit (`ulimit -f`, SIGXFSZ left at its default) reached by the results file in
// the middle of a run ends it as a full disk does: one line, exit 4, the run recorded failed
// with the epochs flushed before. It killed runner by SIGXFSZ, the run left "running".
TEST(FullDisk, AFileSizeLimitEndsTheRunAsAFullDiskDoes) {
  const std::string dir = scratch_dir("file_size_limit");
  const std::string roomy = dir + "/roomy.h5";
  const std::string epochs =
      "-q --set train.epochs=200 --set checkpoint.final_weights=false "
      "--plugin-path " +
      fixture_plugins();
  write_file(dir + "/roomy.toml", blobs_experiment(roomy));
  ASSERT_EQ(run_runner(epochs + " " + dir + "/roomy.toml").exit_code, 0);
  const uintmax_t blocks = std::filesystem::file_size(roomy) / 512;

  const std::string limited = dir + "/limited.h5";
  write_file(dir + "/limited.toml", blobs_experiment(limited));
  const Output o = run_runner(epochs + " " + dir + "/limited.toml",
                              "ulimit -f " + std::to_string(blocks / 2) + ";");
  EXPECT_EQ(o.exit_code, 4) << o.err;
  EXPECT_THAT(o.err, HasSubstr("the file size limit (ulimit -f) stops the writing of " + limited))
      << o.err;
  const auto runs = results::read_runs(limited);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, results::Status::failed);
  EXPECT_THAT(runs[0].error, HasSubstr("the file size limit (ulimit -f)")) << runs[0].error;
  EXPECT_GE(runs[0].epochs.size(), 1u);
  EXPECT_LT(runs[0].epochs.size(), 200u);
}

}  // namespace
}  // namespace runner::testing
