// The sweep: every run of an experiment checked, then run on its ranks and recorded, and the
// comparison table printed.
#include "sweep/experiment_runner.hpp"

#include <fmt/format.h>

#include <set>
#include <sstream>
#include <thread>

#include "config/resolve_techniques.hpp"
#include "plan/dataset_cache.hpp"
#include "plan/estimate.hpp"
#include "ranks/local_launch.hpp"
#include "ranks/outside_launch.hpp"
#include "record/record_run.hpp"
#include "record/tensorboard_events.hpp"
#include "report/print_table.hpp"
#include "report/terminal_table.hpp"
#include "results/read_runs.hpp"
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
void check_local_world(const ranks::RankSetup& setup) {
  if (setup.start != ranks::RankStart::local) return;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (setup.cuda || setup.world_size <= cores) return;
  throw ConfigError(
      fmt::format("strategy.world_size = {}: a local launch starts at most one rank per core, "
                  "and this machine has {}",
                  setup.world_size, cores),
      "start the ranks across machines with torchrun or srun (see the README)");
}

// The run's plan; none when it cannot be made (its data is missing, its model refuses its keys):
// such a run fails on its own when it starts, and the sweep goes on.
std::optional<plan::RunEstimate> estimate_of(const SweepContext& c, const config::RunConfig& run,
                                             int world_size, plan::DatasetCache& datasets) {
  try {
    return plan::estimate_run(run, c.registry, world_size, datasets.get(run));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The run's plan against its budget, and checkpointing against a model without layers.
void check_plan(const config::RunConfig& run, const plan::RunEstimate& estimate, int local_ranks) {
  if (config::techniques_of(run.train).checkpoint_layers && estimate.model.layers.empty())
    throw ConfigError(
        fmt::format("train.activation_checkpointing = \"layers\", but model '{}' "
                    "lists no layers{}",
                    run.model.name, run.label.empty() ? "" : " (run " + run.label + ")"),
        "set train.activation_checkpointing = \"none\", or use a model that "
        "lists its layers (gpt2, vgg, conv_stack)");
  plan::check_plan_fits(run, estimate, local_ranks);
}

// Every run's ranks set up and checked before the first one starts.
std::vector<ranks::RankSetup> checked_rank_setups(const SweepContext& c) {
  plan::DatasetCache datasets(c.registry);
  std::vector<ranks::RankSetup> setups;
  for (const auto& run : c.recording.experiment.runs) {
    const ranks::RankSetup setup = ranks::rank_setup_of(run, c.launch.environment);
    check_local_world(setup);
    train::check_batch_divides(run, setup.world_size);
    const auto estimate = estimate_of(c, run, setup.world_size, datasets);
    // Micro-batches split a data-parallel replica's share: a pipeline's stages, or a tensor
    // group's ranks, share one.
    train::check_techniques(run, estimate ? estimate->plan.data_parallel_degree : setup.world_size);
    if (estimate) check_plan(run, *estimate, setup.local_world_size);
    setups.push_back(setup);
  }
  return setups;
}

// What --resume does with the run in this process: rank 0 (or the only writer) chooses from the
// results file; the other ranks of an outside launch need only the checkpoint.
checkpoint::ResumeChoice resume_choice(const SweepContext& c, const config::RunConfig& run,
                                       const checkpoint::CheckpointSettings& checkpoints,
                                       const std::vector<results::RunRecord>& earlier_runs) {
  const bool only_run = c.recording.experiment.runs.size() == 1;
  if (!outside_launcher(c) || c.launch.environment.rank == 0)
    return checkpoint::choose_resume(c.launch.resume, run, only_run, checkpoints, earlier_runs,
                                     c.recording.errors);
  checkpoint::ResumeChoice choice;
  choice.checkpoint =
      checkpoint::resume_checkpoint(c.launch.resume, run, only_run, checkpoints, c.recording.errors)
          .value_or("");
  return choice;
}

// Where the run's record starts (not meant for a run kept as it is).
record::RunStart run_start(const checkpoint::ResumeChoice& resume) {
  return {resume.group, resume.action == checkpoint::ResumeChoice::Action::go_on, resume.checkpoint,
          resume.epochs, resume.steps};
}

// The run's [checkpoint] settings, starting from the checkpoint the resume choice named.
checkpoint::CheckpointSettings resumed_from(checkpoint::CheckpointSettings checkpoints,
                                            const checkpoint::ResumeChoice& resume) {
  checkpoints.resume_from = resume.checkpoint;
  checkpoints.resume_verified = true;  // by choose_resume
  return checkpoints;
}

record::RunOutcome run_one(const SweepContext& c, ranks::OutsideLaunch& outside,
                           const config::RunConfig& run, const ranks::RankSetup& rank_setup,
                           size_t index, const checkpoint::ResumeChoice& resume,
                           const checkpoint::CheckpointSettings& checkpoints) {
  switch (rank_setup.start) {
    case ranks::RankStart::outside:
      return outside.run(run, rank_setup, index, run_start(resume), checkpoints);
    case ranks::RankStart::local:
      return ranks::launch_local_run(c.launch_context(), run, rank_setup, index, run_start(resume));
    case ranks::RankStart::in_process: break;
  }
  return record::record_run(
      c.recording, run, true, 1, 1, "", run_start(resume), [&](results::RunWriter& writer) {
        return train::train_run(run, c.registry, c.recording.console, writer, {}, checkpoints);
      });
}

// The comparison of this sweep's runs, read from the file: the groups it wrote, went on with or
// kept.
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
  const std::vector<ranks::RankSetup> rank_setups = checked_rank_setups(c);
  checkpoint::check_resume_request(launch.resume, experiment);
  const bool writes = !outside_launcher(c) || launch.environment.rank == 0;
  // The runs recorded before, which only --resume looks at: without it the file is read once,
  // for the comparison at the end.
  std::vector<results::RunRecord> earlier_runs;
  if (writes) {
    results::ResultsFile::open(c.recording.results_path);  // a bad file fails before any run starts
    record::write_tensorboard_experiment(
        experiment);  // and so does a folder that cannot be written
    if (launch.resume) earlier_runs = results::read_runs(c.recording.results_path);
  }
  const ranks::LaunchContext launch_context = c.launch_context();
  ranks::OutsideLaunch outside(launch_context);
  std::vector<int> failed;
  std::set<std::string> groups;  // those this sweep wrote, went on with or kept
  const size_t total = experiment.runs.size();
  train::install_interrupt_handlers();
  for (size_t i = 0; i < total && !train::interrupt_signal(); ++i) {
    const auto& run = experiment.runs[i];
    console.run_started(fmt::format("run {}/{} {}{}", i + 1, total, run.id,
                                    run.label.empty() ? "" : "  " + run.label),
                        "");
    const checkpoint::CheckpointSettings checkpoints =
        checkpoint::checkpoint_settings(run, c.recording.results_path);
    const checkpoint::ResumeChoice resume = resume_choice(c, run, checkpoints, earlier_runs);
    if (resume.action == checkpoint::ResumeChoice::Action::keep) {
      console.line("  completed earlier: kept");
      groups.insert(resume.group);
      continue;
    }
    if (!resume.checkpoint.empty()) console.line("  resuming from " + resume.checkpoint);
    record::RunOutcome outcome =
        run_one(c, outside, run, rank_setups[i], i, resume, resumed_from(checkpoints, resume));
    if (outcome.kind == record::RunOutcome::Kind::failed) failed.push_back(outcome.exit_code);
    groups.insert(outcome.group);
  }
  if (writes) {
    print_comparison(c.recording.results_path, groups, console);
    console.line("results: " + c.recording.results_path);
  }
  if (train::interrupt_signal()) return 128 + train::interrupt_signal();
  return experiment_exit_code(failed, total);
}

}  // namespace runner::sweep
