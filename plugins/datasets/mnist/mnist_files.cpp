// Finding the four IDX files in a folder, plain or gzipped, and loading a split as byte tensors.
#include "mnist_files.hpp"

#include <runner/errors.hpp>

#include <optional>
#include <string>
#include <vector>

namespace mnist {
namespace {

const std::string kMissingHint =
    std::string(
        "data_dir must hold the four IDX files of an MNIST-format set: set download = "
        "true (--set dataset.download=true) to fetch MNIST's into it, put them there by "
        "hand, or, ") +
    kFashionMnistOffline;

std::string join(const std::vector<std::string>& names) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) text += (i ? ", " : "") + names[i];
  return text;
}

// The bytes as a tensor shaped `dims`, without a copy.
torch::Tensor tensor_owning(IdxArray array) {
  auto owner = std::make_shared<std::vector<uint8_t>>(std::move(array.values));
  // The deleter holds the vector, so the bytes live exactly as long as the tensor's storage.
  auto release_with_storage = [owner](void*) {};
  return torch::from_blob(owner->data(), array.dims, release_with_storage, torch::kUInt8);
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
    std::string where = std::filesystem::is_directory(dir) ? dir.string()
                        : std::filesystem::exists(dir)
                            ? dir.string() + " (it is not a folder)"
                            : dir.string() + " (the folder does not exist)";
    throw runner::DataError("MNIST files missing in " + where + ": " + join(missing), kMissingHint);
  }
  return {{found[0], found[1]}, {found[2], found[3]}};
}

RawSplit load_split(const SplitFiles& files) {
  SplitBytes split = read_split(files);
  return {tensor_owning(std::move(split.images)),
          tensor_owning(std::move(split.labels)).to(torch::kInt64)};
}

}  // namespace mnist
