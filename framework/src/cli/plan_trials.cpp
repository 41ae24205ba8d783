// `runner plan --trials K` and `--budget-runs K`: layouts run through the normal run path.
#include "cli/plan_trials.hpp"
#include "config/load_experiment.hpp"

#include <fmt/format.h>
#include <torch/torch.h>

#include <filesystem>
#include <iostream>
#include <thread>

#include "cli/run_command.hpp"
#include "common/output_path.hpp"
#include "config/experiment_file.hpp"
#include "layout/trials.hpp"
#include "results/plan_trials.hpp"
#include "results/read_runs.hpp"
#include "sweep/experiment_runner.hpp"

namespace runner::cli {
namespace {

// The latest record of each trial run, by its id, in the trials' order.
std::vector<std::optional<results::RunRecord>> trial_records(const config::Experiment& trials) {
  const std::vector<results::RunRecord> all = results::read_runs(sweep::results_path(trials));
  std::vector<std::optional<results::RunRecord>> found;
  for (const auto& run : trials.runs) {
    std::optional<results::RunRecord> latest;
    for (const auto& record : all)
      if (config::is_id_of(run, record.header.run_id)) latest = record;
    found.push_back(latest);
  }
  return found;
}

std::string results_file(const PlanOptions& options, const plugin_host::Registry& registry) {
  return sweep::results_path(
      config::load_experiment(options.experiment_file, options.overrides, registry));
}

// Beside the results file: results/<experiment>.plan-trials.toml, or .plan-trial-N.toml for
// the Nth of a budget's runs.
std::string trials_file(const PlanOptions& options, const plugin_host::Registry& registry,
                        const std::string& suffix) {
  std::filesystem::path path = results_file(options, registry);
  path.replace_extension(suffix);
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  return path.string();
}

// Runs `layouts` as the sweep file `path`; each one's measured step, none where it failed.
std::vector<std::optional<double>> measure(const std::vector<layout::Candidate>& layouts,
                                           const std::string& path, const PlanOptions& options,
                                           const plugin_host::Registry& registry) {
  write_text_file(path, layout::trials_toml(layouts, options.trial_steps));
  run_command({path, {}, options.plugin_path});
  const config::Experiment trials = config::load_experiment(path, {}, registry);
  std::vector<std::optional<double>> steps;
  for (const auto& record : trial_records(trials))
    steps.push_back(record ? results::measured_step_s(*record) : std::nullopt);
  return steps;
}

std::vector<std::optional<double>> run_best(const PlanOptions& options,
                                            const layout::Search& search,
                                            const plugin_host::Registry& registry) {
  const std::vector<layout::Candidate> best(
      search.fitting.begin(),
      search.fitting.begin() + static_cast<long>(std::min(options.trials, search.fitting.size())));
  const std::string path = trials_file(options, registry, ".plan-trials.toml");
  std::cout << "\ntrying the best " << best.size() << " (" << path << ")\n";
  return measure(best, path, options, registry);
}

void say_why_the_budget_stops(const layout::Candidate& next, size_t tried, size_t budget,
                              const std::vector<layout::TriedLayout>& measured) {
  const double fastest = layout::fastest_measured(measured);
  const double ratio = *layout::optimistic_ratio(measured);
  std::cout << fmt::format(
      "\nstopping after {} of at most {} runs: the next, {}, is predicted {:.3g} s; at the "
      "most flattering ratio of measured to predicted the trials allow ({:.2f}) that is {:.3g} "
      "s, no faster than the fastest measured {:.3g} s, and the rest are predicted slower\n",
      tried, budget, next.layout.label(), next.cost.total(), ratio, next.cost.total() * ratio,
      fastest);
}

std::vector<std::optional<double>> run_within_budget(const PlanOptions& options,
                                                     const layout::Search& search,
                                                     const plugin_host::Registry& registry) {
  const size_t budget = std::min(options.budget_runs, search.fitting.size());
  std::vector<std::optional<double>> steps;
  std::vector<layout::TriedLayout> measured;
  for (size_t i = 0; i < budget; ++i) {
    const layout::Candidate& next = search.fitting[i];
    if (!layout::may_beat_the_fastest(next.cost.total(), measured)) {
      say_why_the_budget_stops(next, i, options.budget_runs, measured);
      break;
    }
    const std::string path =
        trials_file(options, registry, fmt::format(".plan-trial-{}.toml", i + 1));
    std::cout << fmt::format("\ntrial {} of at most {}: {} ({})\n", i + 1, options.budget_runs,
                             next.layout.label(), path);
    steps.push_back(measure({next}, path, options, registry).front());
    if (steps.back()) measured.push_back({next.cost.total(), *steps.back()});
  }
  return steps;
}

}  // namespace

void check_trials_fit_here(const PlanOptions& options, const layout::Devices& devices) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int here = devices.cuda ? static_cast<int>(torch::cuda::device_count()) : cores;
  if (devices.count <= here) return;
  const std::string flag = options.budget_runs > 0
                               ? fmt::format("--budget-runs {}", options.budget_runs)
                               : fmt::format("--trials {}", options.trials);
  throw ConfigError(
      fmt::format("runner plan {}: the layouts take {} {} ranks, and this machine has {} {}", flag,
                  devices.count, devices.cuda ? "GPU" : "CPU", here,
                  devices.cuda ? "GPUs" : "cores (a local launch starts one rank per core)"),
      "plan without trials here, or on a machine with enough devices");
}

Measured run_trials(const PlanOptions& options, const layout::Search& search,
                    const plugin_host::Registry& registry) {
  const std::vector<std::optional<double>> steps =
      options.budget_runs > 0 ? run_within_budget(options, search, registry)
                              : run_best(options, search, registry);
  Measured fastest;
  std::vector<double> predicted, measured;
  std::cout << fmt::format("\n{:>3}  {:<62} {:>10} {:>10}\n", "#", "layout", "predicted",
                           "measured");
  for (size_t i = 0; i < steps.size(); ++i) {
    const layout::Candidate& tried = search.fitting[i];
    const auto& step = steps[i];
    std::cout << fmt::format("{:>3}  {:<62} {:>8.3g} s {:>10}\n", i + 1, tried.layout.label(),
                             tried.cost.total(), step ? fmt::format("{:.3g} s", *step) : "failed");
    if (step && (!fastest.candidate || *step < *fastest.step_s)) fastest = {&tried, step};
    if (step) predicted.push_back(tried.cost.total()), measured.push_back(*step);
  }
  if (measured.size() >= 3)
    std::cout << fmt::format(
        "rank correlation of predicted and measured steps: {:.2f} ({} trials)\n",
        results::rank_correlation(predicted, measured), measured.size());
  if (!fastest.candidate)
    throw RunError("runner plan: no trial finished",
                   "the trials' errors are above and in " + results_file(options, registry));
  std::cout << "best measured: " << fastest.candidate->layout.label() << "\n";
  return fastest;
}

void write_text_file(const std::string& path, const std::string& text) {
  write_file_whole(path, text);
}

}  // namespace runner::cli
