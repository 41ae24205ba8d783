// `runner <experiment.toml>`: loads the plugins and the experiment, --nproc, then a dry run or
// the sweep.
#include "cli/run_command.hpp"
#include "config/load_experiment.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "cli/registry_loader.hpp"
#include "config/experiment_file.hpp"
#include "plugin_host/host_owned_errors.hpp"
#include "ranks/rank_setup.hpp"
#include "report/html/report_page.hpp"
#include "sweep/dry_run.hpp"
#include "sweep/experiment_runner.hpp"

namespace runner::cli {
namespace {

// --nproc N sets strategy.world_size on every run; runs of strategy single (one rank by
// definition) become ddp, the strategy that runs the same training on N ranks. Which of the two
// depends on the runs as the file resolves without --nproc: `text` is the file's, read once.
std::vector<std::string> nproc_overrides(const RunOptions& options, const std::string& text,
                                         const plugin_host::Registry& registry) {
  std::vector<std::string> overrides = options.overrides;
  if (options.nproc == 0) return overrides;
  const auto plain = config::parse_experiment(text, options.experiment_file, overrides, registry);
  size_t single = 0, distributed = 0;
  for (const auto& setup : ranks::rank_setups_of(plain, {}))
    if (setup.distributed) ++distributed;
  for (const auto& run : plain.runs)
    if (run.strategy.name == "single") ++single;
  if (single == plain.runs.size())
    overrides.push_back("strategy.name=ddp");
  else if (distributed != plain.runs.size())
    throw ConfigError(fmt::format("--nproc {}: some runs of {} use a strategy that runs on one "
                                  "rank only",
                                  options.nproc, options.experiment_file),
                      "set strategy.world_size in the file for the runs that take several ranks");
  overrides.push_back("strategy.world_size=" + std::to_string(options.nproc));
  return overrides;
}

// This runner again with the same arguments: a rank of a local launch resolves the same runs.
std::vector<std::string> rank_argv(const RunOptions& options) {
  std::vector<std::string> argv{std::filesystem::read_symlink("/proc/self/exe").string()};
  for (const auto& o : options.overrides) argv.insert(argv.end(), {"--set", o});
  for (const auto& p : options.plugin_path) argv.insert(argv.end(), {"--plugin-path", p});
  if (options.nproc > 0) argv.insert(argv.end(), {"--nproc", std::to_string(options.nproc)});
  if (options.quiet) argv.push_back("--quiet");
  argv.push_back(options.experiment_file);
  return argv;
}

// --html's page, where this process writes one: rank 0 of the run, not a rank a local launch
// started (those run without --html). nullopt otherwise.
std::optional<report::html::PageTarget> page_target(const RunOptions& options,
                                                    const config::Experiment& experiment,
                                                    const sweep::SweepLaunch& launch) {
  if (!options.html || launch.environment.rank != 0 ||
      launch.environment.launcher == ranks::Launcher::runner)
    return std::nullopt;
  return report::html::PageTarget{sweep::results_path(experiment), *options.html, false,
                                  options.experiment_file};
}

int run_with_plugins(const RunOptions& options, const plugin_host::Registry& registry,
                     const sweep::SweepLaunch& launch) {
  const std::string text = config::read_experiment_file(options.experiment_file);
  const config::Experiment experiment = config::parse_experiment(
      text, options.experiment_file, nproc_overrides(options, text, registry), registry);
  if (options.dry_run)
    return sweep::dry_run(experiment, registry, std::cout, std::cerr, options.quiet);
  const auto page = page_target(options, experiment, launch);
  if (page) report::html::check_page_target(*page);  // refused before any run trains
  const bool other_rank = launch.environment.rank != 0;
  record::Console console(std::cout, options.quiet || other_rank, isatty(STDOUT_FILENO) != 0);
  const int exit_code = sweep::run_experiment(experiment, registry, console, std::cerr, launch);
  if (page) {
    const report::html::WrittenPage written = report::html::write_report_page(*page);
    console.line(fmt::format("page: {} ({} run(s))", written.path, written.runs));
  }
  return exit_code;
}

}  // namespace

int run_command(const RunOptions& options) {
  sweep::SweepLaunch launch{ranks::read_rank_environment(), rank_argv(options), options.resume};
  if (options.nproc > 0 && launch.environment.launcher != ranks::Launcher::none &&
      launch.environment.launcher != ranks::Launcher::runner)
    throw ConfigError(fmt::format("--nproc under {}: the launcher already started the ranks",
                                  ranks::launcher_name(launch.environment.launcher)),
                      "drop --nproc; strategy.world_size takes the launcher's");
  plugin_host::Registry registry = load_registry(options.plugin_path, options.experiment_file);
  return plugin_host::with_host_owned_errors(
      [&] { return run_with_plugins(options, registry, launch); });
}

}  // namespace runner::cli
