// Reads a complete checkpoint back: each rank assembles the whole tensors its pieces are part
// of from whichever shards hold them, so a layout other than the writer's can load it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "checkpoint/manifest.hpp"
#include "checkpoint/safetensors.hpp"
#include "runner/training_state.hpp"

namespace runner::checkpoint {

// Checks every shard of the checkpoint against the manifest's digest. Throws DataError naming
// the shard that is missing, truncated or damaged.
void verify(const std::string& folder);

class CheckpointReader {
 public:
  // Throws DataError naming the folder when it has no readable manifest or shard headers.
  explicit CheckpointReader(std::string folder);

  const Manifest& manifest() const { return manifest_; }
  const std::string& folder() const { return folder_; }
  bool contains(const std::string& name) const { return pieces_.count(name) != 0; }
  // Throws DataError naming the checkpoint when a saved tensor's pieces disagree on its shape
  // or leave part of it uncovered (a shard of another run or layout): what `whole` would find,
  // from the shards' headers alone.
  void check_complete() const;
  // The names of the whole tensors saved, in order.
  std::vector<std::string> names() const;

  // The saved values of piece's part of its whole tensor, copied into piece.values. Throws
  // DataError naming the checkpoint when the tensor is missing, has another whole shape (a
  // checkpoint of another model), or was not saved whole.
  void read_into(const StatePiece& piece);
  // (its whole shape) the whole tensor `name`, assembled from its pieces.
  torch::Tensor whole(const std::string& name);

 private:
  struct SavedPiece {
    size_t shard = 0;
    TensorEntry entry;
    std::vector<int64_t> whole_shape;
    int64_t dim = -1, start = 0;
  };
  void index_shard(size_t shard);

  std::string folder_;
  Manifest manifest_;
  std::vector<std::string> shard_paths_;
  std::vector<SafetensorsHeader> headers_;
  std::map<std::string, std::vector<SavedPiece>> pieces_;
  std::string cached_name_;
  torch::Tensor cached_;
};

// The key of a piece in its shard, and the metadata that places it in its whole tensor.
std::string piece_key(const StatePiece& piece);
std::string placement_text(const StatePiece& piece);

}  // namespace runner::checkpoint
