// thread_start_problem: the threads a run asks for start, or the refusal names the count and the
// limit of processes and threads (ulimit -u) that stopped them, without waiting.
#include "machine/thread_start.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "runner_testing/process_limit.hpp"

using ::testing::HasSubstr;

namespace runner::machine {
namespace {

TEST(ThreadStart, TheThreadsAskedForStart) {
  EXPECT_EQ(thread_start_problem(0), std::nullopt);
  EXPECT_EQ(thread_start_problem(8), std::nullopt);
}

TEST(ThreadStart, AProcessLimitIsOneLineNamingTheCountAndTheLimit) {
  const std::string problem = runner::testing::said_under_process_limit(
      1, [] { return thread_start_problem(3).value_or(""); });
  EXPECT_THAT(problem, HasSubstr("cannot start 3 threads beside this one: ")) << problem;
  EXPECT_THAT(problem, HasSubstr("this user may run 1 processes and threads (ulimit -u)"))
      << problem;
  EXPECT_EQ(problem.find('\n'), std::string::npos) << problem;
}

}  // namespace
}  // namespace runner::machine
