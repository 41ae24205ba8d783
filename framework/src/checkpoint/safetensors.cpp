// Writing safetensors files with their CRC digest, and reading a header and its tensors back.
#include "checkpoint/safetensors.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/file_kind.hpp"
#include "runner/errors.hpp"

namespace runner::checkpoint {
namespace {

using nlohmann::json;

// The safetensors name of each dtype a checkpoint holds.
const std::vector<std::pair<torch::Dtype, std::string>>& dtype_names() {
  static const std::vector<std::pair<torch::Dtype, std::string>> names = {
      {torch::kDouble, "F64"},    {torch::kFloat, "F32"}, {torch::kHalf, "F16"},
      {torch::kBFloat16, "BF16"}, {torch::kLong, "I64"},  {torch::kInt, "I32"},
      {torch::kShort, "I16"},     {torch::kChar, "I8"},   {torch::kByte, "U8"},
      {torch::kBool, "BOOL"}};
  return names;
}

std::string dtype_name(torch::Dtype dtype, const std::string& path) {
  for (const auto& [type, name] : dtype_names())
    if (type == dtype) return name;
  throw DataError("cannot write tensors of type " + std::string(c10::toString(dtype)) + " to " +
                  path);
}

torch::Dtype dtype_of(const std::string& name, const std::string& path) {
  for (const auto& [type, text] : dtype_names())
    if (text == name) return type;
  throw DataError(path + " holds a tensor of unknown type \"" + name + "\"");
}

// Writes bytes and keeps their CRC; the first failure throws, ENOSPC as "no space left".
// Plain write(2): every byte goes through the call a full disk fails.
class DigestingFile {
 public:
  DigestingFile(const std::string& path, const std::string& shown) : shown_(shown) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) fail();
  }
  ~DigestingFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  DigestingFile(const DigestingFile&) = delete;
  DigestingFile& operator=(const DigestingFile&) = delete;

  void write(const void* data, size_t size) {
    if (size == 0) return;  // an empty tensor's data is null, which restarts zlib's CRC
    digest_.crc32 =
        static_cast<uint32_t>(crc32_z(digest_.crc32, static_cast<const Bytef*>(data), size));
    digest_.bytes += size;
    const auto* bytes = static_cast<const char*>(data);
    while (size > 0) {
      const ssize_t written = ::write(fd_, bytes, size);
      if (written < 0 && errno == EINTR) continue;
      if (written <= 0) fail();
      bytes += written;
      size -= static_cast<size_t>(written);
    }
  }

  // On disk before the file is renamed into place: a crash leaves the old checkpoint or the
  // new one, never a named file with missing blocks.
  FileDigest close() {
    if (::fdatasync(fd_) != 0) fail();
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail();
    return digest_;
  }

 private:
  [[noreturn]] void fail() const {
    if (errno == ENOSPC || errno == EDQUOT)
      throw DataError("no space left on " + shown_,
                      "free space on its disk, or set [checkpoint] dir");
    if (errno == EFBIG)
      throw DataError("the file size limit (ulimit -f) stops the writing of " + shown_,
                      "raise the limit, or keep fewer checkpoints ([checkpoint] keep)");
    throw DataError("cannot write " + shown_ + ": " + std::strerror(errno));
  }

  int fd_ = -1;
  std::string shown_;
  FileDigest digest_;
};

std::string header_text(const std::vector<NamedTensor>& tensors,
                        const std::map<std::string, std::string>& metadata,
                        const std::string& path) {
  json header = json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  uint64_t offset = 0;
  for (const auto& [key, tensor] : tensors) {
    const uint64_t bytes = tensor.numel() * tensor.element_size();
    header[key] = {{"dtype", dtype_name(tensor.scalar_type(), path)},
                   {"shape", tensor.sizes().vec()},
                   {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // the data starts 8-byte aligned
  return text;
}

uint64_t little_endian(const unsigned char* bytes) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = value << 8 | bytes[i];
  return value;
}

TensorEntry entry_of(const std::string& key, const json& item, uint64_t data_size,
                     const std::string& path) {
  TensorEntry entry;
  entry.key = key;
  entry.dtype = dtype_of(item.at("dtype").get<std::string>(), path);
  entry.shape = item.at("shape").get<std::vector<int64_t>>();
  const auto offsets = item.at("data_offsets").get<std::vector<uint64_t>>();
  if (offsets.size() != 2) throw DataError(path + ": tensor \"" + key + "\" has no byte range");
  entry.begin = offsets[0];
  entry.end = offsets[1];
  uint64_t expected = c10::elementSize(entry.dtype);
  for (int64_t size : entry.shape) {
    if (size < 0) throw DataError(path + ": tensor \"" + key + "\" has a negative size");
    if (__builtin_mul_overflow(expected, static_cast<uint64_t>(size), &expected))
      throw DataError(path + ": tensor \"" + key + "\" is larger than any file");
  }
  if (entry.end < entry.begin || entry.end > data_size || entry.end - entry.begin != expected)
    throw DataError(path + ": tensor \"" + key + "\" lies outside the file (truncated?)");
  return entry;
}

}  // namespace

FileDigest write_safetensors(const std::string& path, const std::vector<NamedTensor>& tensors,
                             const std::map<std::string, std::string>& metadata) {
  const std::string temporary = path + ".tmp";
  try {
    DigestingFile out(temporary, path);
    const std::string header = header_text(tensors, metadata, path);
    unsigned char length[8];
    for (int i = 0; i < 8; ++i) length[i] = static_cast<unsigned char>(header.size() >> (8 * i));
    out.write(length, 8);
    out.write(header.data(), header.size());
    for (const auto& named : tensors) {
      const torch::Tensor values = named.tensor.contiguous();
      out.write(values.data_ptr(), values.numel() * values.element_size());
    }
    const FileDigest digest = out.close();
    if (std::rename(temporary.c_str(), path.c_str()) != 0)
      throw DataError("cannot write " + path + ": " + std::strerror(errno));
    return digest;
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw;
  }
}

SafetensorsHeader read_safetensors_header(const std::string& path) {
  refuse_special_input(path, "a safetensors file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError("cannot open " + path);
  const uint64_t file_size = std::filesystem::file_size(path);
  unsigned char length_bytes[8];
  if (!in.read(reinterpret_cast<char*>(length_bytes), 8))
    throw DataError(path + " is not a safetensors file (shorter than its header)");
  const uint64_t length = little_endian(length_bytes);
  if (length > file_size - 8)
    throw DataError(path + " is truncated (its header runs past its end)");
  std::string text(length, '\0');
  in.read(text.data(), static_cast<std::streamsize>(length));
  SafetensorsHeader header;
  header.data_start = 8 + length;
  try {
    const json parsed = json::parse(text);
    for (const auto& [key, item] : parsed.items()) {
      if (key == "__metadata__")
        header.metadata = item.get<std::map<std::string, std::string>>();
      else
        header.tensors.push_back(entry_of(key, item, file_size - header.data_start, path));
    }
  } catch (const json::exception& e) {
    throw DataError(path + " has a damaged header: " + e.what());
  }
  return header;
}

torch::Tensor read_tensor(const std::string& path, const SafetensorsHeader& header,
                          const TensorEntry& entry) {
  torch::Tensor tensor = torch::empty(entry.shape, torch::TensorOptions().dtype(entry.dtype));
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(header.data_start + entry.begin));
  if (!in.read(static_cast<char*>(tensor.data_ptr()),
               static_cast<std::streamsize>(entry.end - entry.begin)))
    throw DataError("cannot read tensor \"" + entry.key + "\" of " + path + " (truncated?)");
  return tensor;
}

FileDigest digest_of(const std::string& path) {
  refuse_special_input(path, "a checkpoint's file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError("cannot open " + path);
  FileDigest digest;
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto got = static_cast<size_t>(in.gcount());
    digest.crc32 = static_cast<uint32_t>(
        crc32_z(digest.crc32, reinterpret_cast<const Bytef*>(buffer.data()), got));
    digest.bytes += got;
  }
  return digest;
}

}  // namespace runner::checkpoint
