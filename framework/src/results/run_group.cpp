// Writing a new run group and its status, and reading a run back part by part, noting damage.
#include "results/run_group.hpp"

#include <algorithm>

#include "results/attributes.hpp"
#include "results/datasets.hpp"
#include "results/groups.hpp"
#include "results/record_series.hpp"
#include "results/schema.hpp"
#include "results/summary_group.hpp"
#include "results/sweep_values.hpp"
#include "runner/errors.hpp"

namespace runner::results::detail {

namespace {

void write_sweep_point(hid_t run_group, const RunHeader& header) {
  Handle sweep = create_group(run_group, schema::kSweep, AttributeOrder::by_creation);
  for (const auto& [key, value] : header.sweep_point) write_sweep_value(sweep.get(), key, value);
}

void write_environment(hid_t run_group, const RunHeader& header) {
  Handle environment = create_group(run_group, schema::kEnvironment);
  for (const auto& [key, value] : header.environment)
    write_string_attribute(environment.get(), key, value);
}

void create_empty_series(hid_t run_group) {
  Handle epochs = create_group(run_group, schema::kEpochs);
  create_record_series(epochs.get(), epoch_layout(), schema::kEpochChunk);
  Handle steps = create_group(run_group, schema::kSteps);
  create_record_series(steps.get(), step_layout(), schema::kStepChunk);
}

void read_header(hid_t run_group, RunRecord& run) {
  RunHeader& header = run.header;
  header.run_id = read_string_attribute(run_group, schema::kRunId);
  header.label = read_string_attribute(run_group, schema::kLabel);
  header.experiment = read_string_attribute(run_group, schema::kExperiment);
  header.started_at = read_string_attribute(run_group, schema::kStartedAt);
  run.status = status_from_name(read_string_attribute(run_group, schema::kStatus));
  run.error = read_string_attribute(run_group, schema::kError);
  run.finished_at = read_string_attribute(run_group, schema::kFinishedAt);
  if (has_attribute(run_group, schema::kCheckpoints))
    run.checkpoints = read_string_attribute(run_group, schema::kCheckpoints);
  if (has_attribute(run_group, schema::kResumedFrom))
    run.resumed_from = read_string_attribute(run_group, schema::kResumedFrom);
  header.config_toml = read_string_dataset(run_group, schema::kConfig);

  Handle sweep = open_group(run_group, schema::kSweep);
  for (const std::string& key : attribute_names(sweep.get()))
    header.sweep_point.emplace_back(key, read_sweep_value(sweep.get(), key));

  Handle environment = open_group(run_group, schema::kEnvironment);
  for (const std::string& key : attribute_names(environment.get()))
    header.environment[key] = read_string_attribute(environment.get(), key);
}

// The groups under `run_group`'s `name`, one per attempt, each read by `read_one`, in the
// order of their attempts (the groups' names sort as text: "10" before "2").
template <typename Record, typename ReadOne>
std::vector<Record> read_attempt_groups(hid_t run_group, const char* name, ReadOne&& read_one) {
  std::vector<Record> records;
  if (!has_member(run_group, name)) return records;
  Handle group = open_group(run_group, name);
  for (const std::string& member : member_names(group.get())) {
    Handle one = open_group(group.get(), member);
    records.push_back(read_one(one.get()));
  }
  std::sort(records.begin(), records.end(),
            [](const Record& a, const Record& b) { return a.attempt < b.attempt; });
  return records;
}

std::vector<RestartRecord> read_restarts(hid_t run_group) {
  return read_attempt_groups<RestartRecord>(run_group, schema::kRestarts, [](hid_t one) {
    RestartRecord r;
    r.attempt = read_int_attribute(one, schema::kAttempt);
    r.cause = read_string_attribute(one, schema::kRestartCause);
    r.resumed_from = read_string_attribute(one, schema::kResumedFrom);
    r.resumed_step = read_int_attribute(one, schema::kResumedStep);
    r.time_lost_s = read_double_attribute(one, schema::kTimeLost);
    r.failed_at = read_string_attribute(one, schema::kFailedAt);
    return r;
  });
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::vector<HangReportRecord> read_hang_reports(hid_t run_group) {
  return read_attempt_groups<HangReportRecord>(run_group, schema::kHangReports, [](hid_t one) {
    HangReportRecord r;
    r.attempt = read_int_attribute(one, schema::kAttempt);
    r.first_line = read_string_attribute(one, schema::kFirstLine);
    r.ranks = lines_of(read_string_attribute(one, schema::kRankLines));
    return r;
  });
}

template <typename Record>
std::vector<Record> read_series_group(hid_t run_group, const char* name,
                                      const RecordLayout<Record>& layout) {
  Handle group = open_group(run_group, name);
  return read_records(group.get(), layout);
}

// Reads one part of a run. A part that a writer killed mid-write left damaged is noted in
// run.damage instead of thrown, so the rest of the run and the other runs stay readable.
template <typename Read>
void read_part(RunRecord& run, Read&& read) {
  try {
    read();
  } catch (const DataError& error) {
    if (!run.damage.empty()) run.damage += "; ";
    run.damage += error.what();
  }
}

}  // namespace

void write_new_run(hid_t run_group, const RunHeader& header) {
  write_string_attribute(run_group, schema::kRunId, header.run_id);
  write_string_attribute(run_group, schema::kLabel, header.label);
  write_string_attribute(run_group, schema::kExperiment, header.experiment);
  write_string_attribute(run_group, schema::kStartedAt, header.started_at);
  write_run_status(run_group, Status::running, "", "");
  write_string_dataset(run_group, schema::kConfig, header.config_toml);
  write_sweep_point(run_group, header);
  write_environment(run_group, header);
  create_empty_series(run_group);
}

void write_run_status(hid_t run_group, Status status, const std::string& error,
                      const std::string& finished_at) {
  write_string_attribute(run_group, schema::kStatus, status_name(status));
  write_string_attribute(run_group, schema::kError, error);
  write_string_attribute(run_group, schema::kFinishedAt, finished_at);
}

void write_restart(hid_t run_group, const RestartRecord& restart) {
  Handle group = has_member(run_group, schema::kRestarts)
                     ? open_group(run_group, schema::kRestarts)
                     : create_group(run_group, schema::kRestarts);
  Handle one = create_group(group.get(), std::to_string(restart.attempt));
  write_int_attribute(one.get(), schema::kAttempt, restart.attempt);
  write_string_attribute(one.get(), schema::kRestartCause, restart.cause);
  write_string_attribute(one.get(), schema::kResumedFrom, restart.resumed_from);
  write_int_attribute(one.get(), schema::kResumedStep, restart.resumed_step);
  write_double_attribute(one.get(), schema::kTimeLost, restart.time_lost_s);
  write_string_attribute(one.get(), schema::kFailedAt, restart.failed_at);
}

void write_hang_report(hid_t run_group, const HangReportRecord& report) {
  Handle group = has_member(run_group, schema::kHangReports)
                     ? open_group(run_group, schema::kHangReports)
                     : create_group(run_group, schema::kHangReports);
  Handle one = create_group(group.get(), std::to_string(report.attempt));
  write_int_attribute(one.get(), schema::kAttempt, report.attempt);
  write_string_attribute(one.get(), schema::kFirstLine, report.first_line);
  std::string lines;
  for (const std::string& line : report.ranks) lines += (lines.empty() ? "" : "\n") + line;
  write_string_attribute(one.get(), schema::kRankLines, lines);
}

bool is_run_group(hid_t group) { return has_attribute(group, schema::kRunId); }

RunRecord read_run_group(hid_t run_group, const std::string& group_name) {
  RunRecord run;
  run.group = group_name;
  read_part(run, [&] { read_header(run_group, run); });
  read_part(run,
            [&] { run.epochs = read_series_group(run_group, schema::kEpochs, epoch_layout()); });
  read_part(run, [&] { run.steps = read_series_group(run_group, schema::kSteps, step_layout()); });
  read_part(run, [&] { run.summary = read_summary_group(run_group); });
  read_part(run, [&] { run.restarts = read_restarts(run_group); });
  read_part(run, [&] { run.hang_reports = read_hang_reports(run_group); });
  return run;
}

}  // namespace runner::results::detail
