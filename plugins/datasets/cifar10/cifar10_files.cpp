// Finding the six CIFAR-10 files in a folder, and a split's records as image and label tensors.
#include "cifar10_files.hpp"

#include <runner/datasets/mirrors.hpp>
#include <runner/errors.hpp>

#include <memory>
#include <string>

#include "cifar10_download_options.hpp"

namespace cifar10 {
namespace {

constexpr size_t kTrainFileCount = 5;  // the first five of kCifarFileNames

std::string missing_files_hint(const std::filesystem::path& data_dir) {
  return "data_dir must hold data_batch_1.bin .. data_batch_5.bin and test_batch.bin, or the "
         "cifar-10-batches-bin folder that holds them: set download = true (--set "
         "dataset.download=true) to fetch and extract them into " +
         (data_dir / kTarballFolder).string() +
         ", or download the archive and extract it by hand: " + manual_download_commands(data_dir);
}

CifarFiles files_in(const std::filesystem::path& dir) {
  CifarFiles files;
  for (size_t i = 0; i < kCifarFileNames.size(); ++i)
    (i < kTrainFileCount ? files.train : files.test).push_back(dir / kCifarFileNames[i]);
  return files;
}

std::string join(const std::vector<std::string>& names) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) text += (i ? ", " : "") + names[i];
  return text;
}

std::string folder_text(const std::filesystem::path& dir) {
  if (std::filesystem::is_directory(dir)) return dir.string();
  return dir.string() +
         (std::filesystem::exists(dir) ? " (it is not a folder)" : " (the folder does not exist)");
}

// (N, 3073): the records' bytes as a tensor, without a copy.
torch::Tensor tensor_owning(Records records) {
  auto owner = std::make_shared<std::vector<uint8_t>>(std::move(records.bytes));
  // The deleter holds the vector, so the bytes live exactly as long as the tensor's storage.
  auto release_with_storage = [owner](void*) {};
  return torch::from_blob(owner->data(), {records.count, kRecordBytes}, release_with_storage,
                          torch::kUInt8);
}

}  // namespace

std::vector<std::string> missing_cifar_files(const std::filesystem::path& dir) {
  std::vector<std::string> missing;
  for (const std::string& name : kCifarFileNames)
    if (!std::filesystem::is_regular_file(dir / name)) missing.push_back(name);
  return missing;
}

std::string manual_download_commands(const std::filesystem::path& data_dir) {
  const std::string dir = data_dir.empty() ? "." : data_dir.string();
  return "mkdir -p " + dir + " && curl -LO " +
         runner::datasets::mirror_url(kCifarMirrors[0], kCifarArchive) + " && tar xzf " +
         kCifarArchive + " -C " + dir;
}

CifarFiles find_cifar_files(const std::filesystem::path& data_dir) {
  const std::filesystem::path folders[2] = {data_dir, data_dir / kTarballFolder};
  std::vector<std::string> missing[2] = {missing_cifar_files(folders[0]),
                                         missing_cifar_files(folders[1])};
  for (int i = 0; i < 2; ++i)
    if (missing[i].empty()) return files_in(folders[i]);
  // Name the files missing from the folder that holds more of them: a partial extraction.
  int nearest = missing[1].size() < missing[0].size() ? 1 : 0;
  throw runner::DataError("CIFAR-10 files missing in " + folders[nearest].string() + ": " +
                              join(missing[nearest]) + "; searched " + folder_text(folders[0]) +
                              " and " + folder_text(folders[1]),
                          missing_files_hint(data_dir));
}

RawSplit load_split(const std::vector<std::filesystem::path>& files) {
  std::vector<torch::Tensor> images;
  std::vector<torch::Tensor> labels;
  for (const std::filesystem::path& path : files) {
    torch::Tensor records = tensor_owning(read_records(path));  // (N, 3073)
    torch::Tensor class_ids = records.select(1, 0).to(torch::kInt64);
    // (N, 3072) -> (N, 3, 32, 32): planes of red, green, blue, each row-major.
    images.push_back(records.narrow(1, 1, kPixelBytes).view({-1, kChannels, kSide, kSide}));
    labels.push_back(class_ids);
  }
  return {torch::cat(images), torch::cat(labels)};
}

}  // namespace cifar10
