// The ledger alone: sequence numbers per group, the phase and step of each call, the caller's
// words cut to fit, states and times, and a ring that wraps without growing.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "distributed/collective_ledger.hpp"
#include "ledger_calls.hpp"

namespace runner::distributed {
namespace {

TEST(CollectiveLedger, NumbersEachGroupsCollectivesFromOne) {
  CollectiveLedger ledger(16);
  const int world = ledger.add_group("world", {0, 1, 2, 3});
  const int pair = ledger.add_group("world/subgroup/1", {1, 3});
  ledger.issued(float_call(world, "all_reduce", 10));
  ledger.issued(float_call(pair, "send", 5));
  ledger.issued(float_call(world, "broadcast", 7));
  const auto entries = ledger.entries();
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].sequence, 1u);
  EXPECT_EQ(entries[1].sequence, 1u);
  EXPECT_EQ(entries[2].sequence, 2u);
  EXPECT_STREQ(entries[2].op, "broadcast");
  EXPECT_EQ(ledger.group_name(entries[1].group), "world/subgroup/1");
  EXPECT_EQ(ledger.group_ranks(pair), (std::vector<int>{1, 3}));
  EXPECT_EQ(entries[0].bytes, 40);
  EXPECT_STREQ(entries[0].dtype.data(), "Float");
}

TEST(CollectiveLedger, EachEntryKeepsThePhaseAndStepItWasCalledIn) {
  CollectiveLedger ledger(8);
  const int world = ledger.add_group("world", {0, 1});
  ledger.issued(float_call(world, "broadcast", 1));
  ledger.enter(RunPhase::data_loading, 38);
  ledger.enter(RunPhase::backward);
  ledger.issued(float_call(world, "all_reduce", 1));
  ledger.enter(RunPhase::evaluation, 39);
  const auto entries = ledger.entries();
  EXPECT_EQ(entries[0].phase, RunPhase::setup);
  EXPECT_EQ(entries[0].step, 0);
  EXPECT_EQ(entries[1].phase, RunPhase::backward);
  EXPECT_EQ(entries[1].step, 38);
  EXPECT_EQ(ledger.activity().phase, RunPhase::evaluation);
  EXPECT_EQ(ledger.activity().step, 39);
  EXPECT_STREQ(phase_name(ledger.activity().phase), "evaluation");
}

TEST(CollectiveLedger, AnEntryGoesFromIssuedToCompletedOrFailedWithItsTimes) {
  CollectiveLedger ledger(8);
  const int world = ledger.add_group("world", {0, 1});
  const CollectiveTicket ok = ledger.issued(float_call(world, "all_reduce", 1));
  const CollectiveTicket bad = ledger.issued(float_call(world, "barrier", 0));
  const CollectiveTicket open = ledger.issued(float_call(world, "all_gather", 2));
  ledger.ended(ok, true);
  ledger.ended(bad, false);
  CollectiveEntry e;
  ASSERT_TRUE(ledger.entry_of(ok, e));
  EXPECT_EQ(e.state, CollectiveState::completed);
  EXPECT_GE(e.ended_s, e.issued_s);
  ASSERT_TRUE(ledger.entry_of(bad, e));
  EXPECT_EQ(e.state, CollectiveState::failed);
  ASSERT_TRUE(ledger.entry_of(open, e));
  EXPECT_EQ(e.state, CollectiveState::issued);
  EXPECT_EQ(e.ended_s, -1);
}

TEST(CollectiveLedger, TheCallersWordsAreKeptAndCutToFit) {
  CollectiveLedger ledger(4);
  const int world = ledger.add_group("world", {0, 1});
  const std::string words = "ddp bucket 3 of 7";
  const std::string long_words(200, 'x');
  ledger.issued(float_call(world, "all_reduce", 1, &words));
  ledger.issued(float_call(world, "all_reduce", 1, &long_words));
  ledger.issued(float_call(world, "all_reduce", 1));
  const auto entries = ledger.entries();
  EXPECT_STREQ(entries[0].words.data(), "ddp bucket 3 of 7");
  EXPECT_EQ(std::string(entries[1].words.data()), std::string(entries[1].words.size() - 1, 'x'));
  EXPECT_STREQ(entries[2].words.data(), "");
}

TEST(CollectiveLedger, TheRingKeepsTheNewestWithoutGrowing) {
  CollectiveLedger ledger(5);
  const int world = ledger.add_group("world", {0, 1});
  CollectiveTicket first;
  for (int i = 0; i < 12; ++i) {
    const CollectiveTicket t = ledger.issued(float_call(world, "all_reduce", i));
    if (i == 0) first = t;
  }
  const auto entries = ledger.entries();
  ASSERT_EQ(entries.size(), 5u);
  EXPECT_EQ(ledger.capacity(), 5u);
  EXPECT_EQ(ledger.collectives(), 12u);
  for (size_t k = 0; k < entries.size(); ++k) EXPECT_EQ(entries[k].sequence, 8 + k);
  CollectiveEntry e;
  EXPECT_FALSE(ledger.entry_of(first, e));
  ledger.ended(first, false);  // an entry written over since: nothing changes
  for (const auto& kept : ledger.entries()) EXPECT_EQ(kept.state, CollectiveState::issued);
}

TEST(CollectiveLedger, WithNoRoomItStillNumbersButKeepsNothing) {
  CollectiveLedger ledger(0);
  const int world = ledger.add_group("world", {0, 1});
  ledger.issued(float_call(world, "all_reduce", 1));
  ledger.issued(float_call(world, "all_reduce", 1));
  EXPECT_TRUE(ledger.entries().empty());
  EXPECT_EQ(ledger.collectives(), 2u);
}

TEST(CollectiveLedger, AnEntrysTextSaysWhatWhereAndWhen) {
  CollectiveLedger ledger(4);
  const int world = ledger.add_group("world", {0, 1});
  const std::string words = "ddp bucket 2 of 7";
  ledger.enter(RunPhase::backward, 38);
  const CollectiveTicket t =
      ledger.issued({world, "all_reduce", "float", 1'050'000, 4'200'000, &words});
  CollectiveEntry e;
  ASSERT_TRUE(ledger.entry_of(t, e));
  EXPECT_EQ(entry_text(ledger, e),
            "all_reduce #1 of world (ddp bucket 2 of 7, 4.2 MB float, step 38, backward)");
}

TEST(CollectiveLedger, ACollectiveOfNoDataIsNamedWithoutASize) {
  CollectiveLedger ledger(4);
  const int world = ledger.add_group("world", {0, 1});
  ledger.enter(RunPhase::finishing, 12);
  const CollectiveTicket t = ledger.issued({world, "barrier", "", 0, 0, nullptr});
  CollectiveEntry e;
  ASSERT_TRUE(ledger.entry_of(t, e));
  EXPECT_EQ(entry_text(ledger, e), "barrier #1 of world (step 12, finishing)");
}

}  // namespace
}  // namespace runner::distributed
