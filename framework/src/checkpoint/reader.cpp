// CheckpointReader: shards verified against the manifest, indexed, and whole tensors assembled.
#include "checkpoint/reader.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <utility>

#include "checkpoint/folders.hpp"
#include "runner/errors.hpp"

namespace runner::checkpoint {
namespace {

using nlohmann::json;

std::string path_in(const std::string& folder, const std::string& file) {
  return (std::filesystem::path(folder) / file).string();
}

std::string shape_text(const std::vector<int64_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

// The region of `whole` a piece covers.
torch::Tensor region_of(const torch::Tensor& whole, int64_t dim, int64_t start,
                        const torch::Tensor& piece) {
  if (dim < 0) return whole.view(-1).narrow(0, start, piece.numel()).view(piece.sizes());
  return whole.narrow(dim, start, piece.size(dim));
}

// The elements of a shape; -1 when a size is negative or the count overflows.
int64_t numel_of(const std::vector<int64_t>& shape) {
  int64_t numel = 1;
  for (int64_t size : shape)
    if (size < 0 || __builtin_mul_overflow(numel, size, &numel)) return -1;
  return numel;
}

// A piece is a flat range of its whole tensor (dim < 0: a vector, or the whole tensor in its
// own shape) or a range along one dim with every other size the whole's: a piece of the right
// element count in another shape does not fit.
bool fits(const std::vector<int64_t>& whole_shape, int64_t dim, int64_t start,
          const torch::Tensor& piece) {
  const int64_t numel = numel_of(whole_shape);
  if (start < 0 || numel < 0) return false;
  if (dim < 0)
    return (piece.dim() <= 1 || piece.sizes().vec() == whole_shape) &&
           start + piece.numel() <= numel;
  if (dim >= static_cast<int64_t>(whole_shape.size()) ||
      piece.dim() != static_cast<int64_t>(whole_shape.size()))
    return false;
  for (int64_t d = 0; d < piece.dim(); ++d)
    if (d != dim && piece.size(d) != whole_shape[static_cast<size_t>(d)]) return false;
  return start + piece.size(dim) <= whole_shape[static_cast<size_t>(dim)];
}

// Whether the [begin, end) ranges of the pieces, along their dim or flat, cover [0, size).
bool ranges_cover(std::vector<std::pair<int64_t, int64_t>> ranges, int64_t size) {
  std::sort(ranges.begin(), ranges.end());
  int64_t covered = 0;
  for (const auto& [begin, end] : ranges) {
    if (begin > covered) return false;
    covered = std::max(covered, end);
  }
  return covered >= size;
}

}  // namespace

std::string piece_key(const StatePiece& piece) {
  return fmt::format("{}@{}:{}", piece.name, piece.dim, piece.start);
}

std::string placement_text(const StatePiece& piece) {
  return json{{"whole_shape", piece.whole_shape}, {"dim", piece.dim}, {"start", piece.start}}
      .dump();
}

void verify(const std::string& folder) {
  const Manifest manifest = read_manifest(path_in(folder, kManifestFile));
  for (const auto& shard : manifest.shards) {
    const std::string path = path_in(folder, shard.file);
    if (!std::filesystem::exists(path)) throw DataError("checkpoint shard " + path + " is missing");
    const FileDigest digest = digest_of(path);
    if (digest.bytes != shard.digest.bytes)
      throw DataError(
          fmt::format("checkpoint shard {} has {} bytes, its manifest says {} "
                      "(truncated?)",
                      path, digest.bytes, shard.digest.bytes));
    if (digest.crc32 != shard.digest.crc32)
      throw DataError("checkpoint shard " + path +
                      " is damaged: its checksum differs from the "
                      "manifest's");
  }
}

CheckpointReader::CheckpointReader(std::string folder)
    : folder_(std::move(folder)), manifest_(read_manifest(path_in(folder_, kManifestFile))) {
  for (size_t i = 0; i < manifest_.shards.size(); ++i) {
    shard_paths_.push_back(path_in(folder_, manifest_.shards[i].file));
    headers_.push_back(read_safetensors_header(shard_paths_.back()));
    index_shard(i);
  }
}

void CheckpointReader::index_shard(size_t shard) {
  const SafetensorsHeader& header = headers_[shard];
  for (const auto& entry : header.tensors) {
    const auto at = entry.key.rfind('@');
    const auto placement = header.metadata.find(entry.key);
    if (at == std::string::npos || placement == header.metadata.end())
      throw DataError(shard_paths_[shard] + ": tensor \"" + entry.key + "\" has no placement");
    try {
      const json j = json::parse(placement->second);
      SavedPiece piece{shard, entry, j.at("whole_shape").get<std::vector<int64_t>>(),
                       j.at("dim").get<int64_t>(), j.at("start").get<int64_t>()};
      if (!fits(piece.whole_shape, piece.dim, piece.start,
                torch::empty(entry.shape, torch::TensorOptions().device(torch::kMeta))))
        throw DataError(shard_paths_[shard] + ": tensor \"" + entry.key +
                        "\" lies outside its whole tensor");
      pieces_[entry.key.substr(0, at)].push_back(std::move(piece));
    } catch (const json::exception& e) {
      throw DataError(shard_paths_[shard] + ": the placement of \"" + entry.key + "\" is damaged");
    }
  }
}

void CheckpointReader::check_complete() const {
  for (const auto& [name, saved] : pieces_) {
    const SavedPiece& first = saved.front();
    std::vector<std::pair<int64_t, int64_t>> ranges;
    for (const auto& piece : saved) {
      if (piece.whole_shape != first.whole_shape || piece.dim != first.dim)
        throw DataError("checkpoint " + folder_ + ": the pieces of \"" + name +
                        "\" do not fit together (" + shard_paths_[piece.shard] + ")");
      const int64_t length = piece.dim < 0 ? numel_of(piece.entry.shape)
                                           : piece.entry.shape[static_cast<size_t>(piece.dim)];
      ranges.emplace_back(piece.start, piece.start + length);
    }
    const int64_t size = first.dim < 0 ? numel_of(first.whole_shape)
                                       : first.whole_shape[static_cast<size_t>(first.dim)];
    if (!ranges_cover(ranges, size))
      throw DataError("checkpoint " + folder_ + " holds only part of \"" + name + "\"",
                      "a rank's shard is missing from it, or is of another run");
  }
}

std::vector<std::string> CheckpointReader::names() const {
  std::vector<std::string> names;
  for (const auto& [name, pieces] : pieces_) names.push_back(name);
  return names;
}

torch::Tensor CheckpointReader::whole(const std::string& name) {
  if (name == cached_name_) return cached_;
  const auto found = pieces_.find(name);
  if (found == pieces_.end())
    throw DataError("checkpoint " + folder_ + " has no \"" + name + "\"",
                    "it was written for another model or strategy");
  const auto& saved = found->second;
  const std::vector<int64_t>& shape = saved.front().whole_shape;
  torch::Tensor whole =
      torch::empty(shape, torch::TensorOptions().dtype(saved.front().entry.dtype));
  torch::Tensor covered = torch::zeros(shape, torch::kBool);
  for (const auto& piece : saved) {
    const torch::Tensor values =
        read_tensor(shard_paths_[piece.shard], headers_[piece.shard], piece.entry);
    if (piece.whole_shape != shape || !fits(shape, piece.dim, piece.start, values))
      throw DataError("checkpoint " + folder_ + ": the pieces of \"" + name +
                      "\" do not fit together");
    region_of(whole, piece.dim, piece.start, values).copy_(values);
    region_of(covered, piece.dim, piece.start, values).fill_(true);
  }
  if (!covered.all().item<bool>())
    throw DataError("checkpoint " + folder_ + " holds only part of \"" + name + "\"",
                    "a rank's shard is missing from it");
  cached_name_ = name;
  cached_ = whole;
  return whole;
}

void CheckpointReader::read_into(const StatePiece& piece) {
  const torch::Tensor saved = whole(piece.name);
  if (saved.sizes().vec() != piece.whole_shape)
    throw DataError("checkpoint " + folder_ + ": \"" + piece.name + "\" is " +
                        shape_text(saved.sizes().vec()) + " there and " +
                        shape_text(piece.whole_shape) + " in this run",
                    "it was written for another model shape");
  RUNNER_CHECK(fits(piece.whole_shape, piece.dim, piece.start, piece.values),
               "a piece within its whole tensor");
  torch::NoGradGuard no_grad;
  piece.values.copy_(region_of(saved, piece.dim, piece.start, piece.values));
}

}  // namespace runner::checkpoint
