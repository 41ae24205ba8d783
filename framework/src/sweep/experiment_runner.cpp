// The sweep: every run of an experiment checked, then run on its ranks and recorded, and the
// comparison table printed.
#include "sweep/experiment_runner.hpp"

#include <fmt/format.h>

#include <set>
#include <sstream>
#include <thread>

#include "measure/estimate.hpp"
#include "ranks/local_launch.hpp"
#include "ranks/outside_launch.hpp"
#include "record/record_run.hpp"
#include "record/tensorboard_events.hpp"
#include "report/print_table.hpp"
#include "report/terminal_table.hpp"
#include "results/read_runs.hpp"
#include "sweep/dataset_cache.hpp"
#include "sweep/experiment_exit.hpp"
#include "train/interrupt.hpp"
#include "train/technique_checks.hpp"

namespace runner::sweep {
namespace {

struct SweepContext {
  record::Recording recording;
  const plugin_host::Registry& registry;
  const SweepLaunch& launch;

  ranks::LaunchContext launch_context() const {
    return {recording, registry, launch.environment, launch.rank_argv};
  }
};

bool outside_launcher(const SweepContext& c) {
  const auto launcher = c.launch.environment.launcher;
  return launcher == ranks::Launcher::torchrun || launcher == ranks::Launcher::slurm;
}

// Ranks a local launch can start on the CPU: one per core. (On CUDA, one per GPU: a machine
// with too few GPUs skips the run, as it skips NCCL without GPUs.)
void check_local_world(const ranks::RankPlan& plan) {
  if (plan.start != ranks::RankStart::local) return;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (plan.cuda || plan.world_size <= cores) return;
  throw ConfigError(
      fmt::format("strategy.world_size = {}: a local launch starts at most one rank per core, "
                  "and this machine has {}",
                  plan.world_size, cores),
      "start the ranks across machines with torchrun or srun (see the README)");
}

// The run's plan; none when it cannot be made (its data is missing, its model refuses its keys):
// such a run fails on its own when it starts, and the sweep goes on.
std::optional<measure::RunEstimate> estimate_of(const SweepContext& c, const config::RunConfig& run,
                                                int world_size, DatasetCache& datasets) {
  try {
    return measure::estimate_run(run, c.registry, world_size, datasets.get(run));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The run's plan against its budget, and checkpointing against a model without layers.
void check_plan(const config::RunConfig& run, const measure::RunEstimate& estimate,
                int local_ranks) {
  if (run.train.get_string("activation_checkpointing") == "layers" && estimate.model.layers.empty())
    throw ConfigError(
        fmt::format("train.activation_checkpointing = \"layers\", but model '{}' "
                    "lists no layers{}",
                    run.model.name, run.label.empty() ? "" : " (run " + run.label + ")"),
        "set train.activation_checkpointing = \"none\", or use a model that "
        "lists its layers (gpt2, vgg, conv_stack)");
  measure::check_plan_fits(run, estimate, local_ranks);
}

// Every run's ranks are planned and checked before the first one starts.
std::vector<ranks::RankPlan> plan_and_check_runs(const SweepContext& c) {
  DatasetCache datasets(c.registry);
  std::vector<ranks::RankPlan> plans;
  for (const auto& run : c.recording.experiment.runs) {
    const ranks::RankPlan plan = ranks::plan_ranks(run, c.launch.environment);
    check_local_world(plan);
    train::check_batch_divides(run, plan.world_size);
    const auto estimate = estimate_of(c, run, plan.world_size, datasets);
    // Micro-batches split a data-parallel replica's share: a pipeline's stages, or a tensor
    // group's ranks, share one.
    train::check_techniques(run, estimate ? estimate->plan.data_parallel_degree : plan.world_size);
    if (estimate) check_plan(run, *estimate, plan.local_world_size);
    plans.push_back(plan);
  }
  return plans;
}

// The plan of --resume for this process: rank 0 (or the only writer) plans from the results
// file; the other ranks of an outside launch need only the checkpoint.
ResumePlan resume_plan(const SweepContext& c, const config::RunConfig& run,
                       const train::CheckpointSettings& checkpoints,
                       const std::vector<results::RunRecord>& earlier_runs) {
  const bool only_run = c.recording.experiment.runs.size() == 1;
  if (!outside_launcher(c) || c.launch.environment.rank == 0)
    return plan_resume(c.launch.resume, run, only_run, checkpoints, earlier_runs,
                       c.recording.errors);
  ResumePlan plan;
  plan.checkpoint =
      resume_checkpoint(c.launch.resume, run, only_run, checkpoints, c.recording.errors)
          .value_or("");
  return plan;
}

// The run's [checkpoint] settings, starting from the checkpoint the resume plan chose.
train::CheckpointSettings resumed_from(train::CheckpointSettings checkpoints,
                                       const ResumePlan& resume) {
  checkpoints.resume_from = resume.checkpoint;
  checkpoints.resume_verified = true;  // by the resume plan
  return checkpoints;
}

record::RunOutcome run_one(const SweepContext& c, ranks::OutsideLaunch& outside,
                           const config::RunConfig& run, const ranks::RankPlan& rank_plan,
                           size_t index, const ResumePlan& resume,
                           const train::CheckpointSettings& checkpoints) {
  switch (rank_plan.start) {
    case ranks::RankStart::outside:
      return outside.run(run, rank_plan, index, resume.start(), checkpoints);
    case ranks::RankStart::local:
      return ranks::launch_local_run(c.launch_context(), run, rank_plan, index, resume.start());
    case ranks::RankStart::in_process: break;
  }
  return record::record_run(
      c.recording, run, true, 1, 1, "", resume.start(), [&](results::RunWriter& writer) {
        return train::train_run(run, c.registry, c.recording.console, writer, {}, checkpoints);
      });
}

void print_comparison(const std::string& path, const std::set<std::string>& groups,
                      record::Console& console) {
  if (console.quiet()) return;
  std::vector<results::RunRecord> these;
  for (auto& record : results::read_runs(path))
    if (groups.count(record.group)) these.push_back(std::move(record));
  std::ostringstream table;
  report::print_table(report::comparison_table(these), table);
  console.line("");
  console.line(table.str());
}

std::set<std::string> run_groups(const std::string& path) {
  std::set<std::string> groups;
  for (const auto& record : results::read_runs(path)) groups.insert(record.group);
  return groups;
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
                   record::Console& console, std::ostream& errors, const SweepLaunch& launch) {
  SweepContext c{{experiment, console, errors, results_path(experiment)}, registry, launch};
  if (launch.environment.launcher == ranks::Launcher::runner)
    return ranks::run_launched_rank(c.launch_context());
  const std::vector<ranks::RankPlan> plans = plan_and_check_runs(c);
  check_resume_request(launch.resume, experiment);
  const bool writes = !outside_launcher(c) || launch.environment.rank == 0;
  std::set<std::string> groups_before;
  std::vector<results::RunRecord> earlier_runs;
  if (writes) {
    results::ResultsFile::open(c.recording.results_path);  // a bad file fails before any run starts
    record::write_tensorboard_experiment(
        experiment);  // and so does a folder that cannot be written
    earlier_runs = results::read_runs(c.recording.results_path);
    for (const auto& record : earlier_runs) groups_before.insert(record.group);
  }
  const ranks::LaunchContext launch_context = c.launch_context();
  ranks::OutsideLaunch outside(launch_context);
  std::vector<int> failed;
  std::set<std::string> groups_now;  // the groups this sweep went on with or kept
  const size_t total = experiment.runs.size();
  train::install_interrupt_handlers();
  for (size_t i = 0; i < total && !train::interrupt_signal(); ++i) {
    const auto& run = experiment.runs[i];
    console.run_started(fmt::format("run {}/{} {}{}", i + 1, total, run.id,
                                    run.label.empty() ? "" : "  " + run.label),
                        "");
    const train::CheckpointSettings checkpoints =
        train::checkpoint_settings(run, c.recording.results_path);
    const ResumePlan plan = resume_plan(c, run, checkpoints, earlier_runs);
    groups_now.insert(plan.group);
    if (plan.action == ResumePlan::Action::keep) {
      console.line("  completed earlier: kept");
      continue;
    }
    if (!plan.checkpoint.empty()) console.line("  resuming from " + plan.checkpoint);
    record::RunOutcome outcome =
        run_one(c, outside, run, plans[i], i, plan, resumed_from(checkpoints, plan));
    if (outcome.kind == record::RunOutcome::Kind::failed) failed.push_back(outcome.exit_code);
  }
  if (writes) {
    for (const auto& group : run_groups(c.recording.results_path))
      if (!groups_before.count(group)) groups_now.insert(group);
    print_comparison(c.recording.results_path, groups_now, console);
    console.line("results: " + c.recording.results_path);
  }
  if (train::interrupt_signal()) return 128 + train::interrupt_signal();
  return experiment_exit_code(failed, total);
}

}  // namespace runner::sweep
