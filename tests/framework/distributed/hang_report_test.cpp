// The hang report from ranks' states made by hand: the first collective a member missed and
// where the missing one was, a killed or stopped rank, ranks that called different collectives,
// sizes or dtypes at one place, and a line per rank.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "distributed/hang_report.hpp"

using ::testing::HasSubstr;

namespace runner::distributed {
namespace {

constexpr double kT0 = 1.7e9;  // a Unix time: the states' clock

PublishedCollective collective(const std::string& group, uint64_t sequence, const char* state,
                               double issued_after_s, const char* op = "all_reduce",
                               int64_t elements = 10, const char* dtype = "Float") {
  return {group,
          sequence,
          op,
          dtype,
          elements,
          3,
          state,
          kT0 + issued_after_s,
          fmt::format("{} #{} of {} (step 3)", op, sequence, group)};
}

struct StateSpec {
  int rank = 0;
  std::string phase = "backward";
  int64_t step = 3;
  double since_s = 0, published_s = 0;
  std::vector<PublishedGroup> groups;
  std::vector<PublishedCollective> collectives;
};

RankState state_of(StateSpec s) {
  RankState state;
  state.rank = s.rank;
  state.phase = s.phase;
  state.step = s.step;
  state.phase_since_unix = kT0 + s.since_s;
  state.published_unix = kT0 + s.published_s;
  state.groups = std::move(s.groups);
  state.collectives = std::move(s.collectives);
  return state;
}

// A rank of a world of `world` ranks whose newest collective of "world" is #`sequence`, in
// `state`, issued at `issued_s`.
RankState in_world(int rank, int world, uint64_t sequence, const char* state, double issued_s,
                   double published_s) {
  std::vector<int> ranks;
  for (int r = 0; r < world; ++r) ranks.push_back(r);
  return state_of({rank,
                   "backward",
                   3,
                   issued_s,
                   published_s,
                   {{"world", ranks, sequence}},
                   {collective("world", sequence - 1, "completed", issued_s - 1),
                    collective("world", sequence, state, issued_s)}});
}

TEST(HangReport, NamesTheRankMissingFromACollectiveAndWhereItIs) {
  RankState late = in_world(1, 3, 5, "completed", 90, 161);
  late.collectives.pop_back();
  late.groups[0].sequence = 4;
  late.phase = "data loading";
  late.phase_since_unix = kT0 + 100;
  const HangReport report = hang_report({{0, "", in_world(0, 3, 5, "issued", 100, 161)},
                                         {1, "", late},
                                         {2, "", in_world(2, 3, 5, "issued", 100.5, 161)}});
  EXPECT_EQ(report.first_line,
            "rank 1 has been in data loading of step 3 for 61 s; ranks 0, 2 wait in "
            "all_reduce #5 of world (step 3)");
  ASSERT_EQ(report.detail.size(), 3u);
  EXPECT_EQ(report.detail[0],
            "rank 0: in backward of step 3 for 61 s, waits in all_reduce #5 of world (step 3) "
            "for 61 s; last completed: all_reduce #4 of world (step 3)");
  EXPECT_EQ(report.detail[1],
            "rank 1: in data loading of step 3 for 61 s; last completed: all_reduce #4 of world "
            "(step 3)");
}

// Its state is up to a beat older than its death: where it was last seen, not a collective it
// missed (a fast run's rank may have gone on through many since).
TEST(HangReport, NamesHowAKilledRankEndedAndWhereItWasLastSeen) {
  RankState killed = in_world(1, 2, 4, "completed", 10, 12);
  killed.phase = "forward";
  const HangReport report = hang_report({{0, "", in_world(0, 2, 5, "failed", 12, 12.2)},
                                         {1, "was killed by signal 9 (SIGKILL)", killed}});
  EXPECT_EQ(report.first_line,
            "rank 1 was killed by signal 9 (SIGKILL), last seen in forward of step 3; rank 0 "
            "waits in all_reduce #5 of world (step 3)");
  EXPECT_THAT(report.detail[1],
              HasSubstr("rank 1: was killed by signal 9 (SIGKILL), last seen in forward"));
}

TEST(HangReport, ARankThatPublishedNothingIsNamedByItsFate) {
  const HangReport report = hang_report({{0, "", in_world(0, 2, 1, "issued", 12, 14)},
                                         {1, "was stopped by signal 19 (SIGSTOP)", std::nullopt}});
  EXPECT_EQ(report.first_line,
            "rank 1 was stopped by signal 19 (SIGSTOP); rank 0 waits in all_reduce #1 of world "
            "(step 3)");
  EXPECT_EQ(report.detail[1], "rank 1: was stopped by signal 19 (SIGSTOP), no state");
}

// A short run's steps can all fall between two of a rank's beats: its state still says setup
// when it stops, while rank 0 completed all-reduces #1 to #32 with it since.
TEST(HangReport, ARankStoppedAfterItsStateIsPlacedByTheCollectivesItCompletedSince) {
  RankState stale = state_of({1, "setup", 0, 0, 0.2, {{"world", {0, 1}, 0}}, {}});
  RankState waiting = in_world(0, 2, 33, "issued", 12, 14);
  waiting.collectives.insert(waiting.collectives.begin(),
                             collective("world", 31, "completed", 10.5));
  const HangReport report =
      hang_report({{0, "", waiting}, {1, "was stopped by signal 19 (SIGSTOP)", stale}});
  EXPECT_EQ(report.first_line,
            "rank 1 was stopped by signal 19 (SIGSTOP), last seen completing all_reduce #32 of "
            "world (step 3); rank 0 waits in all_reduce #33 of world (step 3)");
  EXPECT_EQ(report.detail[1],
            "rank 1: was stopped by signal 19 (SIGSTOP), last seen completing all_reduce #32 of "
            "world (step 3); its own state, older: in setup of step 0 for 0.2 s; last completed: "
            "none");
  const HangReport without_state =
      hang_report({{0, "", waiting}, {1, "was killed by signal 9 (SIGKILL)", std::nullopt}});
  EXPECT_EQ(without_state.detail[1],
            "rank 1: was killed by signal 9 (SIGKILL), last seen completing all_reduce #32 of "
            "world (step 3); no state");
}

// A send completes without its receiver: it proves nothing of where the receiver got.
TEST(HangReport, ASendTheOtherCompletedDoesNotPlaceTheReceiver) {
  RankState stale = state_of({1, "forward", 3, 0, 0.2, {{"world 0->1", {0, 1}, 0}}, {}});
  RankState sender = state_of({0,
                               "forward",
                               3,
                               1,
                               2,
                               {{"world 0->1", {0, 1}, 1}},
                               {collective("world 0->1", 1, "completed", 1, "send")}});
  const HangReport report =
      hang_report({{0, "", sender}, {1, "was killed by signal 9 (SIGKILL)", stale}});
  EXPECT_THAT(report.first_line,
              HasSubstr("rank 1 was killed by signal 9 (SIGKILL), last seen in forward of step 3"))
      << report.first_line;
}

TEST(HangReport, RanksInTheSameCollectiveWithoutAFaultAddNothingToTheFailure) {
  const HangReport report = hang_report({{0, "", in_world(0, 2, 5, "failed", 12, 14)},
                                         {1, "", in_world(1, 2, 5, "failed", 12, 14)},
                                         {2, "", std::nullopt}});
  EXPECT_EQ(report.first_line, "");
  ASSERT_EQ(report.detail.size(), 3u);
  EXPECT_EQ(report.detail[2], "rank 2: published no state");
}

TEST(HangReport, FindsTheRankMissingFromAMessagesChannel) {
  RankState sender = in_world(0, 2, 6, "completed", 10, 14);
  sender.groups.push_back({"world 0->1", {0, 1}, 3});
  sender.collectives.push_back(collective("world 0->1", 2, "completed", 9, "send", 64));
  sender.collectives.push_back(collective("world 0->1", 3, "issued", 10, "send", 64));
  RankState receiver = in_world(1, 2, 6, "completed", 10, 14);
  receiver.groups.push_back({"world 0->1", {0, 1}, 2});
  receiver.collectives.push_back(collective("world 0->1", 2, "completed", 9, "receive", 64));
  receiver.phase = "forward";
  receiver.phase_since_unix = kT0 + 10;
  const HangReport report = hang_report({{0, "", sender}, {1, "", receiver}});
  EXPECT_EQ(report.first_line,
            "rank 1 has been in forward of step 3 for 4.0 s; rank 0 waits in send #3 of "
            "world 0->1 (step 3)")
      << "a send and its receive at one place are one message, not a mismatch";
}

TEST(HangReport, AMemberThatNeverMadeASubgroupMissedItsFirstCollective) {
  RankState maker = in_world(0, 2, 6, "completed", 10, 14);
  maker.groups.push_back({"world/1", {0, 1}, 1});
  maker.collectives.push_back(collective("world/1", 1, "issued", 11, "broadcast"));
  const HangReport report =
      hang_report({{0, "", maker}, {1, "", in_world(1, 2, 6, "completed", 10, 14)}});
  EXPECT_THAT(report.first_line, HasSubstr("rank 0 waits in broadcast #1 of world/1"));
  EXPECT_THAT(report.first_line, HasSubstr("rank 1 has been in backward of step 3"));
}

TEST(HangReport, TheEarliestCollectiveMissedComesFirst) {
  RankState a = in_world(0, 2, 6, "issued", 20, 30);
  a.groups.push_back({"world/1", {0, 1}, 2});
  a.collectives.insert(a.collectives.begin(), collective("world/1", 2, "completed", 5, "send"));
  RankState b = in_world(1, 2, 5, "completed", 10, 30);
  b.groups.push_back({"world/1", {0, 1}, 1});
  const HangReport report = hang_report({{0, "", a}, {1, "", b}});
  EXPECT_THAT(report.first_line, HasSubstr("rank 0 waits in send #2 of world/1"));
}

struct Mismatch {
  const char* name;
  PublishedCollective other;
  const char* says;
};

class HangReportMismatch : public ::testing::TestWithParam<Mismatch> {};

TEST_P(HangReportMismatch, NamesItsClassAndBothCalls) {
  RankState a = in_world(0, 2, 5, "issued", 10, 12);
  RankState b = in_world(1, 2, 5, "issued", 10, 12);
  b.collectives.back() = GetParam().other;
  const HangReport report = hang_report({{0, "", a}, {1, "", b}});
  EXPECT_EQ(report.first_line,
            fmt::format("ranks 0 and 1 called {} as #5 of world: rank 0 all_reduce #5 of world "
                        "(step 3); rank 1 {}",
                        GetParam().says, GetParam().other.text));
}

INSTANTIATE_TEST_SUITE_P(
    Classes, HangReportMismatch,
    ::testing::Values(
        Mismatch{"op", collective("world", 5, "issued", 10, "broadcast"), "different collectives"},
        Mismatch{"size", collective("world", 5, "issued", 10, "all_reduce", 12), "different sizes"},
        Mismatch{"dtype", collective("world", 5, "issued", 10, "all_reduce", 10, "BFloat16"),
                 "different dtypes"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace runner::distributed
