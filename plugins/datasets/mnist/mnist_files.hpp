// The four files of an MNIST-format set and the checks that make a pair of them one split.
#pragma once

#include <torch/torch.h>

#include <array>
#include <filesystem>
#include <optional>
#include <string>

#include "split_bytes.hpp"

namespace mnist {

// The names of the four files without ".gz": train images, train labels, test images, test labels.
inline const std::array<std::string, 4> kMnistStems = {
    "train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
    "t10k-labels-idx1-ubyte"};

// The way to an MNIST-format set that needs no network: Debian's packaged Fashion-MNIST.
inline const char* const kFashionMnistOffline =
    "without a network, train on Debian's Fashion-MNIST: apt-get install dataset-fashion-mnist, "
    "then --set dataset.data_dir=/usr/share/datasets/fashion-mnist";

// The file as <stem> or <stem>.gz in `dir`, or nothing when neither exists.
std::optional<std::filesystem::path> find_mnist_file(const std::filesystem::path& dir,
                                                     const std::string& stem);

struct MnistFiles {
  SplitFiles train;
  SplitFiles test;
};

// Each file as <stem> or <stem>.gz in `dir`. Throws one runner::DataError listing every
// missing file and the folder.
MnistFiles find_mnist_files(const std::filesystem::path& dir);

struct RawSplit {
  torch::Tensor images;  // (N, rows, cols) uint8
  torch::Tensor labels;  // (N) int64, each in [0, kNumClasses)
};

// Reads both files of a split. Throws a runner::DataError naming the file when either is
// unreadable or corrupt, holds no image, their counts differ, or a label is not a class id.
RawSplit load_split(const SplitFiles& files);

}  // namespace mnist
