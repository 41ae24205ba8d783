// ShardWriter: the shard and its digest written on a thread; rank 0 adds the manifest, then prunes.
#include "checkpoint/writer.hpp"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "checkpoint/folders.hpp"
#include "checkpoint/reader.hpp"
#include "checkpoint/safetensors.hpp"
#include "common/output_path.hpp"
#include "common/started_threads.hpp"
#include "runner/errors.hpp"

namespace runner::checkpoint {
namespace {

namespace fs = std::filesystem;

// How long rank 0 waits for the other ranks' shards: the slowest disk of a large model.
constexpr auto kShardTimeout = std::chrono::minutes(30);

std::string digest_file(int rank) { return fmt::format("rank-{}.digest", rank); }

// Written whole or not at all: a synced temporary file, then renamed.
void write_text(const fs::path& path, const std::string& text) {
  write_file_whole(path.string(), text);
}

std::vector<NamedTensor> named(const std::vector<StatePiece>& pieces,
                               std::map<std::string, std::string>& metadata) {
  std::vector<NamedTensor> tensors;
  for (const auto& piece : pieces) {
    const std::string key = piece_key(piece);
    metadata[key] = placement_text(piece);
    tensors.push_back({key, piece.values});
  }
  return tensors;
}

}  // namespace

ShardWriter::ShardWriter(std::string run_folder, int64_t keep, int rank, int world_size)
    : run_folder_(std::move(run_folder)), keep_(keep), rank_(rank), world_size_(world_size) {}

ShardWriter::~ShardWriter() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

void ShardWriter::save(const std::vector<StatePiece>& pieces, Manifest manifest) {
  finish();
  std::vector<StatePiece> copies;
  for (const auto& piece : pieces) {
    if (!piece.saved) continue;
    StatePiece copy = piece;
    copy.values =
        piece.values.detach().to(torch::kCPU, /*non_blocking=*/false, /*copy=*/true).contiguous();
    copies.push_back(std::move(copy));
  }
  thread_ = started_thread("checkpoint writer", [this, copies = std::move(copies),
                                                 manifest = std::move(manifest)]() mutable {
    try {
      write(copies, std::move(manifest));
    } catch (const fs::filesystem_error& e) {
      error_ = std::make_exception_ptr(DataError(fmt::format(
          "cannot write the checkpoint in {}: {}", e.path1().string(), e.code().message())));
    } catch (...) {
      error_ = std::current_exception();
    }
  });
}

void ShardWriter::finish() {
  if (thread_.joinable()) thread_.join();
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void ShardWriter::write(const std::vector<StatePiece>& copies, Manifest manifest) {
  const fs::path folder = checkpoint_folder(run_folder_, manifest.progress.global_step);
  fs::create_directories(folder);
  std::map<std::string, std::string> metadata;
  const FileDigest digest =
      write_safetensors((folder / shard_file(rank_)).string(), named(copies, metadata), metadata);
  write_text(folder / digest_file(rank_), fmt::format("{} {}\n", digest.bytes, digest.crc32));
  if (rank_ != 0) {
    if (before_commit_) before_commit_(manifest.progress.global_step);
    return;
  }
  manifest.shards = wait_for_shards(folder.string());
  if (before_commit_) before_commit_(manifest.progress.global_step);
  write_text(folder / kManifestFile, manifest_text(manifest));
  std::error_code ignored;
  for (int r = 0; r < world_size_; ++r) fs::remove(folder / digest_file(r), ignored);
  prune(run_folder_, keep_);
}

// Each rank's digest, once its shard is whole.
std::vector<ShardRecord> ShardWriter::wait_for_shards(const std::string& folder) const {
  const auto give_up = std::chrono::steady_clock::now() + kShardTimeout;
  std::vector<ShardRecord> shards;
  for (int r = 0; r < world_size_; ++r) {
    const fs::path path = fs::path(folder) / digest_file(r);
    while (!fs::exists(path)) {
      if (stopping_ || std::chrono::steady_clock::now() > give_up)
        throw RunError(fmt::format("rank {}'s checkpoint shard in {} never came", r, folder));
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::ifstream in(path);
    ShardRecord shard{r, shard_file(r), {}};
    in >> shard.digest.bytes >> shard.digest.crc32;
    shards.push_back(shard);
  }
  return shards;
}

}  // namespace runner::checkpoint
