// The run writer with events: every call reaches the results writer, and the event files hold
// the steps at their steps, each epoch at its last step, the final metrics, the session's
// start and, in a file of its own, its latest end.
#include "tensorboard/run_events.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "event_reading.hpp"
#include "runner/errors.hpp"
#include "runner_testing/error_message.hpp"
#include "tensorboard/proto/hparams.pb.h"

using ::testing::HasSubstr;

namespace runner::tensorboard {
namespace {

// The calls that reached the results file's writer, in order.
class CallLog final : public results::RunWriter {
 public:
  const std::string& group_name() const override { return group_; }
  void append_epoch(const results::EpochRecord& e) override {
    calls.push_back("epoch " + std::to_string(e.epoch));
  }
  void append_steps(const std::vector<results::StepRecord>& steps) override {
    calls.push_back("steps " + std::to_string(steps.size()));
  }
  void write_summary(const results::Summary&) override { calls.push_back("summary"); }
  void set_status(results::Status status, const std::string& error) override {
    calls.push_back(std::string("status ") + results::status_name(status) + " " + error);
  }
  void record_checkpoints(const std::string& folder) override {
    calls.push_back("checkpoints " + folder);
  }
  void resume_from(const std::string& checkpoint, size_t epochs, size_t steps) override {
    calls.push_back("resume " + checkpoint + " " + std::to_string(epochs) + " " +
                    std::to_string(steps));
  }
  std::vector<std::string> calls;

 private:
  std::string group_ = "0123456789ab";
};

const RunSession kSession{{{"optimizer.lr", results::SweepValue(0.5)}},
                          {{"optimizer.lr", HParamType::number}},
                          "0123456789ab"};

std::vector<results::StepRecord> steps_from(int64_t first, int64_t count) {
  std::vector<results::StepRecord> steps;
  for (int64_t s = first; s < first + count; ++s)
    steps.push_back({s, 1.0 / static_cast<double>(s), 0.01 * static_cast<double>(s), 0.001});
  return steps;
}

results::EpochRecord epoch_record(int64_t epoch) {
  results::EpochRecord e;
  e.epoch = epoch;
  e.train_loss = 0.5 / static_cast<double>(epoch);
  e.test_accuracy = 0.25 * static_cast<double>(epoch);
  e.samples_per_s = 1000.0 * static_cast<double>(epoch);
  return e;
}

// Step -> tag -> value, over the scalars of `events`.
using Scalars = std::map<int64_t, std::map<std::string, float>>;
Scalars scalars_of(const std::vector<proto::Event>& events) {
  Scalars scalars;
  for (const auto& event : events)
    for (const auto& value : event.summary().value())
      if (value.value_case() == proto::Summary::Value::kSimpleValue)
        scalars[event.step()][value.tag()] = value.simple_value();
  return scalars;
}

void train_two_epochs(RunEvents& events, int64_t first_step) {
  for (int64_t epoch : {1, 2}) {
    events.append_epoch(epoch_record(epoch));
    events.append_steps(steps_from(first_step + 3 * (epoch - 1), 3));
  }
}

TEST(RunEvents, ForwardsEveryCallToTheResultsWriter) {
  const std::string folder = testing::scratch_folder("forwards") + "/run";
  CallLog log;
  RunEvents events(log, folder, kSession);
  EXPECT_EQ(events.group_name(), "0123456789ab");
  events.record_checkpoints("ckpt");
  events.resume_from("ckpt/step-3", 1, 3);
  train_two_epochs(events, 1);
  events.write_summary({});
  events.set_status(results::Status::completed);
  EXPECT_EQ(log.calls, (std::vector<std::string>{"checkpoints ckpt", "resume ckpt/step-3 1 3",
                                                 "epoch 1", "steps 3", "epoch 2", "steps 3",
                                                 "summary", "status completed "}));
}

TEST(RunEvents, WritesStepsEpochsAtTheirLastStepAndTheFinalMetrics) {
  const std::string folder = testing::scratch_folder("series") + "/run";
  CallLog log;
  {
    RunEvents events(log, folder, kSession);
    train_two_epochs(events, 1);
    results::Summary summary;
    summary.final_test_accuracy = 0.5;
    events.write_summary(summary);
  }
  const auto files = testing::event_files(folder);
  ASSERT_EQ(files.size(), 1u);
  const auto events = testing::read_events(files[0]);
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events[0].file_version(), "brain.Event:2");
  EXPECT_EQ(events[1].summary().value(0).tag(), "_hparams_/session_start_info");
  EXPECT_EQ(events[2].session_log().status(), proto::SessionLog::START);
  EXPECT_EQ(events[2].step(), 1);

  const Scalars scalars = scalars_of(events);
  for (int64_t s = 1; s <= 6; ++s) {
    EXPECT_EQ(scalars.at(s).at("step/loss"), static_cast<float>(1.0 / static_cast<double>(s)));
    EXPECT_EQ(scalars.at(s).at("step/learning_rate"),
              static_cast<float>(0.01 * static_cast<double>(s)));
  }
  for (int64_t epoch : {1, 2}) {
    const auto& at_end = scalars.at(3 * epoch);
    EXPECT_EQ(at_end.at("epoch/epoch"), static_cast<float>(epoch));
    EXPECT_EQ(at_end.at("epoch/train_loss"), static_cast<float>(epoch_record(epoch).train_loss));
    EXPECT_EQ(at_end.at("epoch/test_accuracy"),
              static_cast<float>(epoch_record(epoch).test_accuracy));
    EXPECT_EQ(at_end.at("epoch/samples_per_s"),
              static_cast<float>(epoch_record(epoch).samples_per_s));
  }
  EXPECT_EQ(scalars.at(6).at("final/test_accuracy"), 0.5f);
  EXPECT_EQ(scalars.at(3).count("final/test_accuracy"), 0u);
}

TEST(RunEvents, CommunicationAndGpuReadingsAreScalarsOnlyWhereMeasured) {
  const std::string folder = testing::scratch_folder("gpu") + "/run";
  CallLog log;
  {
    RunEvents events(log, folder, kSession);
    events.append_epoch(epoch_record(1));  // NaN: not measured
    events.append_steps(steps_from(1, 2));
    results::EpochRecord measured = epoch_record(2);
    measured.gpu_utilization = 0.75;
    measured.gpu_memory_used_bytes = 3.0 * 1024 * 1024 * 1024;
    measured.communication_s = 0.5;
    events.append_epoch(measured);
    events.append_steps(steps_from(3, 2));
  }
  const Scalars scalars = scalars_of(testing::read_events(testing::event_files(folder).at(0)));
  EXPECT_EQ(scalars.at(2).count("epoch/gpu_utilization"), 0u);
  EXPECT_EQ(scalars.at(2).count("epoch/communication_s"), 0u);
  EXPECT_EQ(scalars.at(2).count("epoch/gpu_memory_used_bytes"), 0u);
  EXPECT_EQ(scalars.at(4).at("epoch/gpu_utilization"), 0.75f);
  EXPECT_EQ(scalars.at(4).at("epoch/communication_s"), 0.5f);
  EXPECT_EQ(scalars.at(4).at("epoch/gpu_memory_used_bytes"), 3.0f * 1024 * 1024 * 1024);
}

TEST(RunEvents, StepWallTimesIncreaseByTheStepsDurations) {
  const std::string folder = testing::scratch_folder("wall") + "/run";
  CallLog log;
  {
    RunEvents events(log, folder, kSession);
    events.append_steps(steps_from(1, 4));
  }
  std::vector<double> walls;
  for (const auto& event : testing::read_events(testing::event_files(folder)[0]))
    if (event.summary().value_size() > 0 && event.summary().value(0).tag() == "step/loss")
      walls.push_back(event.wall_time());
  ASSERT_EQ(walls.size(), 4u);
  for (size_t i = 1; i < walls.size(); ++i) EXPECT_NEAR(walls[i] - walls[i - 1], 0.001, 1e-6);
}

proto::SessionEndInfo session_end(const std::string& folder) {
  const auto events = testing::read_events(folder + "/" + kSessionEndFile);
  EXPECT_EQ(events.size(), 2u);
  proto::HParamsPluginData data;
  EXPECT_TRUE(
      data.ParseFromString(events.back().summary().value(0).metadata().plugin_data().content()));
  return data.session_end_info();
}

// A run that failed and was resumed: a second file starts at the first step it records, and
// the end file says the latest status only.
TEST(RunEvents, AResumedRunStartsANewFileAtItsFirstStepAndEndsOnce) {
  const std::string folder = testing::scratch_folder("resumed") + "/run";
  CallLog log;
  {
    RunEvents first(log, folder, kSession);
    train_two_epochs(first, 1);
    first.set_status(results::Status::failed, "killed");
  }
  EXPECT_EQ(session_end(folder).status(), proto::STATUS_FAILURE);
  {
    RunEvents again(log, folder, kSession);
    train_two_epochs(again, 4);
    again.set_status(results::Status::completed);
  }
  EXPECT_EQ(session_end(folder).status(), proto::STATUS_SUCCESS);
  const auto files = testing::event_files(folder);
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[2], folder + "/" + kSessionEndFile);
  const auto resumed = testing::read_events(files[1]);
  ASSERT_GE(resumed.size(), 3u);
  EXPECT_EQ(resumed[2].session_log().status(), proto::SessionLog::START);
  EXPECT_EQ(resumed[2].step(), 4);
  EXPECT_FALSE(std::filesystem::exists(folder + "/.being-written"));
}

// Killed after its last epoch, before its summary: resumed, it has no step left to train.
TEST(RunEvents, AResumedRunWithNoStepLeftPutsItsFinalMetricsAtItsLastStep) {
  const std::string folder = testing::scratch_folder("nothing_left") + "/run";
  CallLog log;
  {
    RunEvents first(log, folder, kSession);
    train_two_epochs(first, 1);
  }
  {
    RunEvents again(log, folder, kSession);
    again.write_summary({});
  }
  const auto files = testing::event_files(folder);
  ASSERT_EQ(files.size(), 2u);
  const auto events = testing::read_events(files[1]);
  for (const auto& event : events) EXPECT_FALSE(event.has_session_log());
  EXPECT_EQ(scalars_of(events).at(6).count("final/test_accuracy"), 1u);
}

TEST(LastScalarStep, ReadsEachFileUpToItsFirstDamagedRecord) {
  const std::string folder = testing::scratch_folder("last_step");
  EXPECT_EQ(last_scalar_step(folder), 0);
  {
    EventFile whole(folder + "/events.out.tfevents.1.host.0");
    whole.write(scalars_event({{"step/loss", 1}}, 4, 0));
    EventFile damaged(folder + "/events.out.tfevents.2.host.1");
    damaged.write(scalars_event({{"step/loss", 1}}, 7, 0));
    damaged.write(scalars_event({{"step/loss", 1}}, 9, 0));
  }
  // The last record's data CRC no longer matches.
  std::fstream file(folder + "/events.out.tfevents.2.host.1",
                    std::ios::binary | std::ios::in | std::ios::out);
  file.seekp(-5, std::ios::end);
  file.put('\x55');
  file.close();
  EXPECT_EQ(last_scalar_step(folder), 7);
}

TEST(RunEvents, InAFolderThatCannotBeMadeIsADataErrorNamingIt) {
  const std::string scratch = testing::scratch_folder("blocked");
  { std::ofstream(scratch + "/file") << "in the way"; }
  CallLog log;
  const std::string folder = scratch + "/file/run";
  const std::string message =
      runner::testing::message_of<DataError>([&] { RunEvents events(log, folder, kSession); });
  EXPECT_THAT(message, HasSubstr(folder)) << message;
}

}  // namespace
}  // namespace runner::tensorboard
