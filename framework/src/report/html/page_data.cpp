// page_data: the runs of a results file as the page's JSON (page_data.md).
#include "report/html/page_data.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "report/html/plan_table.hpp"
#include "report/html/run_choice.hpp"
#include "report/html/step_series.hpp"
#include "report/run_table.hpp"
#include "results/record_layout.hpp"
#include "runner/version.hpp"

namespace runner::report::html {

namespace {

using nlohmann::json;
using results::EpochRecord;
using results::RunRecord;

// JSON has no NaN or infinity: the page shows null as "not measured".
json finite_or_null(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }

// A series' number to 5 significant digits, more than a chart can show: a 500-run page's
// numbers written whole (17 digits) made it 36 MB and slow to open.
json rounded_or_null(double value) {
  if (!std::isfinite(value)) return nullptr;
  char text[32];
  std::snprintf(text, sizeof text, "%.5g", value);
  return std::strtod(text, nullptr);
}

json finite_numbers(const std::vector<double>& values) {
  json list = json::array();
  for (double value : values) list.push_back(rounded_or_null(value));
  return list;
}

const char* unit_name(Unit unit) {
  switch (unit) {
    case Unit::text: return "text";
    case Unit::count: return "count";
    case Unit::seconds: return "seconds";
    case Unit::bytes: return "bytes";
    case Unit::fraction: return "fraction";
    case Unit::per_second: return "per_second";
    case Unit::number: return "number";
  }
  return "";
}

json cell_json(const Cell& cell) {
  if (const auto* value = std::get_if<double>(&cell)) return finite_or_null(*value);
  if (const auto* value = std::get_if<int64_t>(&cell)) return *value;
  if (const auto* value = std::get_if<bool>(&cell)) return *value;
  if (const auto* value = std::get_if<std::string>(&cell)) return *value;
  return nullptr;
}

json table_json(const RunTable& table) {
  json columns = json::array();
  for (const Column& column : table.columns)
    columns.push_back({{"name", column.name},
                       {"title", column.title},
                       {"unit", unit_name(column.unit)},
                       {"swept", column.swept}});
  json rows = json::array();
  for (const std::vector<Cell>& row : table.rows) {
    json cells = json::array();
    for (const Cell& cell : row) cells.push_back(cell_json(cell));
    rows.push_back(std::move(cells));
  }
  return {{"columns", std::move(columns)}, {"rows", std::move(rows)}};
}

json sweep_value_json(const results::SweepValue& value) {
  if (const auto* number = std::get_if<double>(&value)) return finite_or_null(*number);
  return std::visit([](const auto& v) { return json(v); }, value);
}

json sweep_point_json(const std::vector<std::pair<std::string, results::SweepValue>>& point) {
  json values = json::object();
  for (const auto& [key, value] : point) values[key] = sweep_value_json(value);
  return values;
}

json epochs_json(const std::vector<EpochRecord>& epochs) {
  const results::RecordLayout<EpochRecord>& layout = results::epoch_layout();
  json columns = json::object();
  json& numbers = columns[layout.counter_name] = json::array();
  for (const EpochRecord& epoch : epochs) numbers.push_back(epoch.*layout.counter);
  for (const auto* fields : {&layout.values, &layout.added_values})
    for (const auto& [name, field] : *fields) {
      json& column = columns[name] = json::array();
      for (const EpochRecord& epoch : epochs) column.push_back(rounded_or_null(epoch.*field));
    }
  return columns;
}

json steps_json(const std::vector<results::StepRecord>& steps) {
  const StepSeries series = step_series(steps);
  return {{"count", series.count},
          {"step", series.step},
          {"loss", finite_numbers(series.loss)},
          {"loss_low", finite_numbers(series.loss_low)},
          {"loss_high", finite_numbers(series.loss_high)},
          {"duration_s", finite_numbers(series.duration_s)}};
}

json summary_json(const std::optional<results::Summary>& summary) {
  if (!summary) return nullptr;
  return {
      {"task", summary->task},
      {"total_time_s", finite_or_null(summary->total_time_s)},
      {"epochs_completed", summary->epochs_completed},
      {"final_train_loss", finite_or_null(summary->final_train_loss)},
      {"final_test_loss", finite_or_null(summary->final_test_loss)},
      {"final_test_accuracy", finite_or_null(summary->final_test_accuracy)},
      {"class_names", summary->class_names},
      {"per_class_accuracy", finite_numbers(summary->per_class_accuracy)},
      {"peak_memory_per_rank_bytes", finite_numbers(summary->peak_memory_per_rank_bytes)},
      {"estimated_memory_per_rank_bytes", finite_numbers(summary->estimated_memory_per_rank_bytes)},
      {"tensor_peak_per_rank_bytes", finite_numbers(summary->tensor_peak_per_rank_bytes)},
      {"state_memory_per_rank_bytes", finite_numbers(summary->state_memory_per_rank_bytes)},
      {"parameters", summary->parameters},
      {"flops_per_sample", finite_or_null(summary->flops_per_sample)},
      {"tflops", finite_or_null(summary->tflops)},
      {"mfu", finite_or_null(summary->mfu)}};
}

json restarts_json(const std::vector<results::RestartRecord>& restarts) {
  json list = json::array();
  for (const auto& restart : restarts)
    list.push_back({{"attempt", restart.attempt},
                    {"cause", restart.cause},
                    {"resumed_from", restart.resumed_from},
                    {"resumed_step", restart.resumed_step},
                    {"time_lost_s", finite_or_null(restart.time_lost_s)},
                    {"failed_at", restart.failed_at}});
  return list;
}

json hang_reports_json(const std::vector<results::HangReportRecord>& reports) {
  json list = json::array();
  for (const auto& report : reports)
    list.push_back(
        {{"attempt", report.attempt}, {"first_line", report.first_line}, {"ranks", report.ranks}});
  return list;
}

json run_json(const RunRecord& run, Role role, size_t point) {
  return {{"group", run.group},
          {"run_id", run.header.run_id},
          {"label", run.header.label},
          {"experiment", run.header.experiment},
          {"status", results::status_name(run.status)},
          {"role", role_name(role)},
          {"point", point},
          {"error", run.error},
          {"damage", run.damage},
          {"abandoned", run.abandoned},
          {"started_at", run.header.started_at},
          {"finished_at", run.finished_at},
          {"sweep_point", sweep_point_json(run.header.sweep_point)},
          {"epochs", epochs_json(run.epochs)},
          {"steps", steps_json(run.steps)},
          {"summary", summary_json(run.summary)},
          {"restarts", restarts_json(run.restarts)},
          {"hang_reports", hang_reports_json(run.hang_reports)},
          {"environment", run.header.environment},
          {"config_toml", run.header.config_toml}};
}

std::string sweep_value_text(const results::SweepValue& value) {
  if (const auto* text = std::get_if<std::string>(&value)) return *text;
  if (const auto* flag = std::get_if<bool>(&value)) return *flag ? "true" : "false";
  if (const auto* whole = std::get_if<int64_t>(&value)) return std::to_string(*whole);
  return fmt::format("{}", std::get<double>(value));
}

std::vector<std::string> experiments_of(const std::vector<RunRecord>& runs) {
  std::vector<std::string> names;
  for (const RunRecord& run : runs) {
    const std::string& name = run.header.experiment;
    if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(name);
  }
  return names;
}

// "backend=nccl, batch_size=64": each swept key as the table titles its column (its last part
// where that is unambiguous), led by the experiment when the file holds several.
std::string point_label(const Point& point, const RunTable& table, bool several_experiments) {
  std::vector<std::string> parts;
  if (several_experiments || point.values.empty())
    parts.push_back(point.experiment.empty() ? "all runs" : point.experiment);
  for (const auto& [key, value] : point.values) {
    const int column = column_index(table, key);
    const std::string& title = column < 0 ? key : table.columns[column].title;
    parts.push_back(title + "=" + sweep_value_text(value));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

json points_json(const RunChoice& choice, const std::vector<RunRecord>& runs,
                 const RunTable& table) {
  const bool several_experiments = experiments_of(runs).size() > 1;
  json points = json::array();
  for (const Point& point : choice.points)
    points.push_back({{"label", point_label(point, table, several_experiments)},
                      {"values", sweep_point_json(point.values)},
                      {"result", point.result ? json(*point.result) : json(nullptr)},
                      {"status", point.status}});
  return points;
}

json sweep_keys_json(const RunTable& table) {
  json keys = json::array();
  for (const Column& column : table.columns)
    if (column.swept) keys.push_back(column.name);
  return keys;
}

std::string page_title(const std::vector<RunRecord>& runs, const std::string& file_name) {
  const std::vector<std::string> names = experiments_of(runs);
  return names.empty() ? file_name : fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

nlohmann::json page_data(const std::vector<RunRecord>& runs, const PageSource& source) {
  const RunTable table = run_table(runs);
  const RunChoice choice = choose_runs(runs);
  json run_list = json::array();
  for (size_t index = 0; index < runs.size(); ++index)
    run_list.push_back(run_json(runs[index], choice.roles[index], choice.points_of[index]));
  return {{"format", "runner-report-page"},
          {"version", kPageDataVersion},
          {"generator", "runner " RUNNER_VERSION},
          {"title", page_title(runs, source.file_name)},
          {"source",
           {{"file", source.file_name},
            {"written_at", source.written_at},
            {"writer_alive", source.writer_alive}}},
          {"sweep_keys", sweep_keys_json(table)},
          {"table", table_json(table)},
          {"runs", std::move(run_list)},
          {"points", points_json(choice, runs, table)},
          {"plans", plans_json(runs, choice)}};
}

}  // namespace runner::report::html
