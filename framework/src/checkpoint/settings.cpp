// [checkpoint] read into when and where a run saves, and what it resumes from.
#include "checkpoint/settings.hpp"

#include <filesystem>

namespace runner::checkpoint {

std::string run_folder_in(const std::string& dir, const config::RunConfig& run) {
  const std::filesystem::path current = std::filesystem::path(dir) / run.id;
  const std::filesystem::path earlier = std::filesystem::path(dir) / run.earlier_id;
  if (!std::filesystem::exists(current) && !run.earlier_id.empty() &&
      std::filesystem::is_directory(earlier))
    return earlier.string();
  return current.string();
}

CheckpointSettings checkpoint_settings(const config::RunConfig& run,
                                       const std::string& results_path) {
  const Options& keys = run.checkpoint;
  CheckpointSettings settings;
  settings.every_epochs = keys.get_int("every_epochs");
  settings.every_steps = keys.get_int("every_steps");
  settings.keep = keys.get_int("keep");
  settings.final_weights = keys.get_bool("final_weights");
  std::filesystem::path dir = keys.get_string("dir");
  if (dir.empty()) dir = std::filesystem::path(results_path).replace_extension(".checkpoints");
  settings.run_folder = run_folder_in(dir.string(), run);
  return settings;
}

}  // namespace runner::checkpoint
