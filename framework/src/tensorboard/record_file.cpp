// TFRecord framing with masked CRC-32C, appended to a file and flushed.
#include "tensorboard/record_file.hpp"

#include <boost/crc.hpp>
#include <cerrno>
#include <cstring>

#include "runner/errors.hpp"

namespace runner::tensorboard {
namespace {

// Reflected CRC-32 with the Castagnoli polynomial: CRC-32C.
using Crc32c = boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true>;

constexpr uint32_t kMaskDelta = 0xa282ead8u;

void append_le(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

}  // namespace

uint32_t crc32c(const void* data, size_t size) {
  Crc32c crc;
  crc.process_bytes(data, size);
  return crc.checksum();
}

uint32_t masked_crc32c(const void* data, size_t size) {
  const uint32_t crc = crc32c(data, size);
  return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}

std::string frame_record(const std::string& data) {
  std::string out;
  out.reserve(data.size() + 16);
  append_le(out, data.size(), 8);
  append_le(out, masked_crc32c(out.data(), 8), 4);
  out += data;
  append_le(out, masked_crc32c(data.data(), data.size()), 4);
  return out;
}

RecordFile::RecordFile(std::string path) : path_(std::move(path)) {
  file_ = std::fopen(path_.c_str(), "wb");
  if (!file_) fail("cannot create");
}

RecordFile::~RecordFile() {
  if (file_) std::fclose(file_);
}

void RecordFile::write(const std::string& data) {
  const std::string record = frame_record(data);
  if (std::fwrite(record.data(), 1, record.size(), file_) != record.size()) fail("cannot write");
}

void RecordFile::flush() {
  if (std::fflush(file_) != 0) fail("cannot write");
}

void RecordFile::fail(const std::string& what) const {
  if (errno == ENOSPC || errno == EDQUOT)
    throw DataError("no space left on " + path_,
                    "free space on its disk, or name another folder with [experiment] "
                    "tensorboard or --tensorboard; the epochs flushed before are in the file");
  if (errno == EFBIG)
    throw DataError("the file size limit (ulimit -f) stops the writing of " + path_,
                    "raise the limit; the epochs flushed before are in the file");
  throw DataError(what + " TensorBoard event file " + path_ + ": " + std::strerror(errno),
                  "check that its folder can be written ([experiment] tensorboard or "
                  "--tensorboard names it)");
}

}  // namespace runner::tensorboard
