#include "engine/experiment_runner.hpp"

#include <fmt/format.h>

#include <set>
#include <sstream>

#include "engine/interrupt.hpp"
#include "engine/system.hpp"
#include "engine/trainer.hpp"
#include "plugin_host/call_plugin.hpp"
#include "report/report.hpp"

namespace runner::engine {
namespace {

constexpr int kSweepFailedExitCode = 6;

results::RunHeader header_of(const config::Experiment& experiment, const config::RunConfig& run) {
  results::RunHeader header;
  header.run_id = run.id;
  header.label = run.label;
  header.experiment = experiment.name;
  header.config_toml = run.resolved_toml;
  for (const auto& [key, value] : run.sweep_point) {
    const std::string* text = std::get_if<std::string>(&value);
    header.sweep_point.emplace_back(key, text ? *text : value_to_string(value));
  }
  std::string device = run.train.get_string("device");
  if (device == "auto") device = torch::cuda::is_available() ? "cuda:0" : "cpu";
  header.environment = environment(device, configure_threads(run.train.get_int("threads")), 1);
  header.started_at = utc_now();
  return header;
}

struct RunOutcome {
  bool completed = false;
  int exit_code = 0;
};

RunOutcome execute(const config::Experiment& experiment, const config::RunConfig& run,
                   const plugin_host::Registry& registry, results::ResultsFile& file,
                   Console& console, std::ostream& errors) {
  auto writer = file.begin_run(header_of(experiment, run));
  try {
    console.run_finished(train_run(run, registry, console, *writer));
    writer->set_status(results::Status::completed);
    return {true, 0};
  } catch (const Error& e) {
    writer->set_status(results::Status::failed, e.what());
    errors << "runner: error: " << e.what() << '\n';
    if (!e.hint().empty()) errors << "  hint: " << e.hint() << '\n';
    return {false, e.exit_code()};
  } catch (const std::exception& e) {
    std::string message = plugin_host::one_line(e);
    writer->set_status(results::Status::failed, message);
    errors << "runner: error: " << message << '\n';
    return {false, static_cast<int>(ErrorClass::runtime)};
  }
}

void print_comparison(const std::string& path, const std::set<std::string>& groups,
                      Console& console) {
  if (console.quiet()) return;
  std::vector<results::RunRecord> these;
  for (auto& record : results::read_runs(path))
    if (groups.count(record.group)) these.push_back(std::move(record));
  std::ostringstream table;
  report::print_table(report::comparison_table(these), table);
  console.line("");
  console.line(table.str());
}

}  // namespace

std::string results_path(const config::Experiment& experiment) {
  for (const auto& run : experiment.runs) {
    const std::string& path = run.experiment.get_string("results");
    if (!path.empty()) return path;
  }
  return "results/" + experiment.name + ".h5";
}

int run_experiment(const config::Experiment& experiment, const plugin_host::Registry& registry,
                   Console& console, std::ostream& errors) {
  const std::string path = results_path(experiment);
  auto file = results::ResultsFile::open(path);
  std::set<std::string> groups_before;
  for (const auto& record : results::read_runs(path)) groups_before.insert(record.group);
  int failed = 0, last_exit = 0;
  const size_t total = experiment.runs.size();
  install_interrupt_handlers();
  for (size_t i = 0; i < total && !interrupt_signal(); ++i) {
    const auto& run = experiment.runs[i];
    console.run_started(fmt::format("run {}/{} {}{}", i + 1, total, run.id,
                                    run.label.empty() ? "" : "  " + run.label),
                        "");
    RunOutcome outcome = execute(experiment, run, registry, *file, console, errors);
    if (!outcome.completed) ++failed, last_exit = outcome.exit_code;
  }
  std::set<std::string> groups_now;
  for (const auto& record : results::read_runs(path))
    if (!groups_before.count(record.group)) groups_now.insert(record.group);
  print_comparison(path, groups_now, console);
  console.line("results: " + path);
  if (interrupt_signal()) return 128 + interrupt_signal();
  if (failed == 0) return 0;
  return total == 1 ? last_exit : kSweepFailedExitCode;
}

}  // namespace runner::engine
