#include "mnist_files.hpp"

#include <runner/errors.hpp>

#include <optional>
#include <string>
#include <vector>

#include "idx_file.hpp"

namespace mnist {
namespace {

const char* const kMissingHint =
    "data_dir must hold the four IDX files of an MNIST-format set: set download = true to fetch "
    "MNIST's into it, put them there by hand, or install Debian's dataset-fashion-mnist package "
    "for Fashion-MNIST (data_dir = \"/usr/share/datasets/fashion-mnist\")";

std::string join(const std::vector<std::string>& names) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) text += (i ? ", " : "") + names[i];
  return text;
}

void check_not_empty(const IdxArray& images, const std::filesystem::path& path) {
  if (images.values.numel() == 0)
    throw runner::DataError(path.string() + ": holds no pixels: " + std::to_string(images.dims[0]) +
                                " images of " + std::to_string(images.dims[1]) + "x" +
                                std::to_string(images.dims[2]),
                            "is it the right file? If so, download it again");
}

void check_counts_match(const IdxArray& images, const IdxArray& labels, const SplitFiles& files) {
  if (images.dims[0] != labels.dims[0])
    throw runner::DataError(files.images.string() + " holds " + std::to_string(images.dims[0]) +
                                " images but " + files.labels.string() + " holds " +
                                std::to_string(labels.dims[0]) + " labels",
                            "the two files of a split come from different sets: download "
                            "them again from one source");
}

void check_class_ids(const torch::Tensor& labels, const std::filesystem::path& path) {
  torch::Tensor bad = (labels >= kNumClasses).nonzero();  // (B, 1) indices
  if (bad.size(0) == 0) return;
  int64_t index = bad[0][0].item<int64_t>();
  throw runner::DataError(
      path.string() + ": label " + std::to_string(labels[index].item<int64_t>()) + " at index " +
          std::to_string(index) + " is not a class id 0.." + std::to_string(kNumClasses - 1),
      "is it a labels file of a 10-class MNIST-format set?");
}

}  // namespace

std::optional<std::filesystem::path> find_mnist_file(const std::filesystem::path& dir,
                                                     const std::string& stem) {
  for (const std::string& name : {stem, stem + ".gz"}) {
    std::filesystem::path path = dir / name;
    if (std::filesystem::is_regular_file(path)) return path;
  }
  return std::nullopt;
}

MnistFiles find_mnist_files(const std::filesystem::path& dir) {
  std::filesystem::path found[4];
  std::vector<std::string> missing;
  for (size_t i = 0; i < kMnistStems.size(); ++i) {
    std::optional<std::filesystem::path> path = find_mnist_file(dir, kMnistStems[i]);
    if (path)
      found[i] = *path;
    else
      missing.push_back(kMnistStems[i] + "[.gz]");
  }
  if (!missing.empty()) {
    std::string where = std::filesystem::is_directory(dir)
                            ? dir.string()
                            : dir.string() + " (the folder does not exist)";
    throw runner::DataError("MNIST files missing in " + where + ": " + join(missing), kMissingHint);
  }
  return {{found[0], found[1]}, {found[2], found[3]}};
}

RawSplit load_split(const SplitFiles& files) {
  IdxArray images = read_idx_ubyte(files.images, 3);  // (N, rows, cols)
  check_not_empty(images, files.images);
  IdxArray labels = read_idx_ubyte(files.labels, 1);  // (N)
  check_counts_match(images, labels, files);
  torch::Tensor class_ids = labels.values.to(torch::kInt64);
  check_class_ids(class_ids, files.labels);
  return {images.values, class_ids};
}

}  // namespace mnist
