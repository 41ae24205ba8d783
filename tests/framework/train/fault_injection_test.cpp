// [fault] read from its keys, checked against the run, and injected only where it strikes:
// its rank, its attempt, its step (a straggler's from it on).
#include "train/fault_injection.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>

#include <chrono>

#include "config/host_schemas.hpp"
#include "runner/errors.hpp"

using ::testing::HasSubstr;

namespace runner::train {
namespace {

// [fault] as validation leaves it: every key, at its default unless given.
Options default_fault_keys() {
  Options keys("fault");
  for (const auto& key : config::fault_schema().keys()) keys.set(key.name, *key.default_value);
  return keys;
}

Options fault_keys(const std::string& kind) {
  Options keys = default_fault_keys();
  keys.set("kind", Value(kind));
  return keys;
}

std::string error_of(const FaultSettings& fault, int world_size, int64_t steps) {
  try {
    check_fault(fault, world_size, steps, 4);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(FaultInjection, TheKeysAreReadAsTheyAreDocumented) {
  Options keys = fault_keys("slow");
  keys.set("rank", Value(int64_t{3}));
  keys.set("step", Value(int64_t{40}));
  keys.set("factor", Value(4.0));
  keys.set("attempt", Value(int64_t{1}));
  const FaultSettings fault = fault_settings_of(keys);
  EXPECT_EQ(fault.kind, FaultSettings::Kind::slow);
  EXPECT_EQ(fault.rank, 3);
  EXPECT_EQ(fault.step, 40);
  EXPECT_EQ(fault.factor, 4.0);
  EXPECT_EQ(fault.attempt, 1);
  EXPECT_EQ(fault_settings_of(default_fault_keys()).kind, FaultSettings::Kind::none);
}

TEST(FaultInjection, ARankOrStepTheRunDoesNotHaveIsAConfigErrorNamingTheKey) {
  FaultSettings fault = fault_settings_of(fault_keys("kill"));
  fault.rank = 2;
  EXPECT_EQ(error_of(fault, 2, 100), "fault.rank = 2: the run has 2 ranks (0 to 1)");
  EXPECT_EQ(error_of(fault, 3, 100), "no error");
  fault.rank = 0;
  fault.step = 101;
  EXPECT_EQ(error_of(fault, 2, 100), "fault.step = 101: the run has 100 training steps");
  fault.step = 100;
  EXPECT_EQ(error_of(fault, 2, 100), "no error");
  FaultSettings collective = fault_settings_of(fault_keys("fail_collective"));
  EXPECT_EQ(error_of(collective, 1, 10),
            "fault.kind = \"fail_collective\": a run of one rank makes no collectives");
  FaultSettings extra = fault_settings_of(fault_keys("extra_collective"));
  EXPECT_EQ(error_of(extra, 1, 10),
            "fault.kind = \"extra_collective\": a run of one rank makes no collectives");
  EXPECT_EQ(error_of(extra, 2, 10), "no error");
  FaultSettings none = fault_settings_of(default_fault_keys());
  none.rank = 9;
  EXPECT_EQ(error_of(none, 1, 10), "no error") << "no fault, nothing to check";
}

TEST(FaultInjection, AKillInACheckpointNeedsACheckpointAfterItsStep) {
  Options keys = fault_keys("kill");
  keys.set("in", Value(std::string("checkpoint")));
  FaultSettings fault = fault_settings_of(keys);
  EXPECT_TRUE(fault.in_checkpoint);
  fault.step = 8;
  EXPECT_EQ(error_of(fault, 2, 100), "no error") << "every 4 steps: one after step 8";
  fault.step = 9;
  EXPECT_EQ(error_of(fault, 2, 100),
            "fault.in = \"checkpoint\": the run saves no checkpoint after step 9 "
            "(checkpoint.every_steps = 4)");
  FaultSettings stop = fault_settings_of(fault_keys("stop"));
  stop.in_checkpoint = true;
  stop.step = 8;
  EXPECT_THAT(error_of(stop, 2, 100), HasSubstr("only fault.kind = \"kill\" strikes there"));
  EXPECT_FALSE(fault_settings_of(fault_keys("kill")).in_checkpoint);
}

TEST(FaultInjectionDeathTest, AKillInACheckpointStrikesWhileItIsWrittenNotAsTheStepStarts) {
  Options keys = fault_keys("kill");
  keys.set("in", Value(std::string("checkpoint")));
  keys.set("step", Value(int64_t{8}));
  const FaultInjector injector(fault_settings_of(keys), 0, 0,
                               std::make_shared<distributed::CollectiveLedger>(0));
  injector.step_starts(8);
  injector.checkpoint_written(4);
  EXPECT_EXIT(injector.checkpoint_written(8), ::testing::KilledBySignal(SIGKILL), "");
}

// A fault planted in the ledger for the rank's next collective, and how the ledger hands it out.
struct PlantedKind {
  const char* kind;
  std::optional<std::string> (distributed::CollectiveLedger::*take)();
  std::optional<std::string> (distributed::CollectiveLedger::*take_other)();
};

class PlantedInTheLedger : public ::testing::TestWithParam<PlantedKind> {};

TEST_P(PlantedInTheLedger, OnlyOnItsRankAttemptAndStepOnceAndAsItsOwnKind) {
  const PlantedKind& planted = GetParam();
  FaultSettings fault = fault_settings_of(fault_keys(planted.kind));
  fault.rank = 1;
  fault.step = 5;
  auto ledger = std::make_shared<distributed::CollectiveLedger>(4);
  FaultInjector(fault, 0, 0, ledger).step_starts(5);
  FaultInjector(fault, 1, 1, ledger).step_starts(5);
  FaultInjector(fault, 1, 0, ledger).step_starts(4);
  EXPECT_EQ(((*ledger).*planted.take)(), std::nullopt);
  FaultInjector(fault, 1, 0, ledger).step_starts(5);
  EXPECT_EQ(((*ledger).*planted.take_other)(), std::nullopt);
  EXPECT_EQ(((*ledger).*planted.take)().value_or(""),
            "fault injected: fault.kind = \"" + std::string(planted.kind) + "\" at step 5");
  EXPECT_EQ(((*ledger).*planted.take)(), std::nullopt) << "taken once";
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, PlantedInTheLedger,
    ::testing::Values(PlantedKind{"fail_collective",
                                  &distributed::CollectiveLedger::take_planted_failure,
                                  &distributed::CollectiveLedger::take_planted_extra_call},
                      PlantedKind{"extra_collective",
                                  &distributed::CollectiveLedger::take_planted_extra_call,
                                  &distributed::CollectiveLedger::take_planted_failure}),
    [](const ::testing::TestParamInfo<PlantedKind>& info) { return std::string(info.param.kind); });

double seconds_of(const std::function<void()>& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(FaultInjection, AStragglerTakesFactorTimesAsLongFromItsStepOn) {
  FaultSettings fault = fault_settings_of(fault_keys("slow"));
  fault.step = 3;
  fault.factor = 3;
  const FaultInjector injector(fault, 0, 0, std::make_shared<distributed::CollectiveLedger>(0));
  // A lower bound only: the machine may add time, never take it away.
  EXPECT_GE(seconds_of([&] { injector.step_computed(3, 0.05); }), 0.1);
  EXPECT_GE(seconds_of([&] { injector.step_computed(7, 0.05); }), 0.1);
  EXPECT_LT(seconds_of([&] { injector.step_computed(2, 5.0); }), 1.0) << "before its step";
}

TEST(FaultInjection, AStopStallsTheRankForItsSeconds) {
  FaultSettings fault = fault_settings_of(fault_keys("stop"));
  fault.step = 2;
  fault.seconds = 0.2;
  const FaultInjector injector(fault, 0, 0, std::make_shared<distributed::CollectiveLedger>(0));
  EXPECT_GE(seconds_of([&] { injector.step_starts(2); }), 0.2);
  EXPECT_LT(seconds_of([&] { injector.step_starts(3); }), 0.2) << "once, at its step";
}

}  // namespace
}  // namespace runner::train
