// The two IDX files of one split, read and checked together, without LibTorch: the checks of
// untrusted bytes stay where a fuzzer can drive them alone.
#pragma once

#include <cstdint>
#include <filesystem>

#include "idx_file.hpp"

namespace mnist {

constexpr int64_t kNumClasses = 10;

struct SplitFiles {
  std::filesystem::path images;
  std::filesystem::path labels;
};

struct SplitBytes {
  IdxArray images;  // (N, rows, cols)
  IdxArray labels;  // (N), each in [0, kNumClasses)
};

// Reads both files of a split. Throws a runner::DataError naming the file when either is
// unreadable or corrupt, holds no image, their counts differ, or a label is not a class id.
SplitBytes read_split(const SplitFiles& files);

}  // namespace mnist
