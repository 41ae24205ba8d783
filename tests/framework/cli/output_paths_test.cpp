// Every command that writes a path the user names, given its own input, a results file, a
// checkpoint's file, an unrelated file, a folder, a FIFO or /dev/full there: one line naming
// the option and the path, exit 2, and the file there as it was. Each command runs under a 60 s
// kill, so a hang fails instead of blocking.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include "checkpoint/folders.hpp"
#include "checkpoint/run_folder_lock.hpp"
#include "results/read_runs.hpp"
#include "run_binary.hpp"

using ::testing::StartsWith;

namespace runner::testing {
namespace {

namespace fs = std::filesystem;

const std::string kKill = "timeout -s KILL 60";

// One trained run of the fixture's blobs experiment in its own folder, with what it left: its
// results file and the checkpoint of its final weights.
struct TrainedRun {
  std::string dir, experiment, results, group, checkpoint, shard;
};

TrainedRun trained_for(const std::string& name) {
  TrainedRun t;
  t.dir = scratch_dir("outputs_" + name);
  t.experiment = t.dir + "/exp.toml";
  t.results = t.dir + "/r.h5";
  write_file(t.experiment, blobs_experiment(t.results));
  EXPECT_EQ(
      run_runner("-q --plugin-path " + fixture_plugins() + " " + t.experiment, kKill).exit_code, 0);
  const results::RunRecord run = results::read_runs(t.results).at(0);
  t.group = run.group;
  t.checkpoint = checkpoint::latest_complete(run.checkpoints).value_or("");
  t.shard = t.checkpoint + "/rank-0.safetensors";
  return t;
}

// A path a command is told to write, what its refusal says of it, and the bytes that must stay.
struct Victim {
  std::string path;
  std::string said;
};

std::string bytes_of(const std::string& path) {
  return fs::is_regular_file(path) ? read_file(path) : "";
}

// Runs `command_for(victim.path)` and expects exit 2, one error line with "<shown>: <said>",
// and the victim as it was.
void expect_refused(const std::string& command, const Victim& victim, const std::string& shown) {
  const std::string before = bytes_of(victim.path);
  const fs::file_type type = fs::symlink_status(victim.path).type();
  const Output output = run_runner(command, kKill);
  EXPECT_EQ(output.exit_code, 2) << command << ": " << output.err;
  EXPECT_THAT(output.err, StartsWith("runner: error: " + shown + ": " + victim.said)) << command;
  EXPECT_EQ(output.err.find("runner: error:", 1), std::string::npos) << output.err;
  EXPECT_TRUE(bytes_of(victim.path) == before) << victim.path << " was written over";
  EXPECT_EQ(fs::symlink_status(victim.path).type(), type) << victim.path;
}

// The classes of target each writing command is tried with, made in `t.dir`.
struct Targets {
  std::string other_results, notes, folder, fifo;
};

Targets targets_in(const TrainedRun& t, const std::string& suffix) {
  Targets made{t.dir + "/other" + suffix, t.dir + "/notes" + suffix, t.dir + "/folder" + suffix,
               t.dir + "/fifo" + suffix};
  fs::copy_file(t.results, made.other_results);
  write_file(made.notes, "my notes\n");
  fs::create_directory(made.folder);
  EXPECT_EQ(mkfifo(made.fifo.c_str(), 0600), 0);
  return made;
}

TEST(OutputPaths, ReportCsvRefusesEachClassAndReplacesItsOwnCsv) {
  const TrainedRun t = trained_for("report");
  const Targets at = targets_in(t, ".csv");
  const std::vector<Victim> victims = {
      {t.results, "is the results file this report reads; name another file"},
      {at.other_results, "is a results file (HDF5)"},
      {t.shard, "is a file of the checkpoint " + t.checkpoint},
      {at.notes, "is a file that is not what this command writes"},
      {at.folder, "is a folder, not a file to write"},
      {at.fifo, "is a FIFO, not a file to write"},
      {"/dev/full", "is a character device, not a file to write"}};
  for (const Victim& victim : victims)
    expect_refused("report " + t.results + " --csv " + victim.path, victim, "--csv " + victim.path);

  const std::string csv = t.dir + "/table.csv";
  for (int time = 0; time < 2; ++time) {
    const Output written = run_runner("report " + t.results + " --csv " + csv, kKill);
    EXPECT_EQ(written.exit_code, 0) << written.err;
  }
  const Output forced =
      run_runner("report " + t.results + " --csv " + at.notes + " --force", kKill);
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_EQ(read_file(at.notes), read_file(csv));
  for (const auto& entry : fs::directory_iterator(t.dir))
    EXPECT_NE(entry.path().filename().string()[0], '.') << "a temporary file stayed: " << entry;
}

TEST(OutputPaths, ExportOutRefusesEachClassAndReplacesItsOwnExport) {
  const TrainedRun t = trained_for("export");
  const Targets at = targets_in(t, ".pt");
  fs::create_symlink("/dev/full", t.dir + "/full.pt");
  const std::string export_run = "export " + t.results + " " + t.group + " --out ";
  const std::string in_checkpoint = t.checkpoint + "/rank-0";
  expect_refused(export_run + in_checkpoint,
                 {t.shard, "is in " + t.checkpoint + ", the checkpoint this export reads"},
                 "--out " + in_checkpoint + ".pt");
  const std::vector<Victim> victims = {
      {at.other_results, "is a results file (HDF5)"},
      {at.notes, "is a file that is not what this command writes"},
      {at.folder, "is a folder, not a file to write"},
      {at.fifo, "is a FIFO, not a file to write"},
      {t.dir + "/full.pt", "is a character device, not a file to write"}};
  for (const Victim& victim : victims) {
    const std::string stem = fs::path(victim.path).replace_extension().string();
    expect_refused(export_run + stem, victim, "--out " + victim.path);
  }
  expect_refused(export_run + t.dir,
                 {t.dir, "is a folder, not the files' path without their extension"},
                 "--out " + t.dir);

  const std::string stem = t.dir + "/weights";
  for (int time = 0; time < 2; ++time) {
    const Output written = run_runner(export_run + stem, kKill);
    EXPECT_EQ(written.exit_code, 0) << written.err;
  }
  const std::string notes_stem = fs::path(at.notes).replace_extension().string();
  const Output forced = run_runner(export_run + notes_stem + " --force", kKill);
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_THAT(read_file(at.notes), StartsWith("PK"));
}

// A file size limit fails the write as a full disk does (SIGXFSZ ignored, so write(2) fails
// with EFBIG): one line naming the file, exit 4, the earlier export whole, nothing left beside.
TEST(OutputPaths, AFailedExportLeavesTheEarlierFilesWhole) {
  const TrainedRun t = trained_for("export_fails");
  const std::string export_run = "export " + t.results + " " + t.group + " --out " + t.dir + "/w";
  ASSERT_EQ(run_runner(export_run, kKill).exit_code, 0);
  const std::string earlier = read_file(t.dir + "/w.pt");
  ASSERT_GT(earlier.size(), 512u);
  // SIGXFSZ left at its default: runner ignores it itself.
  const Output failed = run_runner(export_run, "ulimit -f 1; " + kKill);
  EXPECT_EQ(failed.exit_code, 4) << failed.err;
  EXPECT_THAT(failed.err, StartsWith("runner: error: the file size limit (ulimit -f) stops the "
                                     "writing of " +
                                     t.dir + "/w.pt"));
  EXPECT_TRUE(read_file(t.dir + "/w.pt") == earlier) << "the earlier export was written over";
  for (const auto& entry : fs::directory_iterator(t.dir))
    EXPECT_NE(entry.path().filename().string()[0], '.') << "a temporary file stayed: " << entry;
}

TEST(OutputPaths, PlanWriteRefusesEachClassBeforeItMeasures) {
  const TrainedRun t = trained_for("plan");
  const Targets at = targets_in(t, ".toml");
  const std::string plan =
      "--plugin-path " + fixture_plugins() + " plan " + t.experiment + " --devices 1 --write ";
  const std::vector<Victim> victims = {
      {t.experiment, "is the experiment file this plan reads; name another file"},
      {t.results, "is the experiment's results file; name another file"},
      {at.other_results, "is a results file (HDF5)"},
      {t.shard, "is a file of the checkpoint " + t.checkpoint},
      {at.notes, "is a file that is not what this command writes"},
      {at.folder, "is a folder, not a file to write"},
      {at.fifo, "is a FIFO, not a file to write"},
      {"/dev/full", "is a character device, not a file to write"}};
  for (const Victim& victim : victims)
    expect_refused(plan + victim.path, victim, "--write " + victim.path);
}

TEST(OutputPaths, ARunRefusesEachClassAsItsTensorBoardAndCheckpointFolders) {
  const TrainedRun t = trained_for("run");
  const Targets at = targets_in(t, ".tb");
  const std::string run = "-q --plugin-path " + fixture_plugins() + " " + t.experiment;
  const std::vector<Victim> victims = {
      {t.results, "is a results file (HDF5), not a folder"},
      {t.checkpoint, "is a checkpoint's folder, not one to write into"},
      {at.notes, "is a file, not a folder"},
      {at.fifo, "is a FIFO, not a folder"},
      {"/dev/full", "is a character device, not a folder"}};
  for (const Victim& victim : victims) {
    expect_refused(run + " --tensorboard " + victim.path, victim,
                   "[experiment] tensorboard " + victim.path);
    expect_refused(run + " --set checkpoint.dir='\"" + victim.path + "\"'", victim,
                   "[checkpoint] dir " + victim.path);
  }
  EXPECT_EQ(results::read_runs(t.results).size(), 1u) << "a refused run was recorded";
}

// Two runners given one [checkpoint] dir and the same run (their results files apart): the
// second is refused in one line, exit 4, before it trains, and the first's folder is untouched.
TEST(OutputPaths, ARunFolderAnotherRunnerTrainsIntoIsRefused) {
  const TrainedRun t = trained_for("shared_checkpoints");
  const std::string folder = results::read_runs(t.results).at(0).checkpoints;
  const std::string second = t.dir + "/second.h5";
  std::string text = blobs_experiment(second);
  write_file(t.dir + "/second.toml",
             text + "[checkpoint]\ndir = \"" + fs::path(folder).parent_path().string() + "\"\n");
  const std::string run = "-q --plugin-path " + fixture_plugins() + " " + t.dir + "/second.toml";
  {
    const auto held = checkpoint::lock_run_folder(folder);  // as the first runner holds it
    const Output refused = run_runner(run, kKill);
    EXPECT_EQ(refused.exit_code, 4) << refused.err;
    EXPECT_THAT(refused.err, StartsWith("runner: error: " + folder +
                                        ": another runner process is training this run into it"))
        << refused.err;
    EXPECT_EQ(refused.err.find("runner: error:", 1), std::string::npos) << refused.err;
    EXPECT_EQ(checkpoint::step_folders(folder), std::vector<std::string>{t.checkpoint});
    EXPECT_TRUE(!fs::exists(second) || results::read_runs(second).empty());
  }
  const Output after = run_runner(run, kKill);  // the lock gone with its holder
  EXPECT_EQ(after.exit_code, 0) << after.err;
}

}  // namespace
}  // namespace runner::testing
