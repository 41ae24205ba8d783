// GzipReader: fread into a buffer, inflate it (gzip header and trailer), errors with zlib's reason.
#include "gzip_reader.hpp"

#include <runner/errors.hpp>

#include <cerrno>
#include <cstring>
#include <utility>

namespace runner::datasets {
namespace {

constexpr size_t kCompressedChunk = size_t{1} << 16;
// windowBits 15 + 16: a gzip stream (header and CRC trailer), not a bare zlib one.
constexpr int kGzipWindowBits = 15 + 16;

}  // namespace

GzipReader::GzipReader(const std::filesystem::path& file, std::string shown_as)
    : shown_as_(std::move(shown_as)), input_(kCompressedChunk) {
  RUNNER_CHECK(inflateInit2(&stream_, kGzipWindowBits) == Z_OK, "zlib's inflateInit2 failed");
  file_ = std::fopen(file.c_str(), "rb");
  if (!file_) {
    inflateEnd(&stream_);
    fail("cannot open " + file.string() + ": " + std::strerror(errno));
  }
}

GzipReader::~GzipReader() {
  inflateEnd(&stream_);
  std::fclose(file_);
}

void GzipReader::fail(const std::string& what) const {
  throw runner::DataError(shown_as_ + ": " + what);
}

// More compressed bytes for inflate; false at the end of the file.
bool GzipReader::fill_input() {
  size_t got = std::fread(input_.data(), 1, input_.size(), file_);
  if (got == 0 && std::ferror(file_)) fail(std::string("cannot read: ") + std::strerror(errno));
  stream_.next_in = input_.data();
  stream_.avail_in = static_cast<uInt>(got);
  return got != 0;
}

size_t GzipReader::read(char* out, size_t count) {
  stream_.next_out = reinterpret_cast<Bytef*>(out);
  stream_.avail_out = static_cast<uInt>(count);
  while (stream_.avail_out > 0 && !ended_) {
    if (stream_.avail_in == 0 && !fill_input())
      fail("truncated: the gzip data ends after " + std::to_string(stream_.total_in) +
           " bytes, inside its stream");
    int code = inflate(&stream_, Z_NO_FLUSH);
    if (code == Z_STREAM_END) {
      ended_ = true;
    } else if (code != Z_OK) {
      // Z_BUF_ERROR here means no progress with input and room left: damaged too.
      fail(std::string("damaged gzip data (") + (stream_.msg ? stream_.msg : zError(code)) + ")");
    }
  }
  return count - stream_.avail_out;
}

void GzipReader::read_to_end() {
  char scratch[4096];
  while (!ended_) read(scratch, sizeof scratch);
}

}  // namespace runner::datasets
