// A rank's published state: its ledger's phase, groups and newest collectives through the text
// the store carries, and text that is not a state refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "distributed/rank_state.hpp"
#include "ledger_calls.hpp"

using ::testing::HasSubstr;

namespace runner::distributed {
namespace {

TEST(RankState, CarriesThePhaseGroupsAndCollectivesOfTheLedger) {
  CollectiveLedger ledger(64);
  const int world = ledger.add_group("world", {0, 1});
  const int pair = ledger.add_group("world/1", {1});
  ledger.enter(RunPhase::backward, 7);
  const std::string words = "ddp bucket 1 of 2\twith\na tab";
  ledger.ended(ledger.issued(float_call(world, "all_reduce", 10, &words)), true);
  ledger.issued(float_call(pair, "send", 5));
  const double before = unix_seconds_now();
  const auto state = decode_rank_state(encode_rank_state(ledger, 1, true));
  ASSERT_TRUE(state);
  EXPECT_EQ(state->rank, 1);
  EXPECT_EQ(state->phase, "backward");
  EXPECT_EQ(state->step, 7);
  EXPECT_TRUE(state->stalled);
  EXPECT_NEAR(state->published_unix, before, 5.0);
  EXPECT_LE(state->phase_since_unix, state->published_unix);
  ASSERT_EQ(state->groups.size(), 2u);
  EXPECT_EQ(state->groups[1].name, "world/1");
  EXPECT_EQ(state->groups[0].ranks, (std::vector<int>{0, 1}));
  EXPECT_EQ(state->groups[0].sequence, 1u);
  ASSERT_EQ(state->collectives.size(), 2u);
  const PublishedCollective& reduce = state->collectives[0];
  EXPECT_EQ(reduce.op, "all_reduce");
  EXPECT_EQ(reduce.dtype, "Float");
  EXPECT_EQ(reduce.elements, 10);
  EXPECT_EQ(reduce.step, 7);
  EXPECT_EQ(reduce.state, "completed");
  EXPECT_THAT(reduce.text, HasSubstr("all_reduce #1 of world (ddp bucket 1 of 2 with a tab"));
  ASSERT_NE(state->stuck_in(), nullptr);
  EXPECT_EQ(state->stuck_in()->op, "send");
  EXPECT_EQ(state->last_completed(), &state->collectives[0]);
}

TEST(RankState, KeepsOnlyTheNewestCollectives) {
  CollectiveLedger ledger(4096);
  const int world = ledger.add_group("world", {0});
  for (int i = 0; i < 100; ++i) ledger.ended(ledger.issued(float_call(world, "barrier", 0)), true);
  const auto state = decode_rank_state(encode_rank_state(ledger, 0, false));
  ASSERT_TRUE(state);
  ASSERT_EQ(state->collectives.size(), kPublishedCollectives);
  EXPECT_EQ(state->collectives.back().sequence, 100u);
  EXPECT_EQ(state->groups[0].sequence, 100u);
  EXPECT_EQ(state->stuck_in(), nullptr);
}

TEST(RankState, TextThatIsNotAStateIsRefused) {
  for (const std::string text : {"", "hello", "rank\t0\tforward\tx\t1\t2\t0", "group\tworld\t0\t1",
                                 "rank\t0\tforward\t1\t1\t2\t0\ngroup\tworld\t0,a\t1",
                                 "rank\t0\tforward\t1\t1\t2\t0\ncollective\tworld\t1\tall_reduce"})
    EXPECT_FALSE(decode_rank_state(text)) << text;
}

TEST(CollectiveLedger, CountsEveryChangeAProgressWatchSees) {
  CollectiveLedger ledger(0);
  const int world = ledger.add_group("world", {0});
  const uint64_t start = ledger.changes();
  ledger.enter(RunPhase::forward, 1);
  const CollectiveTicket ticket = ledger.issued(float_call(world, "all_reduce", 1));
  ledger.ended(ticket, true);
  EXPECT_EQ(ledger.changes(), start + 3);
  EXPECT_TRUE(ledger.newest_entries(5).empty()) << "a ledger of no entries keeps none";
}

}  // namespace
}  // namespace runner::distributed
