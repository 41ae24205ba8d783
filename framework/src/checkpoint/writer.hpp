// Saves a rank's shard of a checkpoint in the background: training waits only for the copy of
// its state to host memory. Rank 0 writes the manifest once every rank's shard is on disk,
// then removes the checkpoints the run keeps no longer.
#pragma once

#include <atomic>
#include <exception>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "checkpoint/manifest.hpp"
#include "runner/training_state.hpp"

namespace runner::checkpoint {

class ShardWriter {
 public:
  ShardWriter(std::string run_folder, int64_t keep, int rank, int world_size);
  ~ShardWriter();
  ShardWriter(const ShardWriter&) = delete;
  ShardWriter& operator=(const ShardWriter&) = delete;

  // Copies the pieces this rank saves to host memory, then writes them in the background to
  // the checkpoint of manifest.progress.global_step. `manifest`: rank 0's, shards left empty.
  // Waits for the previous save first, rethrowing its error.
  void save(const std::vector<StatePiece>& pieces, Manifest manifest);
  // Waits for the last save; rethrows its error (DataError naming the file).
  void finish();
  // Called (on the writing thread) with a save's global step once this rank's shard is on
  // disk (rank 0: every rank's), before the manifest commits the checkpoint.
  void before_commit(std::function<void(int64_t global_step)> hook) {
    before_commit_ = std::move(hook);
  }

 private:
  void write(const std::vector<StatePiece>& copies, Manifest manifest);
  std::vector<ShardRecord> wait_for_shards(const std::string& folder) const;

  std::string run_folder_;
  int64_t keep_;
  int rank_, world_size_;
  std::thread thread_;
  std::exception_ptr error_;
  std::atomic<bool> stopping_{false};
  std::function<void(int64_t)> before_commit_;
};

}  // namespace runner::checkpoint
