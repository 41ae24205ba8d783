#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "report/report.hpp"

namespace runner::report {
namespace {

using results::EpochRecord;
using results::RunRecord;
using results::Status;
using results::Summary;

const std::vector<std::string> kTrailingColumns{"status",  "epochs",   "time",    "data wait",
                                                "compute", "peak mem", "test acc"};

// An epoch that waited a tenth of its time for data.
EpochRecord epoch(int64_t number, double duration_s, double peak_bytes, double test_accuracy) {
  EpochRecord record;
  record.epoch = number;
  record.duration_s = duration_s;
  record.data_wait_s = duration_s / 10;
  record.compute_s = duration_s - record.data_wait_s;
  record.peak_memory_bytes = peak_bytes;
  record.test_accuracy = test_accuracy;
  return record;
}

RunRecord completed_run(const std::string& group, const std::string& label) {
  RunRecord run;
  run.group = group;
  run.header.label = label;
  run.status = Status::completed;
  run.epochs = {epoch(1, 10, 1e6, 0.5), epoch(2, 10, 1e6, 0.6)};
  Summary summary;
  summary.total_time_s = 125;
  summary.epochs_completed = 2;
  summary.final_test_accuracy = 0.8731;
  summary.peak_memory_per_rank_bytes = {100 * 1048576.0, 182.4 * 1048576};
  run.summary = summary;
  return run;
}

std::vector<std::string> with_leading(std::vector<std::string> leading) {
  leading.insert(leading.end(), kTrailingColumns.begin(), kTrailingColumns.end());
  return leading;
}

TEST(ComparisonTable, WithoutSweepHasTheFixedColumnsAndPrefersTheSummary) {
  const Table table = comparison_table({completed_run("base", "baseline")});
  EXPECT_EQ(table.columns, with_leading({"run"}));
  ASSERT_EQ(table.rows.size(), 1u);
  EXPECT_EQ(table.rows[0], (std::vector<std::string>{"baseline", "completed", "2", "2 m 05 s",
                                                     "2.0 s", "18.0 s", "182.4 MiB", "87.31%"}));
}

TEST(ComparisonTable, EmptyLabelFallsBackToTheGroupName) {
  const Table table = comparison_table({completed_run("lr=0.1.2", "")});
  EXPECT_EQ(table.rows.at(0).at(0), "lr=0.1.2");
}

TEST(ComparisonTable, SweptKeysAreTheUnionInFirstSeenOrder) {
  RunRecord first = completed_run("a", "a");
  first.header.sweep_point = {{"optimizer.lr", "0.1"}, {"model.hidden", "128"}};
  RunRecord second = completed_run("b", "b");
  second.header.sweep_point = {{"optimizer.lr", "0.01"}, {"data.batch_size", "64"}};

  const Table table = comparison_table({first, second});
  EXPECT_EQ(table.columns,
            with_leading({"run", "optimizer.lr", "model.hidden", "data.batch_size"}));
  EXPECT_EQ(std::vector<std::string>(table.rows[0].begin(), table.rows[0].begin() + 4),
            (std::vector<std::string>{"a", "0.1", "128", ""}));
  EXPECT_EQ(std::vector<std::string>(table.rows[1].begin(), table.rows[1].begin() + 4),
            (std::vector<std::string>{"b", "0.01", "", "64"}));
}

TEST(ComparisonTable, RunWithoutSummaryUsesItsEpochs) {
  RunRecord killed;
  killed.group = "killed";
  killed.status = Status::running;
  killed.epochs = {epoch(1, 20, 3 * 1048576.0, 0.7), epoch(2, 22.5, 2 * 1048576.0, 0.75)};
  const Table table = comparison_table({killed});
  EXPECT_EQ(table.rows.at(0), (std::vector<std::string>{"killed", "running", "2", "42.5 s",
                                                        "4.2 s", "38.2 s", "3.0 MiB", "75.00%"}));
}

TEST(ComparisonTable, FailedAndSkippedRunsGetANoteColumn) {
  RunRecord failed;
  failed.group = "failed";
  failed.status = Status::failed;
  failed.error = "loss is NaN at epoch 2\nstack: ...";
  failed.epochs = {epoch(1, 5, 0, 0.25)};
  RunRecord skipped;
  skipped.group = "skipped";
  skipped.status = Status::skipped;
  skipped.error = "needs 2 GPUs";

  const Table table =
      comparison_table({completed_run("ok", "ok"), failed, skipped});
  EXPECT_EQ(table.columns.back(), "note");
  EXPECT_EQ(table.rows[0].back(), "");
  EXPECT_EQ(table.rows[1],
            (std::vector<std::string>{"failed", "failed", "1", "5.0 s", "0.5 s", "4.5 s", "",
                                      "25.00%", "loss is NaN at epoch 2..."}));
  EXPECT_EQ(table.rows[2], (std::vector<std::string>{"skipped", "skipped", "0", "", "", "", "",
                                                     "", "needs 2 GPUs"}));
}

TEST(ComparisonTable, DamageIsNoted) {
  RunRecord damaged = completed_run("a", "a");
  damaged.status = Status::failed;
  damaged.error = "killed";
  damaged.damage = "cannot read dataset '/a/steps/step': addr overflow";
  const Table table = comparison_table({damaged});
  EXPECT_EQ(table.rows.at(0).back(),
            "killed; damaged: cannot read dataset '/a/steps/step': addr overflow");
}

TEST(ComparisonTable, LanguageModelsAddTheirTestPerplexity) {
  RunRecord classifier = completed_run("c", "c");
  RunRecord language_model = completed_run("lm", "lm");
  language_model.summary->task = "language_modeling";
  language_model.summary->final_test_loss = 2.0;
  const Table table = comparison_table({classifier, language_model});
  EXPECT_EQ(table.columns.back(), "test ppl");
  EXPECT_EQ(table.rows[0].back(), "");
  EXPECT_EQ(table.rows[1].back(), fmt::format("{:.2f}", std::exp(2.0)));
}

TEST(ComparisonTable, MeasuredPhasesAddForwardBackwardAndSavedActivations) {
  RunRecord measured = completed_run("fused", "fused");
  for (auto& e : measured.epochs) {
    e.forward_s = 2.5;
    e.backward_s = 4.0;
    e.activation_memory_bytes = e.epoch * 3 * 1048576.0;  // the table shows the largest
  }
  const Table table = comparison_table({measured, completed_run("old", "old")});
  EXPECT_EQ(table.columns,
            (std::vector<std::string>{"run", "status", "epochs", "time", "data wait", "compute",
                                      "forward", "backward", "saved act", "peak mem",
                                      "test acc"}));
  EXPECT_EQ(table.rows[0][6], "5.0 s");
  EXPECT_EQ(table.rows[0][7], "8.0 s");
  EXPECT_EQ(table.rows[0][8], "6.0 MiB");
  EXPECT_EQ(table.rows[1][6], "");  // a run of a strategy that reports no phases
}

TEST(ComparisonTable, RunsOfSeveralRanksShowTheirCountAndEachRanksPeak) {
  RunRecord two = completed_run("ddp", "ddp");
  two.header.environment["world_size"] = "2";
  RunRecord one = completed_run("single", "single");
  one.header.environment["world_size"] = "1";
  one.summary->peak_memory_per_rank_bytes = {50 * 1048576.0};
  const Table table = comparison_table({two, one});
  EXPECT_EQ(table.columns,
            (std::vector<std::string>{"run", "status", "epochs", "time", "data wait", "compute",
                                      "ranks", "peak mem per rank", "test acc"}));
  EXPECT_EQ(table.rows[0][6], "2");
  EXPECT_EQ(table.rows[0][7], "100.0 MiB / 182.4 MiB");
  EXPECT_EQ(table.rows[1][6], "1");
  EXPECT_EQ(table.rows[1][7], "50.0 MiB");
}

TEST(ComparisonTable, NoRunsGiveTheHeaderOnly) {
  const Table table = comparison_table({});
  EXPECT_EQ(table.columns, with_leading({"run"}));
  EXPECT_TRUE(table.rows.empty());
}

}  // namespace
}  // namespace runner::report
