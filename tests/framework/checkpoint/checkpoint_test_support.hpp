// Shared by the checkpoint tests: an empty scratch folder, and a checkpoint written by hand.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "checkpoint/folders.hpp"
#include "checkpoint/manifest.hpp"
#include "checkpoint/reader.hpp"
#include "checkpoint/safetensors.hpp"

namespace runner::testing {

// /tmp/runner-checkpoint-tests/<name>, empty.
inline std::string fresh_folder(const std::string& name) {
  const auto folder = std::filesystem::temp_directory_path() / "runner-checkpoint-tests" / name;
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  return folder.string();
}

// A complete checkpoint of the run folder at `step`: shard r holds shards[r].
inline std::string write_checkpoint(const std::string& run_folder, int64_t step,
                                    const std::vector<std::vector<StatePiece>>& shards) {
  const std::string folder = checkpoint::checkpoint_folder(run_folder, step);
  std::filesystem::create_directories(folder);
  checkpoint::Manifest manifest;
  manifest.experiment = "exp";
  manifest.run_id = "run";
  manifest.world_size = static_cast<int>(shards.size());
  manifest.progress.global_step = step;
  for (size_t r = 0; r < shards.size(); ++r) {
    std::vector<checkpoint::NamedTensor> tensors;
    std::map<std::string, std::string> metadata;
    for (const auto& piece : shards[r]) {
      tensors.push_back({checkpoint::piece_key(piece), piece.values});
      metadata[checkpoint::piece_key(piece)] = checkpoint::placement_text(piece);
    }
    const std::string file = checkpoint::shard_file(static_cast<int>(r));
    manifest.shards.push_back(
        {static_cast<int>(r), file,
         checkpoint::write_safetensors(folder + "/" + file, tensors, metadata)});
  }
  std::ofstream(folder + "/" + checkpoint::kManifestFile) << checkpoint::manifest_text(manifest);
  return folder;
}

}  // namespace runner::testing
