// A checkpoint's manifest (manifest.json): who wrote it, where training stood, the host's own
// state of the run, and each rank's shard with its digest. Written last, by rank 0, once every
// shard is whole: a folder without one is not a checkpoint.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "checkpoint/safetensors.hpp"

namespace runner::checkpoint {

inline constexpr int kFormatVersion = 1;

struct ShardRecord {
  int rank = 0;
  std::string file;  // in the checkpoint's folder
  FileDigest digest;
};

// Where training stood when the checkpoint was taken.
struct Progress {
  int64_t global_step = 0;
  int64_t epoch = 1;          // the epoch in progress (1-based)
  int64_t step_in_epoch = 0;  // its steps done; 0: the epoch has not begun
};

struct Manifest {
  int format_version = kFormatVersion;
  std::string runner_version;
  std::string experiment, run_id, model, strategy;
  int world_size = 1;
  Progress progress;
  nlohmann::json engine = nlohmann::json::object();  // the host's state of the run
  // The model's weights at the run's end, without the optimizer's state or the host's: for
  // `runner export`, never resumed from.
  bool weights_only = false;
  std::vector<ShardRecord> shards;
  std::string written_at;  // ISO 8601, UTC
};

std::string manifest_text(const Manifest& manifest);

// Throws DataError naming the file when it is missing, damaged, or of another format version.
Manifest read_manifest(const std::string& path);

}  // namespace runner::checkpoint
