// When and where a run saves checkpoints ([checkpoint]), and the checkpoint it starts from.
#pragma once

#include <string>

#include "config/experiment.hpp"

namespace runner::checkpoint {

struct CheckpointSettings {
  int64_t every_epochs = 0, every_steps = 0, keep = 2;
  bool final_weights = false;    // [checkpoint] final_weights (true unless set otherwise)
  std::string run_folder;        // run_folder_in(dir, run): this run's checkpoints
  std::string resume_from;       // a checkpoint's folder to load first; empty: train from the start
  bool resume_verified = false;  // its shards were checked against their digests already
  bool saves() const { return every_epochs > 0 || every_steps > 0; }
  // The last checkpoint of a run that saves them holds its trained model already.
  bool saves_final_weights() const { return final_weights && !saves(); }
};

// `run`'s folder of checkpoints in `dir`: <dir>/<run id>, or <dir>/<earlier id> where only
// that one exists (written before the run's id left out where its outputs go).
std::string run_folder_in(const std::string& dir, const config::RunConfig& run);

// [checkpoint] of `run`; dir defaults to the results file's path without ".h5", plus
// ".checkpoints".
CheckpointSettings checkpoint_settings(const config::RunConfig& run,
                                       const std::string& results_path);

}  // namespace runner::checkpoint
