// What `--resume` does with each run of an experiment: a completed run is kept as it is, an
// unfinished one goes on in its own results group from its latest complete checkpoint, and a
// run never started (or with no checkpoint) trains from the start.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "checkpoint/settings.hpp"
#include "config/experiment.hpp"
#include "results/results.hpp"

namespace runner::checkpoint {

// nullopt: no --resume. "": each run's latest checkpoint. Otherwise a checkpoint's folder (for
// the run it was written by, or for the experiment's only run, which may then differ from it
// in its layout: another world size or strategy) or a folder of runs' checkpoint folders (in
// place of [checkpoint] dir).
using ResumeRequest = std::optional<std::string>;

struct ResumeChoice {
  enum class Action { start, keep, go_on } action = Action::start;
  std::string group;              // the run's group in the results file; empty: a new one
  std::string checkpoint;         // the folder to load; empty: from the start
  int64_t epochs = 0, steps = 0;  // what the run had recorded when the checkpoint was taken
  int64_t global_step = 0;        // the training steps the checkpoint had done
};

// Checks what `request` names before anything is run or written. Throws ConfigError when it
// names a path that is neither a checkpoint nor a folder, a folder holding neither a checkpoint
// nor a folder of one of the experiment's runs, or a checkpoint of none of the experiment's
// runs; DataError when it names a checkpoint of another experiment, or one that fails the
// checks of resume_checkpoint.
void check_resume_request(const ResumeRequest& request, const config::Experiment& experiment);

// The run's folder of checkpoints, the request's folder in place of [checkpoint] dir.
std::string resume_run_folder(const ResumeRequest& request, const config::RunConfig& run,
                              const CheckpointSettings& settings);

// The checkpoint the run goes on from, when it has one, checked before it is trusted: its
// shards against their digests and against each other (every saved tensor whole), its
// manifest against the run (experiment, model, run, epochs) and against the shards (each rank's
// entries). The request's own checkpoint is taken as check_resume_request checked it; else the
// newest one that passes; one that does not is named on `warnings` and an older one taken.
// `only_run`: the experiment has no other run.
std::optional<std::string> resume_checkpoint(const ResumeRequest& request,
                                             const config::RunConfig& run, bool only_run,
                                             const CheckpointSettings& settings,
                                             std::ostream& warnings);

// The newest complete checkpoint in the run's folder that a run can go on from: a run's final
// weights are none.
std::optional<std::string> latest_to_go_on_from(const std::string& run_folder);

// Throws ConfigError when `--resume` finds nothing: no run of the experiment completed in the
// results file at `results_path` and none has a checkpoint to go on from. `choices`: each
// run's, in order.
void check_something_to_resume(const ResumeRequest& request,
                               const std::vector<ResumeChoice>& choices,
                               const config::Experiment& experiment,
                               const std::string& results_path);

// The plan for `run` from the last of `earlier_runs` (the results file's runs when the sweep
// began: read once, not once a run) of its id, and from its checkpoints. Throws ConfigError
// when the request names a checkpoint of the run and the run completed earlier.
ResumeChoice choose_resume(const ResumeRequest& request, const config::RunConfig& run,
                           bool only_run, const CheckpointSettings& settings,
                           const std::vector<results::RunRecord>& earlier_runs,
                           std::ostream& warnings);

// Where a run restarted after a failure goes on from: the newest checkpoint of its folder that
// passes resume_checkpoint's checks (one a failure cut short has no manifest and is passed
// over), or the start (an empty checkpoint) without one.
ResumeChoice restart_point(const config::RunConfig& run, const CheckpointSettings& settings,
                           std::ostream& warnings);

}  // namespace runner::checkpoint
