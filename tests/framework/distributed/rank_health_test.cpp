// The heartbeat's progress watch: a rank with no progress outside a collective gives up with
// exit code 5, its failure and its state in the store; a rank that waits in a collective, one
// before its first step, or one with the watch off goes on.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/csrc/distributed/c10d/FileStore.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "distributed/rank_health.hpp"

using ::testing::HasSubstr;

namespace runner::distributed {
namespace {

// A store file the test's child processes and the test itself share.
class StoreFile {
 public:
  StoreFile() {
    char name[] = "/tmp/runner-rank-health-XXXXXX";
    const int fd = mkstemp(name);
    if (fd >= 0) close(fd);
    path_ = name;
    std::filesystem::remove(path_);
  }
  ~StoreFile() { std::filesystem::remove(path_); }
  c10::intrusive_ptr<c10d::Store> open() const {
    return c10::make_intrusive<c10d::FileStore>(path_, 1);
  }

 private:
  std::string path_;
};

// Watches `ledger` as rank 0 of one for `seconds`, then exits 0.
[[noreturn]] void watch_for(const StoreFile& file, std::shared_ptr<CollectiveLedger> ledger,
                            std::chrono::milliseconds stall_timeout, double seconds) {
  auto store = file.open();
  RankHealth health(store, file.open(), 0, 1, {std::move(ledger), stall_timeout});
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  std::exit(0);
}

std::shared_ptr<CollectiveLedger> ledger_in(RunPhase phase, int64_t step) {
  auto ledger = std::make_shared<CollectiveLedger>(16);
  ledger->add_group("world", {0});
  ledger->enter(phase, step);
  return ledger;
}

TEST(RankHealthDeathTest, ARankWithoutProgressGivesUpAndSaysWhere) {
  const StoreFile file;
  EXPECT_EXIT(watch_for(file, ledger_in(RunPhase::data_loading, 3), std::chrono::seconds(1), 6),
              ::testing::ExitedWithCode(5),
              "rank 0: error: made no progress for 1 s in data loading of step 3 "
              "\\(train.stall_timeout_s = 1\\)");
  auto store = file.open();
  const auto state = published_state(*store, 0);
  ASSERT_TRUE(state);
  EXPECT_TRUE(state->stalled);
  EXPECT_EQ(state->phase, "data loading");
  EXPECT_EQ(state->step, 3);
  EXPECT_THAT(reported_failure(*store, 0).value_or(""), HasSubstr("made no progress for 1 s"));
}

TEST(RankHealthDeathTest, ARankWaitingInACollectiveIsLeftToItsTimeout) {
  const StoreFile file;
  auto ledger = ledger_in(RunPhase::backward, 3);
  ledger->issued({0, "all_reduce", "Float", 4, 16, nullptr});
  EXPECT_EXIT(watch_for(file, ledger, std::chrono::seconds(1), 2.5), ::testing::ExitedWithCode(0),
              "");
  const auto state = published_state(*file.open(), 0);
  ASSERT_TRUE(state) << "each beat publishes the state";
  ASSERT_NE(state->stuck_in(), nullptr);
  EXPECT_EQ(state->stuck_in()->op, "all_reduce");
  EXPECT_FALSE(state->stalled);
}

TEST(RankHealthDeathTest, BeforeTheFirstStepOrWithTheWatchOffARankIsNotWatched) {
  const StoreFile before, off;
  EXPECT_EXIT(watch_for(before, ledger_in(RunPhase::setup, 0), std::chrono::seconds(1), 2.5),
              ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(watch_for(off, ledger_in(RunPhase::forward, 2), std::chrono::seconds(0), 2.5),
              ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace runner::distributed
