// A gzip file read as its decompressed bytes, in order, with zlib's inflate: damaged or cut-short
// data is an error naming the file, never fewer bytes. Private to the support library.
#pragma once

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace runner::datasets {

class GzipReader {
 public:
  // Throws a runner::DataError naming the file as `shown_as` when it cannot be opened.
  GzipReader(const std::filesystem::path& file, std::string shown_as);
  ~GzipReader();
  GzipReader(const GzipReader&) = delete;
  GzipReader& operator=(const GzipReader&) = delete;

  // Fills `out` with `count` bytes, or fewer where the gzip stream ends. Throws a
  // runner::DataError when the data is damaged or the file ends inside the stream.
  size_t read(char* out, size_t count);

  // Reads to the end of the stream, so that its trailer (CRC and length) is checked too.
  void read_to_end();

  // Decompressed bytes read so far.
  uint64_t offset() const { return stream_.total_out; }

  [[noreturn]] void fail(const std::string& what) const;

 private:
  bool fill_input();

  std::string shown_as_;
  FILE* file_ = nullptr;
  z_stream stream_{};
  std::vector<unsigned char> input_;
  bool ended_ = false;
};

}  // namespace runner::datasets
