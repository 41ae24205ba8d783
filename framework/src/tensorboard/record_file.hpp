// A file of TFRecords, the framing of TensorBoard's event files: each record is
//   uint64 length (little-endian), uint32 masked CRC-32C of those 8 bytes,
//   length bytes of data, uint32 masked CRC-32C of the data.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace runner::tensorboard {

// CRC-32C (Castagnoli), as TFRecord checks its lengths and data.
uint32_t crc32c(const void* data, size_t size);

// TFRecord stores a CRC rotated and offset, so a CRC of data that embeds CRCs stays strong.
uint32_t masked_crc32c(const void* data, size_t size);

// The framed bytes of one record holding `data`.
std::string frame_record(const std::string& data);

// Writes records to a new file (or replaces one). Failures throw DataError naming the file;
// a full disk throws DataError "no space left on <file>".
class RecordFile {
 public:
  explicit RecordFile(std::string path);
  ~RecordFile();
  RecordFile(const RecordFile&) = delete;
  RecordFile& operator=(const RecordFile&) = delete;

  void write(const std::string& data);
  // Hands what was written to the operating system: a process killed later leaves it whole.
  void flush();
  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail(const std::string& what) const;

  std::string path_;
  std::FILE* file_ = nullptr;
};

}  // namespace runner::tensorboard
