// Every collective of a communicator in the rank's ledger: each op once, with the same group,
// sequence number, op and size on every member, the caller's words, and a failure named by
// its entry.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <mutex>
#include <runner_testing/in_process_ranks.hpp>
#include <string>
#include <vector>

#include "distributed/connect.hpp"

using ::testing::ElementsAre;

namespace runner::testing {
namespace {

using distributed::CollectiveEntry;
using distributed::CollectiveState;
using distributed::RankConnection;

// "op #sequence of group elements state": what every member must agree on.
std::vector<std::string> summary_of(const distributed::CollectiveLedger& ledger) {
  std::vector<std::string> lines;
  for (const CollectiveEntry& e : ledger.entries())
    lines.push_back(std::string(e.op) + " #" + std::to_string(e.sequence) + " of " +
                    ledger.group_name(e.group) + " " + std::to_string(e.elements) + " " +
                    distributed::state_name(e.state));
  return lines;
}

void every_kind_of_collective(int rank, Communicator& c) {
  auto a = torch::ones({6});
  auto b = torch::ones({2});
  c.broadcast({a}, 0);
  c.all_reduce_sum({a, b});
  auto gathered = torch::empty({12});
  c.all_gather(gathered, a);
  auto part = torch::empty({3});
  c.reduce_scatter_sum(part, a);
  if (rank == 0) c.send(b, 1);
  if (rank == 1) c.receive(b, 0);
  c.barrier();
}

TEST(LedgerCollectives, EveryMemberRecordsTheSameCollectivesInOrder) {
  std::mutex mutex;
  std::vector<std::vector<std::string>> seen(2);
  on_ranks(2, [&](int rank, RankConnection& c) {
    every_kind_of_collective(rank, *c.communicator);
    const std::lock_guard<std::mutex> lock(mutex);
    seen[static_cast<size_t>(rank)] = summary_of(*c.ledger);
  });
  EXPECT_THAT(
      seen[0],
      ElementsAre("broadcast #1 of world 6 completed", "all_reduce #2 of world 6 completed",
                  "all_reduce #3 of world 2 completed", "all_gather #4 of world 12 completed",
                  "reduce_scatter #5 of world 6 completed", "send #1 of world 0->1 2 completed",
                  "barrier #6 of world 0 completed"));
  EXPECT_EQ(seen[1][5], "receive #1 of world 0->1 2 completed");
  seen[1][5] = seen[0][5];
  EXPECT_EQ(seen[0], seen[1]);
}

// A pipeline's stages send and receive what others never see: each direction between two ranks
// is numbered alike on both of its ends, and leaves the group's collectives in step.
TEST(LedgerCollectives, MessagesAreNumberedPerDirectionAlikeOnBothEnds) {
  std::mutex mutex;
  std::vector<std::vector<std::string>> seen(3);
  on_ranks(3, [&](int rank, RankConnection& c) {
    auto t = torch::ones({2});
    if (rank == 0) c.communicator->send(t, 2), c.communicator->send(t, 2);
    if (rank == 2) c.communicator->receive(t, 0), c.communicator->receive(t, 0);
    if (rank == 2) c.communicator->send(t, 0);
    if (rank == 0) c.communicator->receive(t, 2);
    c.communicator->barrier();
    const std::lock_guard<std::mutex> lock(mutex);
    seen[static_cast<size_t>(rank)] = summary_of(*c.ledger);
  });
  EXPECT_THAT(
      seen[0],
      ElementsAre("send #1 of world 0->2 2 completed", "send #2 of world 0->2 2 completed",
                  "receive #1 of world 2->0 2 completed", "barrier #1 of world 0 completed"));
  EXPECT_THAT(
      seen[2],
      ElementsAre("receive #1 of world 0->2 2 completed", "receive #2 of world 0->2 2 completed",
                  "send #1 of world 2->0 2 completed", "barrier #1 of world 0 completed"));
  EXPECT_THAT(seen[1], ElementsAre("barrier #1 of world 0 completed"));
}

TEST(LedgerCollectives, SubgroupsAreNamedAlikeOnTheirMembersWithTheirRunRanks) {
  std::mutex mutex;
  std::vector<std::vector<std::string>> seen(3);
  std::vector<int> members;
  on_ranks(3, [&](int rank, RankConnection& c) {
    auto pair = c.communicator->subgroup({0, 2});
    if (pair) {
      auto t = torch::ones({4});
      pair->all_reduce_sum({t});
    }
    c.communicator->barrier();
    const std::lock_guard<std::mutex> lock(mutex);
    seen[static_cast<size_t>(rank)] = summary_of(*c.ledger);
    if (rank == 2) members = c.ledger->group_ranks(c.ledger->entries().front().group);
  });
  EXPECT_THAT(seen[0], ElementsAre("all_reduce #1 of world/1 4 completed",
                                   "barrier #1 of world 0 completed"));
  EXPECT_EQ(seen[2], seen[0]);
  EXPECT_THAT(seen[1], ElementsAre("barrier #1 of world 0 completed"));
  EXPECT_EQ(members, (std::vector<int>{0, 2}));
}

TEST(LedgerCollectives, TheCallersWordsGoWithItsNextCallOnly) {
  std::mutex mutex;
  std::vector<std::string> words;
  on_ranks(2, [&](int rank, RankConnection& c) {
    auto t = torch::ones({3});
    auto u = torch::ones({1});
    c.communicator->describe_next("ddp bucket 1 of 2");
    c.communicator->all_reduce_sum({t, u});
    c.communicator->all_reduce_sum({t});
    if (rank != 0) return;
    const std::lock_guard<std::mutex> lock(mutex);
    for (const CollectiveEntry& e : c.ledger->entries()) words.emplace_back(e.words.data());
  });
  EXPECT_THAT(words, ElementsAre("ddp bucket 1 of 2", "ddp bucket 1 of 2", ""));
}

TEST(LedgerCollectives, AStartedCollectiveIsIssuedUntilWaitedFor) {
  on_ranks(2, [](int, RankConnection& c) {
    auto t = torch::ones({5});
    auto pending = c.communicator->start_all_reduce_sum({t});
    EXPECT_EQ(c.ledger->entries().back().state, CollectiveState::issued);
    pending->wait();
    EXPECT_EQ(c.ledger->entries().back().state, CollectiveState::completed);
    EXPECT_GE(c.ledger->entries().back().ended_s, c.ledger->entries().back().issued_s);
  });
}

// A fault injected into both ranks: each one's next collective fails as a real failure does
// (its entry failed, the error naming it), before anything reaches the other rank, so the
// collective after it goes through.
TEST(LedgerCollectives, APlantedFailureFailsTheNextCollectiveOnceAndNamesIt) {
  on_ranks(2, [](int, RankConnection& c) {
    c.ledger->fail_next("fault injected here");
    auto t = torch::ones({5});
    c.communicator->describe_next("the planted one");
    try {
      c.communicator->all_reduce_sum({t});
      ADD_FAILURE() << "the planted failure did not fail the collective";
    } catch (const std::exception& e) {
      EXPECT_THAT(e.what(), ::testing::HasSubstr("the planted one")) << e.what();
      EXPECT_THAT(e.what(), ::testing::HasSubstr("fault injected here")) << e.what();
    }
    EXPECT_EQ(c.ledger->entries().back().state, CollectiveState::failed);
    c.communicator->all_reduce_sum({t});
    EXPECT_EQ(c.ledger->entries().back().state, CollectiveState::completed);
    EXPECT_TRUE(torch::equal(t, torch::full({5}, 2.0)));
  });
}

}  // namespace
}  // namespace runner::testing
