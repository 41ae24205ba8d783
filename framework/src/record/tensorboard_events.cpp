// A run's TensorBoard event files, written beside the results file.
#include "record/tensorboard_events.hpp"

#include <filesystem>

#include "record/record_run.hpp"
#include "runner/errors.hpp"
#include "tensorboard/event_file.hpp"
#include "tensorboard/folders.hpp"
#include "tensorboard/run_events.hpp"

namespace runner::record {
namespace {

// Sorts before the runs' own files, and is replaced whole by each sweep.
constexpr const char* kExperimentFile = "events.out.tfevents.0000000000.experiment";

std::vector<tensorboard::SweepPoint> sweep_points(const config::Experiment& experiment) {
  std::vector<tensorboard::SweepPoint> points;
  for (const auto& run : experiment.runs) points.push_back(sweep_point_of(run));
  return points;
}

std::string experiment_folder(const config::Experiment& experiment) {
  return tensorboard::experiment_folder(tensorboard_folder(experiment), experiment.name);
}

std::string run_folder(const config::Experiment& experiment, const config::RunConfig& run,
                       const std::string& group) {
  return tensorboard::run_folder(experiment_folder(experiment), run.label, group);
}

}  // namespace

std::string tensorboard_folder(const config::Experiment& experiment) {
  for (const auto& run : experiment.runs) {
    const std::string& folder = run.experiment.get_string("tensorboard");
    if (!folder.empty()) return folder;
  }
  return "";
}

void write_tensorboard_experiment(const config::Experiment& experiment) {
  if (tensorboard_folder(experiment).empty()) return;
  const std::string folder = experiment_folder(experiment);
  tensorboard::create_folder(folder);
  tensorboard::replace_event_file(
      (std::filesystem::path(folder) / kExperimentFile).string(),
      {tensorboard::experiment_event(experiment.name, sweep_points(experiment),
                                     tensorboard::wall_time_now())});
}

std::unique_ptr<results::RunWriter> with_tensorboard(const config::Experiment& experiment,
                                                     const config::RunConfig& run,
                                                     results::RunWriter& results) {
  if (tensorboard_folder(experiment).empty()) return nullptr;
  const std::string folder = run_folder(experiment, run, results.group_name());
  const tensorboard::RunSession session{
      sweep_point_of(run), tensorboard::hparam_types(sweep_points(experiment)), run.id};
  return std::make_unique<tensorboard::RunEvents>(results, folder, session);
}

void end_tensorboard_run(const config::Experiment& experiment, const config::RunConfig& run,
                         const std::string& group, results::Status status) {
  if (tensorboard_folder(experiment).empty()) return;
  const std::string folder = run_folder(experiment, run, group);
  if (!std::filesystem::is_directory(folder)) return;
  try {
    tensorboard::write_session_end(folder, status, 0);
  } catch (const Error&) {
  }
}

}  // namespace runner::record
