// A run's header, opening and outcome in the results file.
#include "record/record_run.hpp"

#include <fmt/format.h>

#include "common/one_line.hpp"
#include "common/utc_now.hpp"
#include "measure/gpu_monitor.hpp"
#include "measure/system.hpp"
#include "record/null_writer.hpp"
#include "record/tensorboard_events.hpp"

namespace runner::record {

namespace {

// Lists are kept as their TOML text: an attribute holds one value of a type.
results::SweepValue sweep_value(const Value& value) {
  if (const auto* flag = std::get_if<bool>(&value)) return *flag;
  if (const auto* integer = std::get_if<int64_t>(&value)) return *integer;
  if (const auto* number = std::get_if<double>(&value)) return *number;
  if (const auto* text = std::get_if<std::string>(&value)) return *text;
  return value_to_string(value);
}

}  // namespace

std::vector<std::pair<std::string, results::SweepValue>> sweep_point_of(
    const config::RunConfig& run) {
  std::vector<std::pair<std::string, results::SweepValue>> point;
  for (const auto& [key, value] : run.sweep_point) point.emplace_back(key, sweep_value(value));
  return point;
}

results::RunHeader header_of(const Recording& r, const config::RunConfig& run, int world_size,
                             int local_ranks) {
  results::RunHeader header;
  header.run_id = run.id;
  header.label = run.label;
  header.experiment = r.experiment.name;
  header.config_toml = run.resolved_toml;
  header.sweep_point = sweep_point_of(run);
  std::string device = run.train.device;
  if (device == "auto") device = torch::cuda::is_available() ? "cuda:0" : "cpu";
  header.environment = measure::environment(
      device, measure::configure_threads(run.train.threads, local_ranks), world_size);
  header.environment["gpu_monitor"] = measure::gpu_monitor_status(device != "cpu");
  header.started_at = utc_now();
  return header;
}

void print_error(std::ostream& errors, const std::string& prefix, const std::string& message,
                 const std::string& hint) {
  errors << "runner: error: " << prefix << message << '\n';
  if (!hint.empty()) errors << "  hint: " << hint << '\n';
}

void record_failed(results::RunWriter& writer, const std::string& error) {
  try {
    writer.set_status(results::Status::failed, error);
  } catch (const Error&) {
  }
}

OpenRun open_run(const Recording& r, const config::RunConfig& run, int world_size, int local_ranks,
                 const RunStart& start) {
  OpenRun open{results::ResultsFile::open(r.results_path), nullptr};
  open.writer = start.group.empty()
                    ? open.file->begin_run(header_of(r, run, world_size, local_ranks))
                    : open.file->resume_run(start.group);
  if (start.go_on)
    open.writer->resume_from(start.checkpoint, static_cast<size_t>(start.epochs),
                             static_cast<size_t>(start.steps));
  return open;
}

RunOutcome record_run(const Recording& r, const config::RunConfig& run, bool writes, int world_size,
                      int local_ranks, const std::string& rank_prefix, const RunStart& start,
                      const TrainFunction& train) {
  OpenRun open{nullptr, std::make_unique<NullWriter>()};
  if (writes) open = open_run(r, run, world_size, local_ranks, start);
  results::RunWriter* writer = open.writer.get();
  const std::string group = writes ? writer->group_name() : "";
  std::unique_ptr<results::RunWriter> events;
  try {
    if (writes) events = with_tensorboard(r.experiment, run, *writer);
    if (events) writer = events.get();
    r.console.run_finished(train(*writer));
    writer->set_status(results::Status::completed);
    return {RunOutcome::Kind::completed, 0, group};
  } catch (const RunSkipped& e) {
    writer->set_status(results::Status::skipped, e.what());
    r.console.line(std::string("  skipped: ") + e.what());
    return {RunOutcome::Kind::skipped, 0, group};
  } catch (const Error& e) {
    record_failed(*writer, e.what());
    print_error(r.errors, rank_prefix, e.what(), e.hint());
    return {RunOutcome::Kind::failed, e.exit_code(), group};
  } catch (const std::exception& e) {
    const std::string message = one_line(e);
    record_failed(*writer, message);
    print_error(r.errors, rank_prefix, message, "");
    return {RunOutcome::Kind::failed, static_cast<int>(ErrorClass::runtime), group};
  }
}

}  // namespace runner::record
