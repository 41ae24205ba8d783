// run_table: typed columns of runs; every expected number is worked out from the records here.
#include <gtest/gtest.h>

#include <cmath>

#include "report/run_table.hpp"
#include "runner_testing/byte_units.hpp"

namespace runner::report {
namespace {

using results::EpochRecord;
using results::RunRecord;
using results::Status;
using results::StepRecord;
using results::Summary;

using runner::testing::kMiB;

EpochRecord epoch(int64_t number, double duration_s, double samples_per_s, double test_accuracy) {
  EpochRecord record;
  record.epoch = number;
  record.duration_s = duration_s;
  record.data_wait_s = duration_s / 10;
  record.compute_s = duration_s - record.data_wait_s;
  record.samples_per_s = samples_per_s;
  record.peak_memory_bytes = static_cast<double>(number) * kMiB;
  record.test_accuracy = test_accuracy;
  return record;
}

RunRecord completed_run(const std::string& group) {
  RunRecord run;
  run.group = group;
  run.header.run_id = group;
  run.status = Status::completed;
  run.epochs = {epoch(1, 10, 1000, 0.5), epoch(2, 10, 3000, 0.6)};
  run.steps = {StepRecord{1, 2.0, 0.1, 0.25}, StepRecord{2, 1.5, 0.1, 0.75}};
  Summary summary;
  summary.total_time_s = 125;
  summary.epochs_completed = 2;
  summary.final_test_accuracy = 0.8731;
  summary.peak_memory_per_rank_bytes = {100 * kMiB, 182 * kMiB};
  run.summary = summary;
  return run;
}

const Cell& cell(const RunTable& table, size_t row, const std::string& column) {
  const int index = column_index(table, column);
  if (index < 0) throw std::out_of_range("no column " + column);
  return table.rows.at(row).at(static_cast<size_t>(index));
}

double number(const RunTable& table, size_t row, const std::string& column) {
  return std::get<double>(cell(table, row, column));
}

std::vector<std::string> names(const RunTable& table) {
  std::vector<std::string> result;
  for (const Column& column : table.columns) result.push_back(column.name);
  return result;
}

TEST(RunTable, ColumnsCarryTheirUnitsInTheirNames) {
  const RunTable table = run_table({completed_run("a")});
  EXPECT_EQ(names(table),
            (std::vector<std::string>{"run_id", "group", "label", "status", "epochs", "time_s",
                                      "samples_per_s", "step_time_s", "data_wait_s", "compute_s",
                                      "world_size", "peak_memory_bytes", "test_accuracy"}));
}

TEST(RunTable, NumbersArePlainSecondsBytesAndFractions) {
  const RunTable table = run_table({completed_run("a")});
  EXPECT_EQ(std::get<std::string>(cell(table, 0, "run_id")), "a");
  EXPECT_EQ(std::get<std::string>(cell(table, 0, "status")), "completed");
  EXPECT_EQ(std::get<int64_t>(cell(table, 0, "epochs")), 2);
  EXPECT_DOUBLE_EQ(number(table, 0, "time_s"), 125);                    // the summary's
  EXPECT_DOUBLE_EQ(number(table, 0, "samples_per_s"), 2000);            // (1000 + 3000) / 2
  EXPECT_DOUBLE_EQ(number(table, 0, "step_time_s"), 0.5);               // (0.25 + 0.75) / 2
  EXPECT_DOUBLE_EQ(number(table, 0, "data_wait_s"), 2);                 // 1 + 1
  EXPECT_DOUBLE_EQ(number(table, 0, "compute_s"), 18);                  // 9 + 9
  EXPECT_DOUBLE_EQ(number(table, 0, "peak_memory_bytes"), 182 * kMiB);  // the larger rank
  EXPECT_DOUBLE_EQ(number(table, 0, "test_accuracy"), 0.8731);
  EXPECT_EQ(std::get<int64_t>(cell(table, 0, "world_size")), 1);
}

TEST(RunTable, SweptKeysAreTheUnionInFirstSeenOrderAndMarkedSwept) {
  RunRecord first = completed_run("a");
  first.header.sweep_point = {{"optimizer.lr", 0.1}, {"model.hidden", int64_t{128}}};
  RunRecord second = completed_run("b");
  second.header.sweep_point = {{"optimizer.lr", 0.01}, {"train.nesterov", true}};

  const RunTable table = run_table({first, second});
  const std::vector<std::string> all = names(table);
  const std::vector<std::string> leading(all.begin(), all.begin() + 6);
  EXPECT_EQ(leading, (std::vector<std::string>{"run_id", "group", "label", "optimizer.lr",
                                               "model.hidden", "train.nesterov"}));
  EXPECT_TRUE(table.columns[3].swept);
  EXPECT_EQ(table.columns[3].title, "lr");
  EXPECT_FALSE(table.columns[2].swept);
  EXPECT_DOUBLE_EQ(number(table, 1, "optimizer.lr"), 0.01);
  EXPECT_EQ(std::get<int64_t>(cell(table, 0, "model.hidden")), 128);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(cell(table, 1, "model.hidden")));
  EXPECT_EQ(std::get<bool>(cell(table, 1, "train.nesterov")), true);
}

TEST(RunTable, RunWithoutSummaryUsesItsEpochs) {
  RunRecord killed;
  killed.group = "killed";
  killed.status = Status::running;
  killed.epochs = {epoch(1, 20, 100, 0.7), epoch(2, 22.5, 100, 0.75)};
  const RunTable table = run_table({killed});
  EXPECT_DOUBLE_EQ(number(table, 0, "time_s"), 42.5);
  EXPECT_DOUBLE_EQ(number(table, 0, "peak_memory_bytes"), 2 * kMiB);
  EXPECT_DOUBLE_EQ(number(table, 0, "test_accuracy"), 0.75);
  EXPECT_EQ(std::get<int64_t>(cell(table, 0, "epochs")), 2);
  EXPECT_EQ(column_index(table, "step_time_s"), -1) << "no run logged a step";
}

TEST(RunTable, RestartsAndTheirTimeLostAreShownOnlyWhereARunRestarted) {
  EXPECT_EQ(column_index(run_table({completed_run("a")}), "restarts"), -1);
  EXPECT_EQ(column_index(run_table({completed_run("a")}), "time_lost_s"), -1);
  RunRecord restarted = completed_run("b");
  restarted.restarts = {{1, "rank 1 was killed", "", 0, 2.5, ""},
                        {2, "rank 0 was killed", "ck", 4, 1.25, ""}};
  const RunTable table = run_table({completed_run("a"), restarted});
  EXPECT_TRUE(std::holds_alternative<std::monostate>(cell(table, 0, "restarts")));
  EXPECT_EQ(std::get<int64_t>(cell(table, 1, "restarts")), 2);
  EXPECT_EQ(number(table, 1, "time_lost_s"), 3.75);
}

TEST(RunTable, FailedAndSkippedRunsGetANoteAndEmptyNumbers) {
  RunRecord failed;
  failed.group = "failed";
  failed.status = Status::failed;
  failed.error = "loss is NaN at epoch 2\nstack: ...";
  RunRecord skipped;
  skipped.group = "skipped";
  skipped.status = Status::skipped;
  skipped.error = "needs 2 GPUs";

  const RunTable table = run_table({completed_run("ok"), failed, skipped});
  EXPECT_EQ(table.columns.back().name, "note");
  EXPECT_TRUE(std::holds_alternative<std::monostate>(cell(table, 0, "note")));
  EXPECT_EQ(std::get<std::string>(cell(table, 1, "note")), "loss is NaN at epoch 2...");
  EXPECT_EQ(std::get<std::string>(cell(table, 2, "note")), "needs 2 GPUs");
  EXPECT_TRUE(std::holds_alternative<std::monostate>(cell(table, 2, "time_s")));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(cell(table, 2, "test_accuracy")));
}

TEST(RunTable, DamageIsNoted) {
  RunRecord damaged = completed_run("a");
  damaged.status = Status::failed;
  damaged.error = "killed";
  damaged.damage = "cannot read dataset '/a/steps/step': addr overflow";
  EXPECT_EQ(std::get<std::string>(cell(run_table({damaged}), 0, "note")),
            "killed; damaged: cannot read dataset '/a/steps/step': addr overflow");
}

TEST(RunTable, LanguageModelsAddTheirTestPerplexity) {
  RunRecord language_model = completed_run("lm");
  language_model.summary->task = "language_modeling";
  language_model.summary->final_test_loss = 2.0;
  const RunTable table = run_table({completed_run("c"), language_model});
  EXPECT_TRUE(std::holds_alternative<std::monostate>(cell(table, 0, "test_perplexity")));
  EXPECT_DOUBLE_EQ(number(table, 1, "test_perplexity"), std::exp(2.0));
}

TEST(RunTable, MeasuredPhasesAreSummedAndSavedActivationsTheLargest) {
  RunRecord measured = completed_run("fused");
  for (auto& e : measured.epochs) {
    e.forward_s = 2.5;
    e.backward_s = 4.0;
    e.activation_memory_bytes = static_cast<double>(e.epoch * 3) * kMiB;
  }
  const RunTable table = run_table({measured, completed_run("old")});
  EXPECT_DOUBLE_EQ(number(table, 0, "forward_s"), 5.0);
  EXPECT_DOUBLE_EQ(number(table, 0, "backward_s"), 8.0);
  EXPECT_DOUBLE_EQ(number(table, 0, "saved_activation_bytes"), 6 * kMiB);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(cell(table, 1, "forward_s")));
}

TEST(RunTable, GpuUtilisationIsTheMeanOfTheMeasuredEpochsAndGpuMemoryTheLargest) {
  RunRecord gpu = completed_run("gpu");
  gpu.epochs.push_back(epoch(3, 10, 2000, 0.7));  // its readings failed: NaN
  gpu.epochs[0].gpu_utilization = 0.5;
  gpu.epochs[0].gpu_memory_used_bytes = 900 * kMiB;
  gpu.epochs[1].gpu_utilization = 0.9;
  gpu.epochs[1].gpu_memory_used_bytes = 700 * kMiB;
  const RunTable table = run_table({gpu, completed_run("cpu")});
  EXPECT_DOUBLE_EQ(number(table, 0, "gpu_utilization"), (0.5 + 0.9) / 2);
  EXPECT_DOUBLE_EQ(number(table, 0, "gpu_memory_bytes"), 900 * kMiB);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(cell(table, 1, "gpu_utilization")));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(cell(table, 1, "gpu_memory_bytes")));
  EXPECT_EQ(column_index(run_table({completed_run("cpu")}), "gpu_utilization"), -1);
}

TEST(RunTable, CommunicationIsSummedOverTheMeasuredEpochsOfDistributedRunsOnly) {
  RunRecord gloo = completed_run("gloo");
  gloo.header.environment["world_size"] = "2";
  gloo.epochs[0].communication_s = 1.5;
  gloo.epochs[1].communication_s = 2.0;
  RunRecord nccl = gloo;
  nccl.group = "nccl";
  for (auto& e : nccl.epochs) e.communication_s = std::nan("");
  RunRecord one_rank = completed_run("single");
  for (auto& e : one_rank.epochs) e.communication_s = 0;
  const RunTable table = run_table({gloo, nccl, one_rank});
  EXPECT_DOUBLE_EQ(number(table, 0, "communication_s"), 3.5);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(cell(table, 1, "communication_s")));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(cell(table, 2, "communication_s")));
}

// A straggler: the rank that waited least is the one the others waited for.
TEST(RunTable, TheMostARankWaitedAndTheRankOthersWaitedForInMostEpochs) {
  RunRecord run = completed_run("straggler");
  run.header.environment["world_size"] = "3";
  run.epochs.push_back(run.epochs[1]);
  const double most[] = {2.0, 3.0, 0.5}, slowest[] = {2, 0, 2};
  for (size_t e = 0; e < 3; ++e) {
    run.epochs[e].communication_s = 1;
    run.epochs[e].communication_max_s = most[e];
    run.epochs[e].communication_min_s = 0.1;
    run.epochs[e].slowest_rank = slowest[e];
  }
  RunRecord one_rank = completed_run("single");
  const RunTable table = run_table({run, one_rank});
  EXPECT_DOUBLE_EQ(number(table, 0, "communication_max_s"), 5.5);
  EXPECT_EQ(std::get<int64_t>(cell(table, 0, "slowest_rank")), 2);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(cell(table, 1, "slowest_rank")));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(cell(table, 1, "communication_max_s")));
}

TEST(RunTable, GlobalBatchComesFromTheConfigAndIsSplitOverTheDataParallelRanks) {
  RunRecord ddp = completed_run("ddp");
  ddp.header.environment["world_size"] = "4";
  ddp.header.config_toml = "[train]\nbatch_size = 256\n[strategy]\nname = \"ddp\"\n";
  RunRecord pipeline = completed_run("pipeline");
  pipeline.header.environment["world_size"] = "4";
  pipeline.header.config_toml =
      "[train]\nbatch_size = 64\n[strategy]\nname = \"pipeline\"\nstages = 2\n";
  const RunTable table = run_table({ddp, pipeline});
  EXPECT_EQ(std::get<int64_t>(cell(table, 0, "world_size")), 4);
  EXPECT_EQ(std::get<int64_t>(cell(table, 0, "global_batch")), 256);
  EXPECT_EQ(std::get<int64_t>(cell(table, 0, "local_batch")), 256 / 4);
  EXPECT_EQ(std::get<int64_t>(cell(table, 1, "local_batch")), 64 / (4 / 2));  // 2 pipelines
}

TEST(RunTable, NoRunsGiveTheAlwaysPresentColumnsOnly) {
  const RunTable table = run_table({});
  EXPECT_EQ(names(table), (std::vector<std::string>{"run_id", "group", "label", "status", "epochs",
                                                    "world_size"}));
  EXPECT_TRUE(table.rows.empty());
}

}  // namespace
}  // namespace runner::report
