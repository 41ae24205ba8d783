// terminal_table and select_columns: which columns a terminal gets, and how they read.
#include "report/terminal_table.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "report/print_table.hpp"
#include "report/run_values.hpp"
#include "runner/errors.hpp"
#include "runner_testing/byte_units.hpp"

using ::testing::HasSubstr;

namespace runner::report {
namespace {

using results::RunRecord;

using runner::testing::kMiB;

RunRecord run_of(const std::string& group, int64_t batch, int64_t world_size) {
  RunRecord run;
  run.group = group;
  run.header.run_id = group;
  run.header.label = "train.batch_size=" + std::to_string(batch);
  run.header.sweep_point = {{"train.batch_size", batch}};
  run.header.environment["world_size"] = std::to_string(world_size);
  run.header.config_toml = "[train]\nbatch_size = " + std::to_string(batch) + "\n";
  run.status = results::Status::completed;
  results::EpochRecord epoch;
  epoch.epoch = 1;
  epoch.duration_s = 4.5;
  epoch.data_wait_s = 0.5;
  epoch.compute_s = 4;
  epoch.samples_per_s = 28462.4;
  epoch.peak_memory_bytes = 307.1 * kMiB;
  epoch.test_accuracy = 0.8644;
  run.epochs = {epoch};
  run.steps = {results::StepRecord{1, 1.0, 0.1, 0.0042}};
  results::Summary summary;
  summary.total_time_s = 4.5;
  summary.epochs_completed = 1;
  summary.final_test_accuracy = 0.8644;
  summary.peak_memory_per_rank_bytes = std::vector<double>(world_size, 307.1 * kMiB);
  summary.estimated_memory_per_rank_bytes = std::vector<double>(world_size, 43.9 * kMiB);
  summary.tensor_peak_per_rank_bytes = std::vector<double>(world_size, 69.8 * kMiB);
  summary.state_memory_per_rank_bytes = std::vector<double>(world_size, 0.9 * kMiB);
  summary.tflops = 0.072;
  run.summary = summary;
  return run;
}

size_t widest_line(const Table& table) {
  std::ostringstream out;
  print_table(table, out);
  std::istringstream lines(out.str());
  size_t widest = 0;
  for (std::string line; std::getline(lines, line);) widest = std::max(widest, line.size());
  return widest;
}

TEST(TerminalTable, SweptKeysAreColumnsOfTheirOwnAndTheRunIsNamedByItsGroup) {
  const Table table = comparison_table({run_of("a1", 32, 1), run_of("b2", 64, 1)});
  EXPECT_EQ(table.columns.at(0), "run");
  EXPECT_EQ(table.columns.at(1), "batch_size") << "the key's last part";
  EXPECT_EQ(table.rows.at(0).at(0), "a1");
  EXPECT_EQ(table.rows.at(1).at(1), "64");
}

TEST(TerminalTable, ThroughputAndStepTimeAreAlwaysShownAndFormatted) {
  const Table table = terminal_table(run_table({run_of("a", 32, 1)}), {}, 40);
  const auto at = [&](const std::string& title) {
    const auto it = std::find(table.columns.begin(), table.columns.end(), title);
    EXPECT_NE(it, table.columns.end()) << title;
    return table.rows.at(0).at(static_cast<size_t>(it - table.columns.begin()));
  };
  EXPECT_EQ(at("samples/s"), "28462");
  EXPECT_EQ(at("step time"), "4.2 ms");
  EXPECT_EQ(at("time"), "4.5 s");
  EXPECT_EQ(at("test acc"), "86.44%");
  EXPECT_EQ(std::count(table.columns.begin(), table.columns.end(), "peak mem"), 0)
      << "an optional column over the width";
}

// A large model on CPUs trains a sample every few seconds: its rate keeps three digits.
TEST(TerminalTable, AThroughputUnderOneSamplePerSecondKeepsItsDigits) {
  RunRecord slow = run_of("a", 32, 1);
  slow.epochs.at(0).samples_per_s = 0.18929;
  const Table table = terminal_table(run_table({slow}), {}, 40);
  const auto it = std::find(table.columns.begin(), table.columns.end(), "samples/s");
  ASSERT_NE(it, table.columns.end());
  EXPECT_EQ(table.rows.at(0).at(static_cast<size_t>(it - table.columns.begin())), "0.189");
}

TEST(TerminalTable, FitsTheWidthWithOptionalColumnsAddedWhileTheyFit) {
  const RunTable runs = run_table({run_of("e1e58ffe92ed", 32, 1), run_of("0f3b2c1d9a8e", 64, 1)});
  const Table table = terminal_table(runs);
  EXPECT_LE(widest_line(table), kTerminalWidth);
  EXPECT_NE(std::find(table.columns.begin(), table.columns.end(), "peak mem"), table.columns.end());
  EXPECT_LT(table.columns.size(), runs.columns.size()) << "some optional column left out";
}

TEST(TerminalTable, AGpuRunShowsItsUtilisationAsAPercentAndItsGpuMemory) {
  RunRecord gpu = run_of("a", 32, 1);
  gpu.epochs.at(0).gpu_utilization = 0.873;
  gpu.epochs.at(0).gpu_memory_used_bytes = 1536 * kMiB;
  const Table table = terminal_table(run_table({gpu}));
  const auto at = [&](const std::string& title) {
    const auto it = std::find(table.columns.begin(), table.columns.end(), title);
    EXPECT_NE(it, table.columns.end()) << title;
    return it == table.columns.end() ? std::string()
                                     : table.rows.at(0).at(it - table.columns.begin());
  };
  EXPECT_EQ(at("GPU util"), "87.30%");
  EXPECT_EQ(at("GPU mem"), "1536.0 MiB");
}

TEST(TerminalTable, DistributedRunsShowRanksTheLocalBatchBesideTheGlobalOneAndCommunication) {
  RunRecord ddp = run_of("ddp", 256, 2);
  ddp.epochs.at(0).communication_s = 0.25;
  const Table table = comparison_table({ddp, run_of("single", 64, 1)});
  const auto column = [&](const std::string& title) {
    return static_cast<size_t>(std::find(table.columns.begin(), table.columns.end(), title) -
                               table.columns.begin());
  };
  ASSERT_LT(column("local batch"), table.columns.size());
  EXPECT_EQ(column("global batch"), table.columns.size()) << "the swept batch_size is it";
  EXPECT_EQ(table.rows[0][column("ranks")], "2");
  EXPECT_EQ(table.rows[0][column("local batch")], "128");
  EXPECT_EQ(table.rows[0][column("batch_size")], "256");
  EXPECT_EQ(table.rows[1][column("local batch")], "64");
  ASSERT_LT(column("comm"), table.columns.size());
  EXPECT_EQ(table.rows[0][column("comm")], "250 ms");
  EXPECT_EQ(table.rows[1][column("comm")], "");
  EXPECT_LE(widest_line(table), kTerminalWidth);

  // Swept over another key, the global batch has a column of its own.
  RunRecord other = ddp;
  other.header.sweep_point = {{"optimizer.lr", 0.1}};
  const Table by_lr = comparison_table({other});
  const auto global = std::find(by_lr.columns.begin(), by_lr.columns.end(), "global batch");
  ASSERT_NE(global, by_lr.columns.end());
  EXPECT_EQ(by_lr.rows[0][static_cast<size_t>(global - by_lr.columns.begin())], "256");
}

TEST(TerminalTable, NumbersAreRightAlignedAndARunIdOfDigitsIsText) {
  RunRecord run = run_of("798a781f0259", 32, 1);
  const Table table = formatted(select_columns(run_table({run, run_of("123456789012", 64, 1)}),
                                               {"group", "train.batch_size", "status", "time_s"}));
  EXPECT_EQ(table.right_aligned, (std::vector<bool>{false, true, false, true}));
}

TEST(TerminalTable, SweptKeysEndingAlikeKeepTheirWholeName) {
  RunRecord run = run_of("a", 32, 1);
  run.header.sweep_point = {
      {"optimizer.lr", 0.1}, {"schedule.lr", 0.2}, {"model.depth", int64_t{2}}};
  const Table table = comparison_table({run});
  EXPECT_EQ(std::vector<std::string>(table.columns.begin() + 1, table.columns.begin() + 4),
            (std::vector<std::string>{"optimizer.lr", "schedule.lr", "depth"}));
}

TEST(TerminalTable, StatusIsShownWhenARunDidNotComplete) {
  RunRecord failed = run_of("b", 64, 1);
  failed.status = results::Status::failed;
  const Table narrow = terminal_table(run_table({run_of("a", 32, 1), failed}), {}, 40);
  EXPECT_NE(std::find(narrow.columns.begin(), narrow.columns.end(), "status"),
            narrow.columns.end());
  const Table completed = terminal_table(run_table({run_of("a", 32, 1)}), {}, 40);
  EXPECT_EQ(std::find(completed.columns.begin(), completed.columns.end(), "status"),
            completed.columns.end())
      << "every run completed: an optional column over the width";
}

// Skipped and failed runs: their note is "(1)" in the row and its text once below the table,
// so a sweep whose half is skipped for one long reason stays within the width.
TEST(TerminalTable, NotesAreNumberedBelowTheRowsEachOnce) {
  const std::string nccl = "backend nccl needs LibTorch built with CUDA; this one is CPU-only";
  std::vector<RunRecord> runs;
  for (int64_t batch : {32, 64, 128, 256}) {
    RunRecord run = run_of("r" + std::to_string(batch), batch, 2);
    if (batch == 32 || batch == 128) {
      run.status = results::Status::skipped;
      run.error = nccl;
      run.epochs.clear();
      run.steps.clear();
      run.summary.reset();
    }
    runs.push_back(run);
  }
  runs[1].status = results::Status::failed;
  runs[1].error = "loss is NaN at epoch 1";
  const Table table = terminal_table(run_table(runs));
  const auto note = std::find(table.columns.begin(), table.columns.end(), "note");
  ASSERT_NE(note, table.columns.end());
  const auto column = static_cast<size_t>(note - table.columns.begin());
  EXPECT_EQ(table.rows[0][column], "(1)");
  EXPECT_EQ(table.rows[1][column], "(2)");
  EXPECT_EQ(table.rows[2][column], "(1)");
  EXPECT_EQ(table.rows[3][column], "");
  EXPECT_EQ(table.notes, (std::vector<std::string>{nccl, "loss is NaN at epoch 1"}));
  EXPECT_LE(widest_line(table), kTerminalWidth);
  std::ostringstream out;
  print_table(table, out);
  EXPECT_THAT(out.str(), HasSubstr("\n(1) " + nccl + "\n(2) loss is NaN at epoch 1\n"))
      << out.str();
}

TEST(TerminalTable, TheStudysColumnsAreShownWhateverTheWidth) {
  const Table table =
      terminal_table(run_table({run_of("a", 32, 1)}), {"tflops", "state_memory_bytes"}, 40);
  EXPECT_NE(std::find(table.columns.begin(), table.columns.end(), "TFLOPS"), table.columns.end());
  EXPECT_NE(std::find(table.columns.begin(), table.columns.end(), "state mem"),
            table.columns.end());
}

TEST(TerminalTable, TheStudysColumnsComeFromTheExperimentTableKeyOfTheConfig) {
  RunRecord run = run_of("a", 32, 1);
  run.header.config_toml = "[experiment]\ntable = [\"forward_s\", \"tflops\"]\n";
  EXPECT_EQ(study_columns({run_of("b", 32, 1), run}),
            (std::vector<std::string>{"forward_s", "tflops"}));
  EXPECT_TRUE(study_columns({run_of("b", 32, 1)}).empty());
}

TEST(SelectColumns, KeepsTheNamedColumnsInTheGivenOrder) {
  const RunTable selected =
      select_columns(run_table({run_of("a", 32, 1)}), {"test_accuracy", "run_id", "time_s"});
  ASSERT_EQ(selected.columns.size(), 3u);
  EXPECT_EQ(selected.columns[0].name, "test_accuracy");
  EXPECT_EQ(std::get<std::string>(selected.rows[0][1]), "a");
  EXPECT_DOUBLE_EQ(std::get<double>(selected.rows[0][2]), 4.5);
  const Table shown = formatted(selected);
  EXPECT_EQ(shown.columns, (std::vector<std::string>{"test acc", "run id", "time"}));
  EXPECT_EQ(shown.rows[0], (std::vector<std::string>{"86.44%", "a", "4.5 s"}));
}

TEST(SelectColumns, AnUnknownColumnIsAConfigErrorNamingItAndTheKnownOnes) {
  try {
    select_columns(run_table({run_of("a", 32, 1)}), {"time_s", "speed"});
    FAIL() << "no error";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()), "no column 'speed' in these results");
    EXPECT_THAT(error.hint(), HasSubstr("samples_per_s")) << error.hint();
  }
}

}  // namespace
}  // namespace runner::report
