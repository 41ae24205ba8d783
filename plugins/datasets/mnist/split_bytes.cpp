// read_split: a split's images and labels read, non-empty, counts matched, class ids checked.
#include "split_bytes.hpp"

#include <runner/errors.hpp>

#include <algorithm>
#include <string>

namespace mnist {
namespace {

void check_not_empty(const IdxArray& images, const std::filesystem::path& path) {
  if (images.values.empty())
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

void check_class_ids(const IdxArray& labels, const std::filesystem::path& path) {
  const auto& ids = labels.values;
  auto bad = std::find_if(ids.begin(), ids.end(), [](uint8_t id) { return id >= kNumClasses; });
  if (bad == ids.end()) return;
  throw runner::DataError(path.string() + ": label " + std::to_string(*bad) + " at index " +
                              std::to_string(bad - ids.begin()) + " is not a class id 0.." +
                              std::to_string(kNumClasses - 1),
                          "is it a labels file of a 10-class MNIST-format set?");
}

}  // namespace

SplitBytes read_split(const SplitFiles& files) {
  IdxArray images = read_idx_ubyte(files.images, 3);
  check_not_empty(images, files.images);
  IdxArray labels = read_idx_ubyte(files.labels, 1);
  check_counts_match(images, labels, files);
  check_class_ids(labels, files.labels);
  return {std::move(images), std::move(labels)};
}

}  // namespace mnist
