// One CIFAR-10 binary file as its records, read and checked without LibTorch: the checks of
// untrusted bytes stay where a fuzzer can drive them alone.
// Each record is 3073 bytes: one label byte, then 1024 red, 1024 green and 1024 blue bytes,
// each plane a row-major 32x32 image.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace cifar10 {

constexpr int64_t kNumClasses = 10;
constexpr int64_t kChannels = 3;
constexpr int64_t kSide = 32;
constexpr int64_t kPixelBytes = kChannels * kSide * kSide;  // 3072
constexpr int64_t kRecordBytes = 1 + kPixelBytes;           // 3073

struct Records {
  int64_t count = 0;
  std::vector<uint8_t> bytes;  // (count, kRecordBytes)
};

// Throws a runner::DataError naming the file when it cannot be read, is empty, is not a whole
// number of records, or holds a label that is not a class id.
Records read_records(const std::filesystem::path& path);

}  // namespace cifar10
