// Tests of PeriodicThread: when the first tick comes, a tick that ends the thread, and a stop
// that does not wait for the period.
#include "common/periodic_thread.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace runner {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

constexpr milliseconds kHour{3600 * 1000};

// Waits up to a minute for `ticks` to reach `at_least`.
bool reaches(const std::atomic<int>& ticks, int at_least) {
  const auto deadline = Clock::now() + std::chrono::minutes(1);
  while (ticks < at_least && Clock::now() < deadline) std::this_thread::sleep_for(milliseconds(1));
  return ticks >= at_least;
}

TEST(PeriodicThread, TicksAtOnceWhenAsked) {
  std::atomic<int> ticks{0};
  PeriodicThread thread("test", kHour, FirstTick::at_once, [&] {
    ++ticks;
    return true;
  });
  EXPECT_TRUE(reaches(ticks, 1));
}

TEST(PeriodicThread, WaitsAPeriodBeforeTheFirstTickWhenAsked) {
  std::atomic<int> ticks{0};
  {
    PeriodicThread thread("test", kHour, FirstTick::after_a_period, [&] {
      ++ticks;
      return true;
    });
    std::this_thread::sleep_for(milliseconds(50));
  }
  EXPECT_EQ(ticks, 0);
}

TEST(PeriodicThread, TicksEveryPeriod) {
  std::atomic<int> ticks{0};
  PeriodicThread thread("test", milliseconds(1), FirstTick::after_a_period, [&] {
    ++ticks;
    return true;
  });
  EXPECT_TRUE(reaches(ticks, 5));
}

TEST(PeriodicThread, ATickReturningFalseIsTheLast) {
  std::atomic<int> ticks{0};
  PeriodicThread thread("test", milliseconds(1), FirstTick::at_once, [&] {
    ++ticks;
    return ticks < 3;
  });
  ASSERT_TRUE(reaches(ticks, 3));
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_EQ(ticks, 3);
}

TEST(PeriodicThread, StopsWithoutWaitingForThePeriod) {
  const auto start = Clock::now();
  {
    PeriodicThread thread("test", kHour, FirstTick::at_once, [] { return true; });
  }
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(30));
}

}  // namespace
}  // namespace runner
