#include <fmt/format.h>

#include "engine/gpu_monitor.hpp"
#include "engine/null_writer.hpp"
#include "engine/sweep_context.hpp"
#include "engine/system.hpp"
#include "engine/tensorboard_events.hpp"
#include "plugin_host/call_plugin.hpp"

namespace runner::engine {

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

results::RunHeader header_of(const SweepContext& c, const config::RunConfig& run,
                             int world_size) {
  results::RunHeader header;
  header.run_id = run.id;
  header.label = run.label;
  header.experiment = c.experiment.name;
  header.config_toml = run.resolved_toml;
  header.sweep_point = sweep_point_of(run);
  std::string device = run.train.get_string("device");
  if (device == "auto") device = torch::cuda::is_available() ? "cuda:0" : "cpu";
  const int local_ranks = c.launch.environment.launcher == launch::Launcher::none
                              ? world_size
                              : c.launch.environment.local_world_size;
  header.environment = environment(
      device, configure_threads(run.train.get_int("threads"), local_ranks), world_size);
  header.environment["gpu_monitor"] = gpu_monitor_status(device != "cpu");
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

OpenRun open_run(const SweepContext& c, const config::RunConfig& run, int world_size,
                 const ResumePlan& plan) {
  OpenRun open{results::ResultsFile::open(c.results_path), nullptr};
  open.writer = plan.group.empty() ? open.file->begin_run(header_of(c, run, world_size))
                                   : open.file->resume_run(plan.group);
  if (plan.action == ResumePlan::Action::go_on)
    open.writer->resume_from(plan.checkpoint, static_cast<size_t>(plan.epochs),
                             static_cast<size_t>(plan.steps));
  return open;
}

RunOutcome record_run(const SweepContext& c, const config::RunConfig& run, bool writes,
                      int world_size, const std::string& rank_prefix, const ResumePlan& plan,
                      const TrainFunction& train) {
  OpenRun open{nullptr, std::make_unique<NullWriter>()};
  if (writes) open = open_run(c, run, world_size, plan);
  results::RunWriter* writer = open.writer.get();
  std::unique_ptr<results::RunWriter> events;
  try {
    if (writes) events = with_tensorboard(c.experiment, run, *writer);
    if (events) writer = events.get();
    c.console.run_finished(train(*writer));
    writer->set_status(results::Status::completed);
    return {RunOutcome::Kind::completed, 0};
  } catch (const RunSkipped& e) {
    writer->set_status(results::Status::skipped, e.what());
    c.console.line(std::string("  skipped: ") + e.what());
    return {RunOutcome::Kind::skipped, 0};
  } catch (const Error& e) {
    record_failed(*writer, e.what());
    print_error(c.errors, rank_prefix, e.what(), e.hint());
    return {RunOutcome::Kind::failed, e.exit_code()};
  } catch (const std::exception& e) {
    const std::string message = one_line(e);
    record_failed(*writer, message);
    print_error(c.errors, rank_prefix, message, "");
    return {RunOutcome::Kind::failed, static_cast<int>(ErrorClass::runtime)};
  }
}

}  // namespace runner::engine
