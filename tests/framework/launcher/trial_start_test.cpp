// A trial start keeps what the program wrote to stderr, its exit code or its signal, and
// discards its stdout.
#include "launcher/trial_start.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <csignal>
#include <filesystem>
#include <fstream>

using ::testing::HasSubstr;

namespace runner::launcher {
namespace {

// An executable script in a fresh folder that runs `body` and sees `$1` = --version.
std::string script(const std::string& name, const std::string& body) {
  const auto dir = std::filesystem::temp_directory_path() / "runner_launcher_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  chmod(path.c_str(), 0755);
  return path;
}

TEST(TrialStart, KeepsStderrAndTheExitCodeNotStdout) {
  const TrialStart trial =
      start_once(script("loud", "echo out; echo \"asked $1\" >&2; echo second >&2; exit 127"));
  EXPECT_EQ(trial.errors, "asked --version\nsecond\n");
  EXPECT_EQ(trial.exit_code, 127);
  EXPECT_EQ(trial.signal, 0);
}

TEST(TrialStart, NamesTheSignalThatEndedIt) {
  const TrialStart trial = start_once(script("killed", "kill -SEGV $$"));
  EXPECT_EQ(trial.signal, SIGSEGV);
}

TEST(TrialStart, AProgramThatIsNotThereExitsAs127WithTheReason) {
  const TrialStart trial = start_once("/nonexistent/libexec/runner/runner");
  EXPECT_EQ(trial.exit_code, 127);
  EXPECT_THAT(trial.errors,
              HasSubstr("cannot start /nonexistent/libexec/runner/runner: No such file"));
}

TEST(TrialStart, KeepsAtMost64KiBOfALongStderr) {
  const TrialStart trial = start_once(script("long", "yes error | head -c 200000 >&2"));
  EXPECT_EQ(trial.errors.size(), 64u * 1024);
  EXPECT_EQ(trial.exit_code, 0);
}

}  // namespace
}  // namespace runner::launcher
