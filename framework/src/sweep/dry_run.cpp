// `runner --dry-run`: each run's resolved TOML and plan, with nothing trained.
#include "sweep/dry_run.hpp"

#include <iostream>

#include "common/one_line.hpp"
#include "plan/dataset_cache.hpp"
#include "plan/estimate.hpp"
#include "ranks/rank_setup.hpp"
#include "sweep/experiment_exit.hpp"
#include "sweep/experiment_runner.hpp"

namespace runner::sweep {
namespace {

struct Plan {
  std::string text;
  int failed_exit_code = 0;  // 0: planned
};

Plan plan_of(const config::RunConfig& run, const ranks::RankSetup& ranks,
             const plugin_host::Registry& registry, plan::DatasetCache& datasets,
             const std::string& name) {
  try {
    const plan::RunEstimate estimate =
        plan::estimate_run(run, registry, ranks.world_size, datasets.get(run));
    return {"# estimate: " + plan::estimate_text(estimate) + "\n# plan per rank:\n" +
                plan::plan_table(estimate),
            0};
  } catch (const Error& e) {
    std::cerr << "runner: error: " << name << ": " << e.what() << '\n';
    if (!e.hint().empty()) std::cerr << "  hint: " << e.hint() << '\n';
    return {std::string("# estimate: unavailable: ") + e.what() + "\n", e.exit_code()};
  } catch (const std::exception& e) {
    std::cerr << "runner: error: " << name << ": " << one_line(e) << '\n';
    return {"# estimate: unavailable: " + one_line(e) + "\n",
            static_cast<int>(ErrorClass::runtime)};
  }
}

}  // namespace

int dry_run(const config::Experiment& experiment, const plugin_host::Registry& registry) {
  std::cout << "experiment " << experiment.name << " (" << experiment.file
            << "): " << experiment.runs.size() << " run(s), results in " << results_path(experiment)
            << "\n";
  // Planned as if started by hand: a dry run starts no ranks.
  const std::vector<ranks::RankSetup> rank_setups = ranks::rank_setups_of(experiment, {});
  plan::DatasetCache datasets(registry);
  std::vector<int> failed;
  for (size_t i = 0; i < experiment.runs.size(); ++i) {
    const auto& run = experiment.runs[i];
    const std::string name = "run " + std::to_string(i + 1) + "/" +
                             std::to_string(experiment.runs.size()) + " id " + run.id;
    const Plan plan = plan_of(run, rank_setups[i], registry, datasets, name);
    std::cout << "\n# " << name << (run.label.empty() ? "" : "  " + run.label) << "\n"
              << run.resolved_toml << plan.text;
    if (plan.failed_exit_code != 0) failed.push_back(plan.failed_exit_code);
  }
  return experiment_exit_code(failed, experiment.runs.size());
}

}  // namespace runner::sweep
