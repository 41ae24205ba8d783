// The hint after an interrupt: a command that works as printed in a shell, the stopped run's
// newest checkpoint that can be gone on from (never its final weights), or that it saved none.
#include "sweep/interrupt_hint.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "checkpoint/folders.hpp"
#include "checkpoint/writer.hpp"

using ::testing::HasSubstr;
using ::testing::Not;

namespace runner::sweep {
namespace {

namespace fs = std::filesystem;

std::string fresh_run_folder(const std::string& name) {
  const fs::path folder = fs::temp_directory_path() / "runner-interrupt-hint-tests" / name;
  fs::remove_all(folder);
  return folder.string();
}

// One rank's checkpoint of one tensor at `step`.
void save_at(const std::string& run_folder, int64_t step, bool weights_only) {
  checkpoint::ShardWriter writer(run_folder, 10, 0, 1);
  checkpoint::Manifest manifest;
  manifest.experiment = "exp";
  manifest.run_id = "abc";
  manifest.progress.global_step = step;
  manifest.weights_only = weights_only;
  writer.save({{"model/w", {2}, -1, 0, torch::ones({2}), true}}, manifest);
  writer.finish();
}

TEST(InterruptHint, TheResumeCommandQuotesWhatTheShellWouldSplitOrExpand) {
  EXPECT_EQ(resume_command({"/opt/runner/bin/runner", "--set", "train.lr=0.1", "exp.toml"}),
            "/opt/runner/bin/runner --set train.lr=0.1 exp.toml --resume");
  EXPECT_EQ(resume_command({"runner", "--set", "experiment.description=a b", "it's $HOME.toml"}),
            "runner --set 'experiment.description=a b' 'it'\\''s $HOME.toml' --resume");
  EXPECT_EQ(resume_command({"runner", ""}), "runner '' --resume");
}

TEST(InterruptHint, NamesTheNewestCheckpointToGoOnFromAndTheCommand) {
  const std::string run = fresh_run_folder("checkpoints");
  save_at(run, 5, false);
  save_at(run, 8, false);
  save_at(run, 9, true);  // a final weights' folder left by an earlier run of the same id
  const std::string hint = interrupt_hint("abc", run, "runner exp.toml --resume", 0);
  EXPECT_EQ(hint, "run abc goes on from its last checkpoint, " +
                      checkpoint::checkpoint_folder(run, 8) + ", with: runner exp.toml --resume");
}

TEST(InterruptHint, ARunWithoutCheckpointsStartsOverAndTheCompletedRunsAreKept) {
  const std::string run = fresh_run_folder("none");
  std::string hint = interrupt_hint("abc", run, "runner exp.toml --resume", 0);
  EXPECT_THAT(hint, HasSubstr("run abc saved no checkpoint to go on from: it starts over when "
                              "run again ([checkpoint] every_epochs or every_steps saves them)"))
      << hint;
  EXPECT_THAT(hint, Not(HasSubstr("--resume"))) << hint;
  save_at(run, 9, true);
  hint = interrupt_hint("abc", run, "runner exp.toml --resume", 2);
  EXPECT_THAT(hint, HasSubstr("saved no checkpoint to go on from")) << hint;
  EXPECT_THAT(hint, HasSubstr("; runner exp.toml --resume keeps the 2 runs completed before it"))
      << hint;
  EXPECT_EQ(between_runs_hint("runner exp.toml --resume", 1),
            "runner exp.toml --resume keeps the 1 run completed and runs the rest");
}

}  // namespace
}  // namespace runner::sweep
