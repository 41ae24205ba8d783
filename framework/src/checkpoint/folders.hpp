// Where a run's checkpoints live: <run folder>/step-<global step, 9 digits>/, each holding
// manifest.json and one rank-<r>.safetensors per rank.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace runner::checkpoint {

inline constexpr const char* kManifestFile = "manifest.json";

std::string checkpoint_folder(const std::string& run_folder, int64_t global_step);
std::string shard_file(int rank);

// Every step folder of the run folder, complete or not, oldest first.
std::vector<std::string> step_folders(const std::string& run_folder);

// The complete checkpoints of the run folder (a readable manifest, every shard it lists
// there with its listed size), oldest first. A missing folder has none.
std::vector<std::string> complete_checkpoints(const std::string& run_folder);
std::optional<std::string> latest_complete(const std::string& run_folder);

// When the checkpoint's manifest was committed; the epoch for "" or a folder without one.
std::chrono::system_clock::time_point committed_at(const std::string& checkpoint);

// Removes the checkpoints, complete or not, of steps after `global_step`: what a run that goes
// on from `global_step` (or starts afresh, at 0) will write again.
void remove_after(const std::string& run_folder, int64_t global_step);

// Keeps the `keep` latest complete checkpoints; removes the older ones and any incomplete
// folder older than the latest complete one (a save that was cut short).
void prune(const std::string& run_folder, int64_t keep);

}  // namespace runner::checkpoint
