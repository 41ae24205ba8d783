// Reading a CIFAR-10 binary file into records: whole records only, class ids below 10.
#include "records.hpp"

#include <runner/errors.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <system_error>

namespace cifar10 {
namespace {

const char* const kFetchAgain =
    "the file is damaged: download cifar-10-binary.tar.gz again and extract it";

// How many whole records the file holds; throws when it holds none or ends inside one.
int64_t record_count(const std::filesystem::path& path) {
  std::error_code error;
  auto bytes = static_cast<int64_t>(std::filesystem::file_size(path, error));
  if (error) throw runner::DataError(path.string() + ": cannot read: " + error.message());
  if (bytes == 0)
    throw runner::DataError(path.string() + ": empty file: it holds no " +
                                std::to_string(kRecordBytes) + "-byte records",
                            kFetchAgain);
  int64_t whole = bytes / kRecordBytes;
  int64_t left = bytes % kRecordBytes;
  if (left != 0)
    throw runner::DataError(
        path.string() + ": " + std::to_string(bytes) + " bytes is not a whole number of " +
            std::to_string(kRecordBytes) + "-byte records: record " + std::to_string(whole) +
            " (from byte " + std::to_string(whole * kRecordBytes) + ") is cut short after " +
            std::to_string(left) + " of its " + std::to_string(kRecordBytes) + " bytes",
        kFetchAgain);
  return whole;
}

void check_class_ids(const Records& records, const std::filesystem::path& path) {
  for (int64_t record = 0; record < records.count; ++record) {
    const uint8_t label = records.bytes[static_cast<size_t>(record * kRecordBytes)];
    if (label < kNumClasses) continue;
    throw runner::DataError(path.string() + ": record " + std::to_string(record) + " (byte " +
                                std::to_string(record * kRecordBytes) + ") has label " +
                                std::to_string(label) + "; CIFAR-10 labels are 0.." +
                                std::to_string(kNumClasses - 1),
                            "is it a CIFAR-10 binary file? CIFAR-100's records start with two "
                            "label bytes");
  }
}

}  // namespace

Records read_records(const std::filesystem::path& path) {
  Records records;
  records.count = record_count(path);
  records.bytes.resize(static_cast<size_t>(records.count * kRecordBytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw runner::DataError(path.string() + ": cannot open: " + std::strerror(errno));
  in.read(reinterpret_cast<char*>(records.bytes.data()),
          static_cast<std::streamsize>(records.bytes.size()));
  if (!in) throw runner::DataError(path.string() + ": cannot read: " + std::strerror(errno));
  check_class_ids(records, path);
  return records;
}

}  // namespace cifar10
