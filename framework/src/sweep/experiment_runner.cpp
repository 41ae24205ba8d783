// The sweep: every run of an experiment checked, then run on its ranks and recorded, and the
// comparison table printed.
#include "sweep/experiment_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "checkpoint/run_folder_lock.hpp"
#include "common/output_path.hpp"
#include "interrupt/interrupt.hpp"
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
#include "sweep/interrupt_hint.hpp"
#include "sweep/launcher_restart.hpp"
#include "sweep/run_checks.hpp"

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

// Every run's ranks set up and checked before the first one starts.
std::vector<ranks::RankSetup> checked_rank_setups(const SweepContext& c) {
  plan::DatasetCache datasets(c.registry);
  std::vector<ranks::RankSetup> setups;
  for (const auto& run : c.recording.experiment.runs) {
    const ranks::RankSetup setup = ranks::rank_setup_of(run, c.launch.environment);
    check_run(run, setup, estimate_of(c, run, setup.world_size, datasets));
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

// The folders a sweep writes into, where the experiment names them: one that is a file, a FIFO
// or a checkpoint is refused before any run starts, not at the first epoch's save.
void check_output_folders(const config::Experiment& experiment, const std::string& results) {
  const std::string tensorboard = record::tensorboard_folder(experiment);
  if (!tensorboard.empty()) check_output_folder("[experiment] tensorboard", tensorboard);
  for (const auto& run : experiment.runs) {
    const std::string run_folder = checkpoint::checkpoint_settings(run, results).run_folder;
    check_output_folder("[checkpoint] dir", std::filesystem::path(run_folder).parent_path());
  }
}

// A run the launcher started again, recorded as its restart by the writer: its earlier
// attempt's record (read before this attempt began) gives the cause and the time lost.
void record_launcher_restart(const SweepContext& c, const checkpoint::ResumeChoice& resume,
                             const std::vector<results::RunRecord>& earlier_runs) {
  const auto failed =
      std::find_if(earlier_runs.begin(), earlier_runs.end(),
                   [&](const results::RunRecord& run) { return run.group == resume.group; });
  if (failed == earlier_runs.end()) return;
  const ranks::RankEnvironment& env = c.launch.environment;
  const results::RestartRecord restart = launcher_restart(*failed, env.attempt, resume);
  results::ResultsFile::open(c.recording.results_path)
      ->resume_run(resume.group)
      ->record_restart(restart);
  c.recording.console.line(fmt::format("  {} restart {} after: {}; {:.0f} s of training lost",
                                       ranks::launcher_name(env.launcher), restart.attempt,
                                       restart.cause, restart.time_lost_s));
}

// torchrun's --max-restarts and Slurm's requeue start the ranks again: each unfinished run
// goes on from its newest complete checkpoint as under --resume, and one with none starts over.
SweepLaunch restarted_by_the_launcher(const SweepLaunch& given, record::Console& console) {
  const ranks::RankEnvironment& env = given.environment;
  const bool outside =
      env.launcher == ranks::Launcher::torchrun || env.launcher == ranks::Launcher::slurm;
  if (!outside || env.attempt == 0 || given.resume) return given;
  SweepLaunch launch = given;
  launch.resume = "";
  launch.restarted = true;
  console.line(
      fmt::format("{} restart {}: each unfinished run goes on from its newest complete "
                  "checkpoint",
                  ranks::launcher_name(env.launcher), env.attempt));
  return launch;
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
                   record::Console& console, std::ostream& errors, const SweepLaunch& given) {
  const SweepLaunch launch = restarted_by_the_launcher(given, console);
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
    check_output_folders(experiment, c.recording.results_path);
    results::ResultsFile::open(c.recording.results_path);  // a bad file fails before any run starts
    record::write_tensorboard_experiment(
        experiment);  // and so does a folder that cannot be written
    if (launch.resume) earlier_runs = results::read_runs(c.recording.results_path);
  }
  // Every run's choice is made before the first starts: a --resume that finds nothing to go
  // on from is refused before anything runs.
  std::vector<checkpoint::CheckpointSettings> checkpoints;
  std::vector<checkpoint::ResumeChoice> choices;
  for (const auto& run : experiment.runs) {
    checkpoints.push_back(checkpoint::checkpoint_settings(run, c.recording.results_path));
    choices.push_back(resume_choice(c, run, checkpoints.back(), earlier_runs));
  }
  if (writes && !launch.restarted)
    checkpoint::check_something_to_resume(launch.resume, choices, experiment,
                                          c.recording.results_path);
  // Held for the sweep: another runner training one of its runs into the same folders is
  // refused before any run starts, not found out in a pruned checkpoint.
  std::vector<std::shared_ptr<const checkpoint::RunFolderLock>> run_folder_locks;
  for (size_t i = 0; writes && i < experiment.runs.size(); ++i)
    if (choices[i].action != checkpoint::ResumeChoice::Action::keep &&
        (checkpoints[i].saves() || checkpoints[i].final_weights))
      run_folder_locks.push_back(checkpoint::lock_run_folder(checkpoints[i].run_folder));
  const ranks::LaunchContext launch_context = c.launch_context();
  ranks::OutsideLaunch outside(launch_context);
  std::vector<int> failed;
  std::set<std::string> groups;  // those this sweep wrote, went on with or kept
  const size_t total = experiment.runs.size();
  size_t completed = 0;                   // or kept, before an interrupt
  std::optional<size_t> interrupted_run;  // the run an interrupt stopped
  install_interrupt_handlers();
  for (size_t i = 0; i < total && !interrupt_signal(); ++i) {
    const auto& run = experiment.runs[i];
    console.run_started(fmt::format("run {}/{} {}{}", i + 1, total, run.id,
                                    run.label.empty() ? "" : "  " + run.label),
                        "");
    const checkpoint::ResumeChoice& resume = choices[i];
    if (resume.action == checkpoint::ResumeChoice::Action::keep) {
      console.line("  completed earlier: kept");
      groups.insert(resume.group);
      ++completed;
      continue;
    }
    if (writes && launch.restarted && resume.action == checkpoint::ResumeChoice::Action::go_on)
      record_launcher_restart(c, resume, earlier_runs);
    if (!resume.checkpoint.empty())
      console.line("  resuming from " + resume.checkpoint);
    else if (resume.action == checkpoint::ResumeChoice::Action::go_on)
      console.line("  no checkpoint to go on from: it starts over");
    record::RunOutcome outcome =
        run_one(c, outside, run, rank_setups[i], i, resume, resumed_from(checkpoints[i], resume));
    if (outcome.kind == record::RunOutcome::Kind::failed) {
      failed.push_back(outcome.exit_code);
      if (interrupt_signal()) interrupted_run = i;
    }
    if (outcome.kind == record::RunOutcome::Kind::completed) ++completed;
    groups.insert(outcome.group);
  }
  if (writes) {
    print_comparison(c.recording.results_path, groups, console);
    console.line("results: " + c.recording.results_path);
  }
  if (!interrupt_signal()) return experiment_exit_code(failed, total);
  if (writes) {
    const std::string command =
        outside_launcher(c) ? "the same launch with --resume" : resume_command(launch.rank_argv);
    const std::string how =
        interrupted_run
            ? interrupt_hint(experiment.runs[*interrupted_run].id,
                             checkpoints[*interrupted_run].run_folder, command, completed)
            : between_runs_hint(command, completed);
    errors << "runner: stopped by signal " << interrupt_signal() << ": " << how << '\n';
  }
  return 128 + interrupt_signal();
}

}  // namespace runner::sweep
