// The six files of the CIFAR-10 binary version and the checks that make them two splits.
// Each file is a sequence of records (records.hpp).
#pragma once

#include <torch/torch.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "records.hpp"

namespace cifar10 {

// The folder the official tarball extracts to.
inline const char* const kTarballFolder = "cifar-10-batches-bin";

// The six files: five of training records, then the test records.
inline const std::array<std::string, 6> kCifarFileNames = {"data_batch_1.bin", "data_batch_2.bin",
                                                           "data_batch_3.bin", "data_batch_4.bin",
                                                           "data_batch_5.bin", "test_batch.bin"};

// Those of kCifarFileNames that `dir` lacks, in that order.
std::vector<std::string> missing_cifar_files(const std::filesystem::path& dir);

// The shell commands that fetch the official archive and extract it into `data_dir`.
std::string manual_download_commands(const std::filesystem::path& data_dir);

struct CifarFiles {
  std::vector<std::filesystem::path> train;  // data_batch_1.bin .. data_batch_5.bin
  std::vector<std::filesystem::path> test;   // test_batch.bin
};

// The six files in `data_dir`, or else in `data_dir`/cifar-10-batches-bin. Throws one
// runner::DataError listing every missing file and the folders searched, with the ways to get
// them (download = true, or the commands).
CifarFiles find_cifar_files(const std::filesystem::path& data_dir);

struct RawSplit {
  torch::Tensor images;  // (N, 3, 32, 32) uint8
  torch::Tensor labels;  // (N) int64, each in [0, kNumClasses)
};

// The records of `files`, one file after another. Throws a runner::DataError naming the file
// when one cannot be read, is empty, is not a whole number of records, or holds a label that is
// not a class id.
RawSplit load_split(const std::vector<std::filesystem::path>& files);

}  // namespace cifar10
