// page_data: the JSON of page_data.md: the table of `runner report --csv` with one row per run,
// NaN and infinity as null, sweep values of their TOML types, roles and points, decimated steps.
#include "report/html/page_data.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "html_test_runs.hpp"
#include "report/run_table.hpp"
#include "results/record_layout.hpp"

namespace runner::report::html {
namespace {

using nlohmann::json;
using results::RunRecord;
using results::Status;
using testing::test_run;

const PageSource kSource{"r.h5", "2025-01-15T09:00:00Z", false};

std::vector<RunRecord> backend_sweep() {
  return {test_run("gloo-32", Status::completed, 10,
                   {{"strategy.backend", std::string("gloo")}, {"data.batch_size", int64_t{32}}}),
          test_run("gloo-64", Status::failed, 4,
                   {{"strategy.backend", std::string("gloo")}, {"data.batch_size", int64_t{64}}}),
          test_run("nccl-32", Status::completed, 10,
                   {{"strategy.backend", std::string("nccl")}, {"data.batch_size", int64_t{32}}})};
}

TEST(PageData, HoldsTheFormatTheSourceAndOneTableRowPerRun) {
  const std::vector<RunRecord> runs = backend_sweep();
  const json data = page_data(runs, kSource);
  EXPECT_EQ(data["format"], "runner-report-page");
  EXPECT_EQ(data["version"], 2);
  EXPECT_EQ(data["plans"], json::array()) << "no run of the sweep is a plan's trial";
  EXPECT_EQ(data["generator"].get<std::string>().rfind("runner ", 0), 0u);
  EXPECT_EQ(
      data["source"],
      (json{{"file", "r.h5"}, {"written_at", "2025-01-15T09:00:00Z"}, {"writer_alive", false}}));
  const RunTable table = run_table(runs);
  ASSERT_EQ(data["table"]["columns"].size(), table.columns.size());
  for (size_t i = 0; i < table.columns.size(); ++i)
    EXPECT_EQ(data["table"]["columns"][i]["name"], table.columns[i].name);
  EXPECT_EQ(data["table"]["columns"][0],
            (json{{"name", "run_id"}, {"title", "run id"}, {"unit", "text"}, {"swept", false}}));
  ASSERT_EQ(data["table"]["rows"].size(), runs.size());
  ASSERT_EQ(data["runs"].size(), runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(data["table"]["rows"][i].size(), table.columns.size());
    EXPECT_EQ(data["table"]["rows"][i][0], runs[i].header.run_id);
    EXPECT_EQ(data["runs"][i]["run_id"], runs[i].header.run_id);
  }
}

TEST(PageData, WritesNaNAndInfinityAsNull) {
  RunRecord run = test_run("r", Status::completed, 2);
  results::EpochRecord epoch;
  epoch.epoch = 1;
  epoch.train_loss = std::numeric_limits<double>::infinity();
  run.epochs = {epoch};  // communication_s and the GPU's numbers are NaN: not measured
  run.steps[1].loss = std::numeric_limits<double>::quiet_NaN();
  results::Summary summary;
  summary.tflops = std::numeric_limits<double>::quiet_NaN();
  summary.per_class_accuracy = {0.5, -std::numeric_limits<double>::infinity()};
  run.summary = summary;
  const json data = page_data({run}, kSource);
  const json& written = data["runs"][0];
  EXPECT_TRUE(written["epochs"]["train_loss"][0].is_null());
  EXPECT_TRUE(written["epochs"]["communication_s"][0].is_null());
  EXPECT_TRUE(written["epochs"]["gpu_utilization"][0].is_null());
  EXPECT_EQ(written["epochs"]["test_loss"][0], 0.0);
  EXPECT_TRUE(written["steps"]["loss"][1].is_null());
  EXPECT_TRUE(written["summary"]["tflops"].is_null());
  EXPECT_EQ(written["summary"]["per_class_accuracy"], json::parse("[0.5, null]"));
  EXPECT_EQ(data.dump().find("NaN"), std::string::npos);
}

// A chart shows no more than 5 significant digits; the table keeps the file's number whole.
TEST(PageData, SeriesNumbersAreRoundedToFiveSignificantDigitsAndTableCellsAreNot) {
  RunRecord run = test_run("r", Status::completed, 2);
  results::EpochRecord epoch;
  epoch.epoch = 1;
  epoch.test_accuracy = 2.0 / 3.0;
  epoch.peak_memory_bytes = 123456789;
  run.epochs = {epoch};
  run.steps[0].loss = 1.0 / 7.0;
  const json data = page_data({run}, kSource);
  const json& written = data["runs"][0];
  EXPECT_EQ(written["epochs"]["test_accuracy"][0], 0.66667);
  EXPECT_EQ(written["epochs"]["peak_memory_bytes"][0], 123460000.0);
  EXPECT_EQ(written["steps"]["loss"][0], 0.14286);
  const json& columns = data["table"]["columns"];
  size_t accuracy = columns.size();
  for (size_t c = 0; c < columns.size(); ++c)
    if (columns[c]["name"] == "test_accuracy") accuracy = c;
  ASSERT_LT(accuracy, columns.size());
  EXPECT_EQ(data["table"]["rows"][0][accuracy], 2.0 / 3.0);
}

TEST(PageData, SweepValuesKeepTheirTomlTypes) {
  const RunRecord run = test_run("r", Status::completed, 1,
                                 {{"optimizer.lr", 0.1},
                                  {"train.batch_size", int64_t{64}},
                                  {"optimizer.nesterov", true},
                                  {"model.hidden", std::string("[128, 64]")}});
  const json data = page_data({run}, kSource);
  EXPECT_EQ(data["sweep_keys"],
            (json{"optimizer.lr", "train.batch_size", "optimizer.nesterov", "model.hidden"}));
  for (const json& values : {data["runs"][0]["sweep_point"], data["points"][0]["values"]}) {
    EXPECT_TRUE(values["optimizer.lr"].is_number_float());
    EXPECT_TRUE(values["train.batch_size"].is_number_integer());
    EXPECT_TRUE(values["optimizer.nesterov"].is_boolean());
    EXPECT_EQ(values["model.hidden"], "[128, 64]");
  }
  const json& row = data["table"]["rows"][0];
  const int batch_size = column_index(run_table({run}), "train.batch_size");
  ASSERT_GE(batch_size, 0);
  EXPECT_EQ(row[batch_size], 64);
}

TEST(PageData, GivesEachRunItsRoleAndEachPointItsLabelResultAndStatus) {
  const json data = page_data(backend_sweep(), kSource);
  EXPECT_EQ(data["runs"][0]["role"], "result");
  EXPECT_EQ(data["runs"][1]["role"], "failed");
  EXPECT_EQ(data["runs"][2]["point"], 2);
  EXPECT_EQ(data["points"][0],
            (json{{"label", "backend=gloo, batch_size=32"},
                  {"values", {{"strategy.backend", "gloo"}, {"data.batch_size", 32}}},
                  {"result", 0},
                  {"status", "completed"}}));
  EXPECT_TRUE(data["points"][1]["result"].is_null());
  EXPECT_EQ(data["points"][1]["status"], "failed");
}

TEST(PageData, TheTitleIsTheExperimentsElseTheFileName) {
  EXPECT_EQ(page_data(backend_sweep(), kSource)["title"], "study");
  RunRecord other = test_run("o", Status::completed, 0, {}, "other");
  EXPECT_EQ(page_data({backend_sweep()[0], other}, kSource)["title"], "study, other");
  const json empty = page_data({}, kSource);
  EXPECT_EQ(empty["title"], "r.h5");
  EXPECT_EQ(empty["runs"], json::array());
  EXPECT_EQ(empty["points"], json::array());
  EXPECT_EQ(empty["table"]["rows"], json::array());
}

TEST(PageData, StepsOfALongRunAreBucketedAndEpochsAreColumns) {
  RunRecord run = test_run("long", Status::completed, 5000);
  for (int64_t e = 1; e <= 3; ++e) {
    results::EpochRecord epoch;
    epoch.epoch = e;
    epoch.test_accuracy = static_cast<double>(e) / 4;
    run.epochs.push_back(epoch);
  }
  const json data = page_data({run}, kSource);
  const json& steps = data["runs"][0]["steps"];
  EXPECT_EQ(steps["count"], 5000);
  EXPECT_EQ(steps["step"].size(), 250u);
  EXPECT_EQ(steps["loss_low"].size(), 250u);
  EXPECT_EQ(steps["step"].back(), 5000);
  const json& epochs = data["runs"][0]["epochs"];
  EXPECT_EQ(epochs["epoch"], (json{1, 2, 3}));
  EXPECT_EQ(epochs["test_accuracy"], (json{0.25, 0.5, 0.75}));
  EXPECT_EQ(epochs.size(), 1 + results::epoch_layout().values.size() +
                               results::epoch_layout().added_values.size());
  for (const auto& [name, column] : epochs.items()) EXPECT_EQ(column.size(), 3u) << name;
  EXPECT_TRUE(data["runs"][0]["summary"].is_null());
}

}  // namespace
}  // namespace runner::report::html
