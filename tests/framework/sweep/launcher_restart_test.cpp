// The record of a restart torchrun or Slurm made: the earlier attempt's error as its cause, and
// the training time lost since that attempt's newest checkpoint or start.
#include "sweep/launcher_restart.hpp"

#include <gtest/gtest.h>
#include <utime.h>

#include <filesystem>
#include <fstream>

#include "checkpoint/folders.hpp"

namespace runner::sweep {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

TEST(LauncherRestart, UtcTimesAreReadToTheSecond) {
  EXPECT_EQ(parse_utc("1970-01-01T00:00:00Z"), std::chrono::system_clock::from_time_t(0));
  EXPECT_EQ(*parse_utc("2026-12-06T18:30:05Z") - *parse_utc("2026-12-06T18:29:00Z"), seconds(65));
  EXPECT_EQ(*parse_utc("2027-01-01T00:00:00Z") - *parse_utc("2026-12-31T23:59:59Z"), seconds(1));
  for (const char* text : {"", "2026-12-06", "2026-12-06T18:30:05", "2026-12-06T18:30:05Zx"})
    EXPECT_FALSE(parse_utc(text)) << text;
}

results::RunRecord failed_run() {
  results::RunRecord run;
  run.status = results::Status::failed;
  run.error = "rank 1 was killed by signal 9 (SIGKILL), last seen in forward of step 11";
  run.header.started_at = "2026-12-06T18:29:00Z";
  run.finished_at = "2026-12-06T18:30:05Z";
  return run;
}

TEST(LauncherRestart, WithoutACheckpointTheWholeAttemptIsLost) {
  const results::RestartRecord restart = launcher_restart(failed_run(), 1, {});
  EXPECT_EQ(restart.attempt, 1);
  EXPECT_EQ(restart.cause, failed_run().error);
  EXPECT_EQ(restart.resumed_from, "");
  EXPECT_EQ(restart.resumed_step, 0);
  EXPECT_EQ(restart.failed_at, "2026-12-06T18:30:05Z");
  EXPECT_DOUBLE_EQ(restart.time_lost_s, 65.0);
}

TEST(LauncherRestart, ALaterAttemptBeganAtTheRestartBeforeIt) {
  results::RunRecord run = failed_run();
  results::RestartRecord first;
  first.attempt = 1;
  first.failed_at = "2026-12-06T18:29:40Z";
  run.restarts.push_back(first);
  EXPECT_DOUBLE_EQ(launcher_restart(run, 2, {}).time_lost_s, 25.0);
}

TEST(LauncherRestart, TheTimeSinceTheCheckpointsCommitIsLost) {
  const fs::path checkpoint =
      fs::temp_directory_path() / "runner-launcher-restart-tests" / "step-000000008";
  fs::remove_all(checkpoint);
  fs::create_directories(checkpoint);
  const std::string manifest = (checkpoint / checkpoint::kManifestFile).string();
  std::ofstream(manifest) << "{}";
  const auto committed = std::chrono::system_clock::to_time_t(*parse_utc("2026-12-06T18:30:00Z"));
  const utimbuf times{committed, committed};
  ASSERT_EQ(utime(manifest.c_str(), &times), 0);
  checkpoint::ResumeChoice resume;
  resume.action = checkpoint::ResumeChoice::Action::go_on;
  resume.checkpoint = checkpoint.string();
  resume.global_step = 8;
  const results::RestartRecord restart = launcher_restart(failed_run(), 1, resume);
  EXPECT_EQ(restart.resumed_from, checkpoint.string());
  EXPECT_EQ(restart.resumed_step, 8);
  EXPECT_DOUBLE_EQ(restart.time_lost_s, 5.0);
}

TEST(LauncherRestart, RanksEndedBeforeRecordingTheirEndAreSaidSo) {
  results::RunRecord run = failed_run();
  run.status = results::Status::running;
  run.error.clear();
  run.finished_at.clear();
  const results::RestartRecord restart = launcher_restart(run, 1, {});
  EXPECT_EQ(restart.cause, "the ranks were ended before rank 0 recorded an error (status running)");
  EXPECT_TRUE(parse_utc(restart.failed_at)) << restart.failed_at;  // now
  EXPECT_GT(restart.time_lost_s, 0.0);
}

}  // namespace
}  // namespace runner::sweep
