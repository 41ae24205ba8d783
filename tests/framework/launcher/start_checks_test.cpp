// What a trial start of the host tells the user, as runner's own line: the loader's failure
// under an address-space limit, a variable libgomp refuses, a signal before main; and when a
// trial start is made at all.
#include "launcher/start_checks.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

using ::testing::HasSubstr;
using ::testing::Not;

namespace runner::launcher {
namespace {

constexpr uint64_t kHalfGiB = uint64_t{512} << 20;

TrialStart failed_with(int exit_code, const std::string& errors) {
  TrialStart trial;
  trial.exit_code = exit_code;
  trial.errors = errors;
  return trial;
}

TEST(StartChecks, ATrialStartIsMadeOnlyUnderAnAddressLimitOrAnOpenMpVariable) {
  EXPECT_FALSE(needs_trial_start({"HOME=/root", "OPENBLAS_NUM_THREADS=2"}, std::nullopt));
  EXPECT_TRUE(needs_trial_start({"HOME=/root"}, kHalfGiB));
  EXPECT_TRUE(needs_trial_start({"OMP_PROC_BIND=close"}, std::nullopt));
  EXPECT_TRUE(needs_trial_start({"GOMP_SPINCOUNT=10"}, std::nullopt));
  EXPECT_FALSE(needs_trial_start({"MY_OMP_NOTE=1"}, std::nullopt));
}

TEST(StartChecks, AStartThatGotToItsMainIsNoProblem) {
  EXPECT_EQ(trial_problem(failed_with(0, ""), {}, std::nullopt), std::nullopt);
  EXPECT_EQ(trial_problem(failed_with(0, ""), {}, kHalfGiB), std::nullopt);
}

TEST(StartChecks, TheLoadersFailureUnderALimitNamesTheLimit) {
  const std::string loader =
      "/x/libexec/runner/runner: error while loading shared libraries: libdnnl.so.2: failed to "
      "map segment from shared object\n";
  const auto problem = trial_problem(failed_with(127, loader), {}, kHalfGiB);
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->message,
            "the address-space limit (ulimit -v 524288 KiB) is too small to load runner's "
            "libraries: libdnnl.so.2: failed to map segment from shared object");
  EXPECT_THAT(problem->hint, HasSubstr("ulimit -v unlimited"));
  EXPECT_EQ(problem->exit_code, 5);
  const auto unlimited = trial_problem(failed_with(127, loader), {}, std::nullopt);
  ASSERT_TRUE(unlimited);
  EXPECT_EQ(unlimited->message,
            "runner's libraries do not load: libdnnl.so.2: failed to map segment from shared "
            "object");
}

TEST(StartChecks, AVariableLibgompRefusesIsNamedWithItsValue) {
  const auto problem = trial_problem(
      failed_with(0, "\nlibgomp: Invalid value for environment variable OMP_PROC_BIND\n"),
      {"HOME=/root", "OMP_PROC_BIND=sideways"}, std::nullopt);
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->message, "OMP_PROC_BIND=sideways: OpenMP (libgomp) does not take this value");
  EXPECT_EQ(problem->exit_code, 2);
}

// GCC 14's libgomp (Debian 13) adds the value after the name.
TEST(StartChecks, AVariableLibgompRefusesWithItsValueIsNamedOnce) {
  const auto problem = trial_problem(
      failed_with(0, "\nlibgomp: Invalid value for environment variable OMP_PROC_BIND: sideways\n"),
      {"OMP_PROC_BIND=sideways"}, std::nullopt);
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->message, "OMP_PROC_BIND=sideways: OpenMP (libgomp) does not take this value");
}

TEST(StartChecks, ASignalBeforeMainIsNamedWithTheLimit) {
  TrialStart killed;
  killed.signal = SIGSEGV;
  const auto problem = trial_problem(killed, {}, kHalfGiB);
  ASSERT_TRUE(problem);
  EXPECT_THAT(problem->message, HasSubstr("ended by signal 11"));
  EXPECT_THAT(problem->message, HasSubstr("under ulimit -v 524288 KiB"));
  EXPECT_EQ(problem->exit_code, 5);
}

TEST(StartChecks, AHostThatCannotBeStartedIsNamed) {
  const auto problem = trial_problem(
      failed_with(127, "cannot start /x/runner: No such file or directory\n"), {}, std::nullopt);
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->message, "cannot start /x/runner: No such file or directory");
  EXPECT_THAT(problem->hint, Not(HasSubstr("ulimit")));
}

// The limit as this process sees it, read in a child that sets one.
TEST(StartChecks, TheAddressLimitIsReadInBytes) {
  EXPECT_EQ(address_space_limit(), std::nullopt) << "the test runs without ulimit -v";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const rlimit limit{kHalfGiB, kHalfGiB};
    if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(2);
    _exit(address_space_limit() == kHalfGiB ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

}  // namespace
}  // namespace runner::launcher
