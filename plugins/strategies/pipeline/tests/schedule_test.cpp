// Tests of GPipe and 1F1B: action order, micro-batches in flight, the bubble, unknown names.
#include <gtest/gtest.h>

#include "../schedule.hpp"

namespace runner::strategies::pipeline_tests {
namespace {

using A = PipelineAction;

std::vector<StageSchedule> every_stage(const std::string& name, int k, int m) {
  std::vector<StageSchedule> stages;
  for (int s = 0; s < k; ++s) stages.push_back(schedule_named(name, s, k, m));
  return stages;
}

TEST(Schedule, GpipeRunsEveryForwardThenEveryBackward) {
  const StageSchedule expected{{A::forward, 0},  {A::forward, 1},  {A::forward, 2},
                               {A::backward, 2}, {A::backward, 1}, {A::backward, 0}};
  EXPECT_EQ(gpipe_schedule(1, 2, 3), expected);
  EXPECT_EQ(most_in_flight(expected), 3);
}

TEST(Schedule, OneFOneBFillsThenAlternatesThenDrains) {
  // Stage 0 of 3 with 4 micro-batches: 2 forwards to fill, then F/B pairs, then 2 backwards.
  const StageSchedule first{{A::forward, 0}, {A::forward, 1},  {A::forward, 2},  {A::backward, 0},
                            {A::forward, 3}, {A::backward, 1}, {A::backward, 2}, {A::backward, 3}};
  EXPECT_EQ(one_f_one_b_schedule(0, 3, 4), first);
  // The last stage alternates from the start.
  const StageSchedule last{{A::forward, 0}, {A::backward, 0}, {A::forward, 1}, {A::backward, 1}};
  EXPECT_EQ(one_f_one_b_schedule(2, 3, 2), last);
}

TEST(Schedule, OneFOneBKeepsAtMostTheStagesMicroBatchesInFlight) {
  for (int k : {1, 2, 4, 8})
    for (int m : {1, 3, 8, 32})
      for (int s = 0; s < k; ++s) {
        const StageSchedule schedule = one_f_one_b_schedule(s, k, m);
        EXPECT_LE(most_in_flight(schedule), std::min(k - s, m)) << k << " " << m << " " << s;
        EXPECT_EQ(most_in_flight(gpipe_schedule(s, k, m)), m);
        EXPECT_EQ(schedule.size(), 2u * static_cast<size_t>(m));
      }
}

TEST(Schedule, EveryMicroBatchRunsForwardThenBackwardOnceOnEveryStage) {
  for (const char* name : {"gpipe", "1f1b"})
    for (int s = 0; s < 4; ++s) {
      std::vector<int> forwards(5), backwards(5);
      for (const auto& a : schedule_named(name, s, 4, 5)) {
        if (a.kind == A::forward)
          ++forwards[static_cast<size_t>(a.micro_batch)];
        else {
          EXPECT_EQ(forwards[static_cast<size_t>(a.micro_batch)], 1) << name;
          ++backwards[static_cast<size_t>(a.micro_batch)];
        }
      }
      EXPECT_EQ(forwards, std::vector<int>(5, 1));
      EXPECT_EQ(backwards, std::vector<int>(5, 1));
    }
}

// (k - 1) / (m + k - 1): the idle share of k stages that each run m forwards and backwards.
TEST(Schedule, TheBubbleIsKMinusOneOverMPlusKMinusOne) {
  for (const char* name : {"gpipe", "1f1b"})
    for (int k : {2, 4})
      for (int m : {1, 4, 8}) {
        const double bubble = simulated_bubble_fraction(every_stage(name, k, m), 1.0, 2.0);
        EXPECT_NEAR(bubble, (k - 1.0) / (m + k - 1.0), 1e-12) << name << " k=" << k << " m=" << m;
      }
}

TEST(Schedule, AnUnknownNameIsRefused) {
  EXPECT_THROW(schedule_named("interleaved", 0, 2, 2), std::invalid_argument);
}

}  // namespace
}  // namespace runner::strategies::pipeline_tests
