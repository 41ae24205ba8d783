// Writing runs and reading them back: every field, names, order, reopening.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "results/read_runs.hpp"
#include "results/results.hpp"
#include "results_test_support.hpp"
#include "runner/errors.hpp"
#include "runner_testing/error_message.hpp"

using ::testing::HasSubstr;

namespace runner::results {
namespace {

using testing::sample_epoch;
using testing::sample_header;
using testing::sample_step;
using testing::sample_summary;
using testing::ScratchFolder;

TEST(ResultsFile, RoundTripsEveryField) {
  ScratchFolder folder;
  const std::string path = folder.file("experiment.h5");
  RunHeader header = sample_header("lr=0.1");
  header.config_toml += std::string(20000, '#') + "\n";  // longer than an attribute holds well
  {
    auto file = ResultsFile::open(path);
    auto run = file->begin_run(header);
    run->append_epoch(sample_epoch(1));
    run->append_steps({sample_step(1), sample_step(2), sample_step(3)});
    run->append_epoch(sample_epoch(2));
    run->append_steps({sample_step(4), sample_step(5)});
    run->write_summary(sample_summary());
    run->set_status(Status::completed);
  }

  const std::vector<RunRecord> runs = read_runs(path);
  ASSERT_EQ(runs.size(), 1u);
  const RunRecord& run = runs[0];
  EXPECT_EQ(run.group, "lr=0.1");
  EXPECT_EQ(run.header.run_id, header.run_id);
  EXPECT_EQ(run.header.label, header.label);
  EXPECT_EQ(run.header.experiment, header.experiment);
  EXPECT_EQ(run.header.config_toml, header.config_toml);
  EXPECT_EQ(run.header.sweep_point, header.sweep_point);  // declared order, not sorted
  EXPECT_EQ(run.header.environment, header.environment);
  EXPECT_EQ(run.header.started_at, header.started_at);
  EXPECT_EQ(run.status, Status::completed);
  EXPECT_EQ(run.error, "");
  EXPECT_TRUE(std::regex_match(run.finished_at, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")))
      << run.finished_at;

  ASSERT_EQ(run.epochs.size(), 2u);
  testing::expect_same_epoch(run.epochs[0], sample_epoch(1));
  testing::expect_same_epoch(run.epochs[1], sample_epoch(2));
  ASSERT_EQ(run.steps.size(), 5u);
  for (int64_t step = 1; step <= 5; ++step) {
    const StepRecord& read = run.steps[static_cast<size_t>(step - 1)];
    const StepRecord expected = sample_step(step);
    EXPECT_EQ(read.step, expected.step);
    EXPECT_EQ(read.loss, expected.loss);
    EXPECT_EQ(read.learning_rate, expected.learning_rate);
    EXPECT_EQ(read.duration_s, expected.duration_s);
  }

  ASSERT_TRUE(run.summary.has_value());
  const Summary expected = sample_summary();
  EXPECT_EQ(run.summary->total_time_s, expected.total_time_s);
  EXPECT_EQ(run.summary->epochs_completed, expected.epochs_completed);
  EXPECT_EQ(run.summary->final_train_loss, expected.final_train_loss);
  EXPECT_EQ(run.summary->final_test_loss, expected.final_test_loss);
  EXPECT_EQ(run.summary->final_test_accuracy, expected.final_test_accuracy);
  EXPECT_EQ(run.summary->class_names, expected.class_names);
  EXPECT_EQ(run.summary->per_class_accuracy, expected.per_class_accuracy);
  EXPECT_EQ(run.summary->peak_memory_per_rank_bytes, expected.peak_memory_per_rank_bytes);
  EXPECT_EQ(run.summary->estimated_memory_per_rank_bytes, expected.estimated_memory_per_rank_bytes);
  EXPECT_EQ(run.summary->tensor_peak_per_rank_bytes, expected.tensor_peak_per_rank_bytes);
  EXPECT_EQ(run.summary->state_memory_per_rank_bytes, expected.state_memory_per_rank_bytes);
  EXPECT_EQ(run.summary->parameters, expected.parameters);
  EXPECT_EQ(run.summary->flops_per_sample, expected.flops_per_sample);
  EXPECT_EQ(run.summary->tflops, expected.tflops);
  EXPECT_EQ(run.summary->mfu, expected.mfu);
}

TEST(ResultsFile, NewRunIsRunningWithEmptySeriesAndNoSummary) {
  ScratchFolder folder;
  const std::string path = folder.file("new.h5");
  ResultsFile::open(path)->begin_run(sample_header("a"));

  const std::vector<RunRecord> runs = read_runs(path);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, Status::running);
  EXPECT_EQ(runs[0].finished_at, "");
  EXPECT_TRUE(runs[0].epochs.empty());
  EXPECT_TRUE(runs[0].steps.empty());
  EXPECT_FALSE(runs[0].summary.has_value());
}

TEST(ResultsFile, EmptyListsInTheSummaryRoundTrip) {
  ScratchFolder folder;
  const std::string path = folder.file("empty-lists.h5");
  Summary summary;
  summary.total_time_s = 1;
  ResultsFile::open(path)->begin_run(sample_header("a"))->write_summary(summary);

  const std::vector<RunRecord> runs = read_runs(path);
  ASSERT_TRUE(runs.at(0).summary.has_value());
  EXPECT_TRUE(runs[0].summary->class_names.empty());
  EXPECT_TRUE(runs[0].summary->per_class_accuracy.empty());
  EXPECT_TRUE(runs[0].summary->peak_memory_per_rank_bytes.empty());
  EXPECT_EQ(runs[0].summary->total_time_s, 1);
}

TEST(ResultsFile, FailedRunKeepsItsError) {
  ScratchFolder folder;
  const std::string path = folder.file("failed.h5");
  {
    auto run = ResultsFile::open(path)->begin_run(sample_header("a"));
    run->append_epoch(sample_epoch(1));
    run->set_status(Status::failed, "loss is NaN at step 17\nlast batch: 3");
  }
  const std::vector<RunRecord> runs = read_runs(path);
  EXPECT_EQ(runs.at(0).status, Status::failed);
  EXPECT_EQ(runs[0].error, "loss is NaN at step 17\nlast batch: 3");
  EXPECT_FALSE(runs[0].finished_at.empty());
  EXPECT_EQ(runs[0].epochs.size(), 1u);
}

TEST(ResultsFile, TakenRunIdGetsANumberedGroup) {
  ScratchFolder folder;
  const std::string path = folder.file("collide.h5");
  auto file = ResultsFile::open(path);
  EXPECT_EQ(file->begin_run(sample_header("base"))->group_name(), "base");
  EXPECT_EQ(file->begin_run(sample_header("base"))->group_name(), "base.2");
  EXPECT_EQ(file->begin_run(sample_header("base"))->group_name(), "base.3");
  file.reset();

  const std::vector<RunRecord> runs = read_runs(path);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[1].group, "base.2");
  EXPECT_EQ(runs[2].group, "base.3");
  for (const RunRecord& run : runs) EXPECT_EQ(run.header.run_id, "base");
}

TEST(ResultsFile, SlashInRunIdDoesNotNestGroups) {
  ScratchFolder folder;
  const std::string path = folder.file("slash.h5");
  EXPECT_EQ(ResultsFile::open(path)->begin_run(sample_header("a/b"))->group_name(), "a_b");
  EXPECT_EQ(read_runs(path).at(0).header.run_id, "a/b");
}

TEST(ResultsFile, RunsAreReadInCreationOrder) {
  ScratchFolder folder;
  const std::string path = folder.file("order.h5");
  auto file = ResultsFile::open(path);
  for (const char* id : {"zeta", "alpha", "mid", "alpha"}) file->begin_run(sample_header(id));
  file.reset();

  std::vector<std::string> groups;
  for (const RunRecord& run : read_runs(path)) groups.push_back(run.group);
  EXPECT_EQ(groups, (std::vector<std::string>{"zeta", "alpha", "mid", "alpha.2"}));
}

TEST(ResultsFile, ReopeningAppendsRunsAndKeepsTheOldOnes) {
  ScratchFolder folder;
  const std::string path = folder.file("reopen.h5");
  {
    auto run = ResultsFile::open(path)->begin_run(sample_header("a"));
    run->append_epoch(sample_epoch(1));
    run->set_status(Status::completed);
  }
  {
    auto run = ResultsFile::open(path)->begin_run(sample_header("a"));
    run->append_epoch(sample_epoch(7));
  }
  const std::vector<RunRecord> runs = read_runs(path);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].group, "a");
  EXPECT_EQ(runs[0].status, Status::completed);
  ASSERT_EQ(runs[0].epochs.size(), 1u);
  testing::expect_same_epoch(runs[0].epochs[0], sample_epoch(1));
  EXPECT_EQ(runs[1].group, "a.2");
  EXPECT_EQ(runs[1].status, Status::running);
  ASSERT_EQ(runs[1].epochs.size(), 1u);
  testing::expect_same_epoch(runs[1].epochs[0], sample_epoch(7));
}

TEST(ResultsFile, CreatesMissingParentFolders) {
  ScratchFolder folder;
  const std::string path = folder.file("results/nested/deeper/run.h5");
  ResultsFile::open(path)->begin_run(sample_header("a"));
  EXPECT_EQ(read_runs(path).size(), 1u);
}

TEST(ResultsFile, WriterOutlivesTheResultsFileObject) {
  ScratchFolder folder;
  const std::string path = folder.file("outlive.h5");
  std::unique_ptr<RunWriter> run = ResultsFile::open(path)->begin_run(sample_header("a"));
  run->append_epoch(sample_epoch(1));
  run->set_status(Status::completed);
  run.reset();
  EXPECT_EQ(read_runs(path).at(0).epochs.size(), 1u);
}

TEST(ResultsFile, ReadersSeeEveryFlushedEpochWhileTheWriterIsOpen) {
  ScratchFolder folder;
  const std::string path = folder.file("live.h5");
  auto file = ResultsFile::open(path);
  auto run = file->begin_run(sample_header("a"));
  run->append_epoch(sample_epoch(1));
  run->append_epoch(sample_epoch(2));
  EXPECT_EQ(read_runs(path).at(0).epochs.size(), 2u);
}

// Superblock version 0 has no "open for writing" flag that a killed writer would leave set.
TEST(ResultsFile, UsesTheEarliestSuperblockVersion) {
  ScratchFolder folder;
  const std::string path = folder.file("superblock.h5");
  ResultsFile::open(path)->begin_run(sample_header("a"));
  std::ifstream in(path, std::ios::binary);
  char start[9] = {};
  in.read(start, sizeof start);
  EXPECT_EQ(std::string(start, 8), "\x89HDF\r\n\x1a\n");
  EXPECT_EQ(start[8], 0) << "superblock version";
}

TEST(ResultsFile, WritingASecondSummaryIsABug) {
  ScratchFolder folder;
  const std::string path = folder.file("twice.h5");
  auto run = ResultsFile::open(path)->begin_run(sample_header("a"));
  run->write_summary(sample_summary());
  const std::string message =
      runner::testing::message_of<RunError>([&] { run->write_summary(sample_summary()); });
  EXPECT_THAT(message, HasSubstr("the summary of run " + run->group_name() + " is written twice"))
      << message;
}

// A run killed after its summary, before its final status, goes on from a checkpoint: what
// it recorded after the checkpoint is cut, its summary too, and it records them again.
TEST(ResultsFile, ARunThatGoesOnFromACheckpointRecordsItsRestOnce) {
  ScratchFolder dir;
  const std::string path = dir.file("r.h5");
  std::string group;
  {
    auto run = ResultsFile::open(path)->begin_run(sample_header("r1"));
    group = run->group_name();
    for (int64_t e = 1; e <= 3; ++e) run->append_epoch(sample_epoch(e));
    run->append_steps({sample_step(1), sample_step(2), sample_step(3), sample_step(4)});
    run->write_summary(sample_summary());
  }
  auto run = ResultsFile::open(path)->resume_run(group);
  run->resume_from("ck/step-000000002", 1, 2);
  RunRecord cut = read_runs(path).at(0);
  EXPECT_EQ(cut.status, Status::running);
  EXPECT_EQ(cut.resumed_from, "ck/step-000000002");
  ASSERT_EQ(cut.epochs.size(), 1u);
  EXPECT_EQ(cut.steps.size(), 2u);
  EXPECT_FALSE(cut.summary.has_value());
  for (int64_t e = 2; e <= 3; ++e) run->append_epoch(sample_epoch(e));
  run->append_steps({sample_step(3), sample_step(4)});
  run->write_summary(sample_summary());
  run->set_status(Status::completed);
  RunRecord again = read_runs(path).at(0);
  EXPECT_EQ(again.status, Status::completed);
  ASSERT_EQ(again.epochs.size(), 3u);
  EXPECT_EQ(again.epochs[2].epoch, 3);
  ASSERT_EQ(again.steps.size(), 4u);
  EXPECT_EQ(again.steps[3].step, 4);
  EXPECT_TRUE(again.summary.has_value());
}

TEST(ResultsFile, EachRestartIsKeptInOrderBesideTheRun) {
  ScratchFolder dir;
  const std::string path = dir.file("r.h5");
  auto run = ResultsFile::open(path)->begin_run(sample_header("r1"));
  EXPECT_TRUE(read_runs(path).at(0).restarts.empty());
  // Restarts 2 and 10: their groups' names sort as text the other way round.
  RestartRecord first{
      2, "rank 1 was killed by signal 9 (SIGKILL)", "", 0, 12.5, "2026-01-02T03:04:05Z"};
  RestartRecord second{10,
                       "rank 0 failed: all_reduce #9 of world failed",
                       "ck/step-000000008",
                       8,
                       3.25,
                       "2026-01-02T03:09:00Z"};
  run->record_restart(first);
  run->record_restart(second);
  const auto restarts = read_runs(path).at(0).restarts;
  ASSERT_EQ(restarts.size(), 2u);
  for (const auto& [read, written] :
       {std::pair{restarts[0], first}, std::pair{restarts[1], second}}) {
    EXPECT_EQ(read.attempt, written.attempt);
    EXPECT_EQ(read.cause, written.cause);
    EXPECT_EQ(read.resumed_from, written.resumed_from);
    EXPECT_EQ(read.resumed_step, written.resumed_step);
    EXPECT_EQ(read.time_lost_s, written.time_lost_s);
    EXPECT_EQ(read.failed_at, written.failed_at);
  }
}

TEST(ResultsFile, EachHangReportIsKeptByItsAttempt) {
  ScratchFolder dir;
  const std::string path = dir.file("r.h5");
  auto run = ResultsFile::open(path)->begin_run(sample_header("r1"));
  EXPECT_TRUE(read_runs(path).at(0).hang_reports.empty());
  const HangReportRecord second{1,
                                "rank 1 has been in data loading of step 5 for 61 s",
                                {"rank 0: in backward of step 5", "rank 1: in data loading"}};
  const HangReportRecord first{0, "rank 1 was killed by signal 9 (SIGKILL)", {"rank 0: a"}};
  run->record_hang_report(second);
  run->record_hang_report(first);
  const auto reports = read_runs(path).at(0).hang_reports;
  ASSERT_EQ(reports.size(), 2u);
  for (const auto& [read, written] :
       {std::pair{reports[0], first}, std::pair{reports[1], second}}) {
    EXPECT_EQ(read.attempt, written.attempt);
    EXPECT_EQ(read.first_line, written.first_line);
    EXPECT_EQ(read.ranks, written.ranks);
  }
}

TEST(ResultsStatus, NamesRoundTripAndUnknownNamesAreDataErrors) {
  for (Status status : {Status::running, Status::completed, Status::failed, Status::skipped})
    EXPECT_EQ(status_from_name(status_name(status)), status);
  EXPECT_STREQ(status_name(Status::skipped), "skipped");
  const std::string message =
      runner::testing::message_of<DataError>([] { status_from_name("finished"); });
  EXPECT_THAT(message, HasSubstr("unknown run status 'finished'")) << message;
}

}  // namespace
}  // namespace runner::results
