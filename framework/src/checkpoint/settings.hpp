// When and where a run saves checkpoints ([checkpoint]), and the checkpoint it starts from.
#pragma once

#include <string>

#include "config/experiment.hpp"

namespace runner::checkpoint {

struct CheckpointSettings {
  int64_t every_epochs = 0, every_steps = 0, keep = 2;
  std::string run_folder;        // <dir>/<run id>: this run's checkpoints
  std::string resume_from;       // a checkpoint's folder to load first; empty: train from the start
  bool resume_verified = false;  // its shards were checked against their digests already
  bool saves() const { return every_epochs > 0 || every_steps > 0; }
};

// [checkpoint] of `run`; dir defaults to the results file's path without ".h5", plus
// ".checkpoints".
CheckpointSettings checkpoint_settings(const config::RunConfig& run,
                                       const std::string& results_path);

}  // namespace runner::checkpoint
