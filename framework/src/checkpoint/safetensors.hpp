// The safetensors format (https://github.com/huggingface/safetensors): an 8-byte little-endian
// header length, a JSON header naming each tensor's dtype, shape and byte range, then the
// bytes. Checkpoint shards and exported weights are such files, so Python reads them as they
// are.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace runner::checkpoint {

struct NamedTensor {
  std::string key;
  torch::Tensor tensor;  // on the CPU
};

// What a file holds: its size and the CRC-32 (zlib's) of all its bytes.
struct FileDigest {
  uint64_t bytes = 0;
  uint32_t crc32 = 0;
  bool operator==(const FileDigest& o) const { return bytes == o.bytes && crc32 == o.crc32; }
};

// Writes `tensors` and `metadata` to `path` + ".tmp", then renames it to `path`: a reader
// never sees half a file. Throws DataError naming the file ("no space left on <file>").
FileDigest write_safetensors(const std::string& path, const std::vector<NamedTensor>& tensors,
                             const std::map<std::string, std::string>& metadata);

struct TensorEntry {
  std::string key;
  torch::Dtype dtype = torch::kFloat;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;  // bytes, from the start of the data
};

struct SafetensorsHeader {
  std::vector<TensorEntry> tensors;
  std::map<std::string, std::string> metadata;
  uint64_t data_start = 0;  // of the data, in the file
};

// Throws DataError naming the file when it is not a whole safetensors file.
SafetensorsHeader read_safetensors_header(const std::string& path);

// The tensor of `entry`, read from the file.
torch::Tensor read_tensor(const std::string& path, const SafetensorsHeader& header,
                          const TensorEntry& entry);

// The digest of the file as it is on disk. Throws DataError naming it when it cannot be read.
FileDigest digest_of(const std::string& path);

}  // namespace runner::checkpoint
