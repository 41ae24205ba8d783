// `--resume` planned per run: keep it, go on from a checkpoint, or start it.
#include "checkpoint/resume_choice.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "checkpoint/folders.hpp"
#include "checkpoint/manifest.hpp"
#include "checkpoint/reader.hpp"
#include "checkpoint/run_state.hpp"
#include "common/file_kind.hpp"
#include "runner/errors.hpp"

namespace runner::checkpoint {
namespace {

namespace fs = std::filesystem;

std::string manifest_of(const std::string& folder) {
  return (fs::path(folder) / kManifestFile).string();
}

bool names_a_checkpoint(const ResumeRequest& request) {
  return request && !request->empty() && fs::exists(manifest_of(*request));
}

bool is_checkpoint_of(const std::string& folder, const config::RunConfig& run) {
  return config::is_id_of(run, read_manifest(manifest_of(folder)).run_id);
}

// The checkpoint that `request` names for `run`, when it names one.
bool names_checkpoint_for(const ResumeRequest& request, const config::RunConfig& run,
                          bool only_run) {
  return names_a_checkpoint(request) && (only_run || is_checkpoint_of(*request, run));
}

// A checkpoint `run` can go on from: its shards as its manifest lists them and whole, written
// by this experiment's model (by this very run unless `any_run`), its engine's state
// consistent and within the run's epochs. Throws DataError naming the first check it fails.
void check_checkpoint(const std::string& folder, const config::RunConfig& run, bool any_run) {
  verify(folder);
  const CheckpointReader reader(folder);
  const Manifest& m = reader.manifest();
  if (m.weights_only)
    throw DataError(fmt::format("checkpoint {} holds a run's final weights only, not its "
                                "training state: nothing to go on from",
                                folder),
                    "runner export writes those weights out; [checkpoint] every_epochs or "
                    "every_steps saves checkpoints a run can resume from");
  const std::string experiment = run.experiment.get_string("name");
  if (m.experiment != experiment || m.model != run.model.name)
    throw DataError(fmt::format("checkpoint {} is of experiment '{}' with model '{}', not of '{}' "
                                "with model '{}'",
                                folder, m.experiment, m.model, experiment, run.model.name),
                    "resume a run from a checkpoint of its own experiment");
  if (!any_run && !config::is_id_of(run, m.run_id))
    throw DataError(fmt::format("checkpoint {} is of run {}, not of run {} whose folder holds it",
                                folder, m.run_id, run.id));
  reader.check_complete();
  check_engine_state(reader);
  check_progress_fits(m, folder, run.train.epochs, std::nullopt);
}

void warn_passed_over(std::ostream& warnings, const std::string& why) {
  warnings << "runner: warning: " << why << "; an earlier checkpoint is taken\n";
}

bool holds_final_weights(const std::string& folder) {
  try {
    return read_manifest(manifest_of(folder)).weights_only;
  } catch (const DataError&) {
    return false;  // check_checkpoint names what is wrong with it
  }
}

// The newest checkpoint of the run's folder that passes check_checkpoint. A folder whose save
// was cut short (no manifest), and a run's final weights, are passed over in silence.
std::optional<std::string> newest_intact(const std::string& run_folder,
                                         const config::RunConfig& run, std::ostream& warnings) {
  const auto folders = step_folders(run_folder);
  for (auto it = folders.rbegin(); it != folders.rend(); ++it) {
    if (!fs::exists(manifest_of(*it)) || holds_final_weights(*it)) continue;
    try {
      check_checkpoint(*it, run, false);
      return *it;
    } catch (const DataError& e) {
      warn_passed_over(warnings, e.what());
    }
  }
  return std::nullopt;
}

// The run's last group in the results file, when it has one.
const results::RunRecord* last_record(const std::vector<results::RunRecord>& runs,
                                      const config::RunConfig& run) {
  const results::RunRecord* last = nullptr;
  for (const auto& record : runs)
    if (config::is_id_of(run, record.header.run_id)) last = &record;
  return last;
}

// `plan` going on from `checkpoint`, with what the run had recorded when it was taken.
ResumeChoice going_on_from(const std::string& checkpoint, ResumeChoice plan) {
  const Manifest manifest = read_manifest(manifest_of(checkpoint));
  plan.action = ResumeChoice::Action::go_on;
  plan.checkpoint = checkpoint;
  plan.epochs = manifest.engine.value("epochs_recorded", int64_t{0});
  plan.steps = manifest.engine.value("steps_recorded", int64_t{0});
  plan.global_step = manifest.progress.global_step;
  return plan;
}

}  // namespace

void check_resume_request(const ResumeRequest& request, const config::Experiment& experiment) {
  if (!request || request->empty()) return;
  if (fs::exists(*request) && !fs::is_directory(*request))
    throw ConfigError(fmt::format("--resume {}: is {}, not a folder", *request,
                                  special_file_type(*request).value_or("a file")),
                      "give a checkpoint's folder (step-...) or the folder holding the runs' "
                      "checkpoint folders");
  if (!fs::is_directory(*request))
    throw ConfigError(fmt::format("--resume {}: no such folder", *request),
                      "give a checkpoint's folder (step-...) or the folder holding the runs' "
                      "checkpoint folders");
  if (!names_a_checkpoint(request)) {
    for (const auto& run : experiment.runs)
      if (fs::is_directory(run_folder_in(*request, run))) return;
    throw ConfigError(fmt::format("--resume {}: the folder holds no checkpoint (no {}) and no "
                                  "checkpoints of this experiment's runs (a folder named by a "
                                  "run's id)",
                                  *request, kManifestFile),
                      "give a checkpoint's folder (step-...) or the folder holding the runs' "
                      "checkpoint folders; --resume alone takes each run's own");
  }
  const Manifest manifest = read_manifest(manifest_of(*request));
  if (manifest.experiment != experiment.name)
    throw DataError(fmt::format("checkpoint {} is of experiment '{}', not of '{}'", *request,
                                manifest.experiment, experiment.name),
                    "resume a run from a checkpoint of its own experiment");
  for (const auto& run : experiment.runs)
    if (config::is_id_of(run, manifest.run_id) || experiment.runs.size() == 1)
      return check_checkpoint(*request, run, true);
  throw ConfigError(fmt::format("--resume {}: the checkpoint is of run {} of experiment '{}', "
                                "which {} does not have",
                                *request, manifest.run_id, manifest.experiment, experiment.file),
                    "a run's id covers every resolved key but [checkpoint] and where the "
                    "outputs go: a changed key makes another run; resume it alone (one run) "
                    "to load it anyway");
}

std::string resume_run_folder(const ResumeRequest& request, const config::RunConfig& run,
                              const CheckpointSettings& settings) {
  if (!request || request->empty() || names_a_checkpoint(request)) return settings.run_folder;
  return run_folder_in(*request, run);
}

std::optional<std::string> resume_checkpoint(const ResumeRequest& request,
                                             const config::RunConfig& run, bool only_run,
                                             const CheckpointSettings& settings,
                                             std::ostream& warnings) {
  if (!request) return std::nullopt;
  if (names_checkpoint_for(request, run, only_run)) return *request;  // check_resume_request's
  return newest_intact(resume_run_folder(request, run, settings), run, warnings);
}

std::optional<std::string> latest_to_go_on_from(const std::string& run_folder) {
  const auto complete = complete_checkpoints(run_folder);
  for (auto it = complete.rbegin(); it != complete.rend(); ++it)
    if (!holds_final_weights(*it)) return *it;
  return std::nullopt;
}

void check_something_to_resume(const ResumeRequest& request,
                               const std::vector<ResumeChoice>& choices,
                               const config::Experiment& experiment,
                               const std::string& results_path) {
  if (!request) return;
  for (const auto& choice : choices)
    if (choice.action == ResumeChoice::Action::keep || !choice.checkpoint.empty()) return;
  const std::string where = request->empty() ? "" : " in " + *request;
  const std::string what =
      choices.size() == 1
          ? fmt::format("its run did not complete in {} and saved no checkpoint to go on from{}",
                        results_path, where)
          : fmt::format(
                "none of its {} runs completed in {} or saved a checkpoint to go on "
                "from{}",
                choices.size(), results_path, where);
  throw ConfigError(fmt::format("--resume: nothing to resume in {}: {}", experiment.file, what),
                    "run it without --resume to start; [checkpoint] every_epochs or every_steps "
                    "saves checkpoints that --resume goes on from");
}

ResumeChoice choose_resume(const ResumeRequest& request, const config::RunConfig& run,
                           bool only_run, const CheckpointSettings& settings,
                           const std::vector<results::RunRecord>& earlier_runs,
                           std::ostream& warnings) {
  ResumeChoice plan;
  if (!request) return plan;
  const results::RunRecord* last = last_record(earlier_runs, run);
  if (last && last->status == results::Status::completed) {
    if (names_checkpoint_for(request, run, only_run))
      throw ConfigError(fmt::format("--resume {}: run {} completed earlier (group {} of the "
                                    "results file): there is nothing to go on with",
                                    *request, run.id, last->group),
                        "to train from the checkpoint again, write to another results file "
                        "([experiment] results)");
    return {ResumeChoice::Action::keep, last->group, "", 0, 0};
  }
  if (last) {
    plan.action = ResumeChoice::Action::go_on;
    plan.group = last->group;
  }
  const auto checkpoint = resume_checkpoint(request, run, only_run, settings, warnings);
  return checkpoint ? going_on_from(*checkpoint, plan) : plan;
}

ResumeChoice restart_point(const config::RunConfig& run, const CheckpointSettings& settings,
                           std::ostream& warnings) {
  ResumeChoice plan;
  plan.action = ResumeChoice::Action::go_on;
  const auto checkpoint = newest_intact(settings.run_folder, run, warnings);
  return checkpoint ? going_on_from(*checkpoint, plan) : plan;
}

}  // namespace runner::checkpoint
