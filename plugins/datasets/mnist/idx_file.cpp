// read_idx_ubyte: an IDX file's header and bytes through gzread, each size and length checked.
#include "idx_file.hpp"

#include <zlib.h>
#include <runner/errors.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

namespace mnist {
namespace {

constexpr size_t kReadChunk = size_t{1} << 24;  // gzread counts in unsigned int
// A header that lies must not reserve more; MNIST's largest file (47 MB) fits, larger sets grow.
constexpr size_t kMaxReserve = size_t{1} << 26;
const char* const kFetchAgain = "the file is damaged: download it again";

// One open file, plain or gzip: gzread decompresses gzip and passes other bytes through.
class ByteReader {
 public:
  explicit ByteReader(const std::filesystem::path& path)
      : path_(path.string()), file_(gzopen(path_.c_str(), "rb")) {
    if (!file_) throw runner::DataError(path_ + ": cannot open: " + std::strerror(errno));
  }
  ~ByteReader() { gzclose(file_); }
  ByteReader(const ByteReader&) = delete;
  ByteReader& operator=(const ByteReader&) = delete;

  // Reads `count` bytes, fewer only at the end of the data.
  size_t read(uint8_t* out, size_t count) {
    size_t got = 0;
    while (got < count) {
      auto want = static_cast<unsigned>(std::min(count - got, kReadChunk));
      int n = gzread(file_, out + got, want);
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    throw_on_stream_error();
    return got;
  }

  // Everything left in the file. `expected` only reserves address space: pages are touched
  // one chunk at a time as data arrives, so a header that lies costs no memory.
  std::vector<uint8_t> read_to_end(size_t expected) {
    std::vector<uint8_t> bytes;
    bytes.reserve(std::min(expected, kMaxReserve) + 1);  // +1: room to see a trailing byte
    for (;;) {
      size_t start = bytes.size();
      // Chunks double with the data read, so a header that lies costs no zeroed pages either.
      size_t chunk =
          std::clamp(std::min(bytes.capacity() - start, start), size_t{4096}, kReadChunk);
      bytes.resize(start + chunk);
      size_t got = read(bytes.data() + start, chunk);
      bytes.resize(start + got);
      if (got < chunk) return bytes;
    }
  }

  const std::string& path() const { return path_; }

 private:
  // A truncated gzip stream ends gzread quietly; only gzerror tells it from a clean end.
  void throw_on_stream_error() const {
    int code = Z_OK;
    const char* message = gzerror(file_, &code);
    if (code == Z_OK) return;
    if (code == Z_ERRNO) throw runner::DataError(path_ + ": cannot read: " + std::strerror(errno));
    throw runner::DataError(
        path_ + ": corrupt or truncated gzip data (zlib: " + without_path(message) + ")",
        kFetchAgain);
  }

  // zlib's messages start with the path, which ours already name.
  std::string without_path(const std::string& message) const {
    std::string prefix = path_ + ": ";
    return message.compare(0, prefix.size(), prefix) == 0 ? message.substr(prefix.size()) : message;
  }

  std::string path_;
  gzFile file_;
};

uint32_t big_endian_u32(const uint8_t* bytes) {
  return (uint32_t{bytes[0]} << 24) | (uint32_t{bytes[1]} << 16) | (uint32_t{bytes[2]} << 8) |
         uint32_t{bytes[3]};
}

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string text;
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? " x " : "") + std::to_string(dims[i]);
  return text;
}

// Product of the sizes, or nothing when it does not fit in size_t.
std::optional<size_t> element_count(const std::vector<int64_t>& dims) {
  size_t count = 1;
  for (int64_t d : dims) {
    auto size = static_cast<size_t>(d);
    if (size != 0 && count > std::numeric_limits<size_t>::max() / size) return std::nullopt;
    count *= size;
  }
  return count;
}

void read_exactly(ByteReader& reader, uint8_t* out, size_t count, const char* what) {
  size_t got = reader.read(out, count);
  if (got < count)
    throw runner::DataError(reader.path() + ": truncated in the header: " + std::to_string(got) +
                                " of the " + std::to_string(count) + " bytes of its " + what,
                            "is this an IDX file? If so, " + std::string(kFetchAgain));
}

std::vector<int64_t> read_header(ByteReader& reader, int expected_dims) {
  uint8_t magic_bytes[4];
  read_exactly(reader, magic_bytes, sizeof magic_bytes, "magic number");
  uint32_t magic = big_endian_u32(magic_bytes);
  uint32_t expected = idx_ubyte_magic(expected_dims);
  if ((magic >> 8) != 0x08)
    throw runner::DataError(reader.path() + ": wrong magic number: expected " +
                                std::to_string(expected) + ", found " + std::to_string(magic),
                            "not an IDX file of unsigned bytes: is it an MNIST-format file?");
  int dims_count = static_cast<int>(magic & 0xff);
  if (dims_count != expected_dims)
    throw runner::DataError(
        reader.path() + ": wrong dimension count: expected " + std::to_string(expected_dims) +
            " (magic " + std::to_string(expected) + "), found " + std::to_string(dims_count) +
            " (magic " + std::to_string(magic) + ")",
        "images files have 3 dimensions, labels files 1: are they swapped?");
  std::vector<uint8_t> size_bytes(4 * static_cast<size_t>(dims_count));
  read_exactly(reader, size_bytes.data(), size_bytes.size(), "dimension sizes");
  std::vector<int64_t> dims;
  for (int i = 0; i < dims_count; ++i)
    dims.push_back(big_endian_u32(&size_bytes[4 * static_cast<size_t>(i)]));
  return dims;
}

}  // namespace

uint32_t idx_ubyte_magic(int dims) { return 0x0800u | static_cast<uint32_t>(dims); }

IdxArray read_idx_ubyte(const std::filesystem::path& path, int expected_dims) {
  ByteReader reader(path);
  std::vector<int64_t> dims = read_header(reader, expected_dims);
  std::optional<size_t> expected = element_count(dims);
  std::vector<uint8_t> data = reader.read_to_end(expected.value_or(kMaxReserve));
  std::string declared = "the header declares " + dims_text(dims);
  if (!expected || data.size() < *expected)
    throw runner::DataError(reader.path() + ": truncated: " + declared + " = " +
                                (expected ? std::to_string(*expected) : "too many") +
                                " bytes of data, found " + std::to_string(data.size()),
                            kFetchAgain);
  if (data.size() > *expected)
    throw runner::DataError(reader.path() + ": " + std::to_string(data.size() - *expected) +
                                " trailing bytes after the " + std::to_string(*expected) +
                                " bytes of data (" + declared + ")",
                            kFetchAgain);
  return {dims, std::move(data)};
}

}  // namespace mnist
