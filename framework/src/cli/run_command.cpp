#include <unistd.h>

#include <iostream>

#include "cli/commands.hpp"
#include "cli/registry_loader.hpp"
#include "engine/estimate.hpp"
#include "engine/experiment_runner.hpp"

namespace runner::cli {
namespace {

// The run's memory, or why it cannot be estimated (its data is missing, say).
std::string estimate_line(const config::RunConfig& run, const plugin_host::Registry& registry) {
  try {
    return "# estimate: " + engine::estimate_text(engine::estimate_run(run, registry));
  } catch (const Error& e) {
    return std::string("# estimate: unavailable: ") + e.what();
  }
}

void print_dry_run(const config::Experiment& experiment, const plugin_host::Registry& registry) {
  std::cout << "experiment " << experiment.name << " (" << experiment.file << "): "
            << experiment.runs.size() << " run(s), results in "
            << engine::results_path(experiment) << "\n";
  for (size_t i = 0; i < experiment.runs.size(); ++i) {
    const auto& run = experiment.runs[i];
    std::cout << "\n# run " << i + 1 << "/" << experiment.runs.size() << " id " << run.id
              << (run.label.empty() ? "" : "  " + run.label) << "\n"
              << run.resolved_toml << estimate_line(run, registry) << "\n";
  }
}

}  // namespace

int run_command(const RunOptions& options) {
  plugin_host::Registry registry = load_registry(options.plugin_path, options.experiment_file);
  config::Experiment experiment =
      config::load_experiment(options.experiment_file, options.overrides, registry);
  if (options.dry_run) {
    print_dry_run(experiment, registry);
    return 0;
  }
  engine::Console console(std::cout, options.quiet, isatty(STDOUT_FILENO) != 0);
  return engine::run_experiment(experiment, registry, console, std::cerr);
}

}  // namespace runner::cli
