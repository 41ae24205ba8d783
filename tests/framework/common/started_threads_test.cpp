// Threads started all or none: each runs its body once all have started; a refusal of the system
// (ulimit -u) is a RunError naming the threads and the limit, the started ones joined without
// running their body, never std::terminate.
#include "common/started_threads.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "common/periodic_thread.hpp"
#include "runner_testing/process_limit.hpp"

using ::testing::HasSubstr;

namespace runner {
namespace {

// What `start` throws, or "started".
template <typename Start>
std::string refusal_of(Start start) {
  try {
    start();
    return "started";
  } catch (const RunError& e) {
    return e.what();
  }
}

TEST(StartedThreads, EachRunsItsBodyOnce) {
  std::vector<std::thread> threads;
  std::array<std::atomic<int>, 4> runs{};
  start_threads(threads, 4, "test", [&](int64_t i) { ++runs[static_cast<size_t>(i)]; });
  ASSERT_EQ(threads.size(), 4u);
  for (auto& thread : threads) thread.join();
  for (const auto& count : runs) EXPECT_EQ(count.load(), 1);
}

// The process and one thread fit under a limit of 2: the second of three is refused.
TEST(StartedThreads, ARefusalJoinsTheStartedOnesWithoutRunningThem) {
  const std::string said = runner::testing::said_under_process_limit(2, [] {
    std::vector<std::thread> threads;
    std::atomic<int> ran{0};
    const std::string refusal =
        refusal_of([&] { start_threads(threads, 3, "data loader", [&](int64_t) { ++ran; }); });
    return refusal + " | ran " + std::to_string(ran.load()) + ", left " +
           std::to_string(threads.size());
  });
  EXPECT_THAT(said, HasSubstr("cannot start 3 data loader threads: ")) << said;
  EXPECT_THAT(said, HasSubstr("this user may run 2 processes and threads (ulimit -u)")) << said;
  EXPECT_THAT(said, HasSubstr(" | ran 0, left 0")) << said;
}

TEST(StartedThreads, OneThreadRefusedIsNamed) {
  const std::string said = runner::testing::said_under_process_limit(
      1, [] { return refusal_of([] { started_thread("checkpoint writer", [] {}).join(); }); });
  EXPECT_THAT(said, HasSubstr("cannot start a checkpoint writer thread: ")) << said;
}

TEST(StartedThreads, APeriodicThreadRefusedIsNamed) {
  const std::string said = runner::testing::said_under_process_limit(1, [] {
    return refusal_of([] {
      PeriodicThread heartbeat("heartbeat", std::chrono::hours(1), FirstTick::after_a_period,
                               [] { return true; });
    });
  });
  EXPECT_THAT(said, HasSubstr("cannot start a heartbeat thread: ")) << said;
}

}  // namespace
}  // namespace runner
