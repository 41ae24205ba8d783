#include "cifar10_files.hpp"

#include <runner/errors.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <system_error>

namespace cifar10 {
namespace {

const char* const kTrainNames[] = {"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin",
                                   "data_batch_4.bin", "data_batch_5.bin"};
const char* const kTestName = "test_batch.bin";
const char* const kDownloadHint =
    "data_dir must hold data_batch_1.bin .. data_batch_5.bin and test_batch.bin, or the "
    "cifar-10-batches-bin folder that holds them: download "
    "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz and extract it into data_dir "
    "(tar xzf cifar-10-binary.tar.gz -C <data_dir>)";
const char* const kFetchAgain =
    "the file is damaged: download cifar-10-binary.tar.gz again and extract it";

std::vector<std::string> missing_in(const std::filesystem::path& dir) {
  std::vector<std::string> missing;
  for (const char* name : kTrainNames)
    if (!std::filesystem::is_regular_file(dir / name)) missing.push_back(name);
  if (!std::filesystem::is_regular_file(dir / kTestName)) missing.push_back(kTestName);
  return missing;
}

CifarFiles files_in(const std::filesystem::path& dir) {
  CifarFiles files;
  for (const char* name : kTrainNames) files.train.push_back(dir / name);
  files.test.push_back(dir / kTestName);
  return files;
}

std::string join(const std::vector<std::string>& names) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) text += (i ? ", " : "") + names[i];
  return text;
}

std::string folder_text(const std::filesystem::path& dir) {
  return std::filesystem::is_directory(dir) ? dir.string()
                                            : dir.string() + " (the folder does not exist)";
}

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

// (N, 3073): the file's records, read in one go.
torch::Tensor read_records(const std::filesystem::path& path) {
  int64_t records = record_count(path);
  torch::Tensor bytes = torch::empty({records, kRecordBytes}, torch::kUInt8);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw runner::DataError(path.string() + ": cannot open: " + std::strerror(errno));
  in.read(reinterpret_cast<char*>(bytes.data_ptr<uint8_t>()),
          static_cast<std::streamsize>(bytes.numel()));
  if (!in) throw runner::DataError(path.string() + ": cannot read: " + std::strerror(errno));
  return bytes;
}

void check_class_ids(const torch::Tensor& labels, const std::filesystem::path& path) {
  torch::Tensor bad = (labels >= kNumClasses).nonzero();  // (B, 1) record indices
  if (bad.size(0) == 0) return;
  int64_t record = bad[0][0].item<int64_t>();
  throw runner::DataError(path.string() + ": record " + std::to_string(record) + " (byte " +
                              std::to_string(record * kRecordBytes) + ") has label " +
                              std::to_string(labels[record].item<int64_t>()) +
                              "; CIFAR-10 labels are 0.." + std::to_string(kNumClasses - 1),
                          "is it a CIFAR-10 binary file? CIFAR-100's records start with two "
                          "label bytes");
}

}  // namespace

CifarFiles find_cifar_files(const std::filesystem::path& data_dir) {
  const std::filesystem::path folders[2] = {data_dir, data_dir / kTarballFolder};
  std::vector<std::string> missing[2] = {missing_in(folders[0]), missing_in(folders[1])};
  for (int i = 0; i < 2; ++i)
    if (missing[i].empty()) return files_in(folders[i]);
  // Name the files missing from the folder that holds more of them: a partial extraction.
  int nearest = missing[1].size() < missing[0].size() ? 1 : 0;
  throw runner::DataError("CIFAR-10 files missing in " + folders[nearest].string() + ": " +
                              join(missing[nearest]) + "; searched " + folder_text(folders[0]) +
                              " and " + folder_text(folders[1]),
                          kDownloadHint);
}

RawSplit load_split(const std::vector<std::filesystem::path>& files) {
  std::vector<torch::Tensor> images;
  std::vector<torch::Tensor> labels;
  for (const std::filesystem::path& path : files) {
    torch::Tensor records = read_records(path);  // (N, 3073)
    torch::Tensor class_ids = records.select(1, 0).to(torch::kInt64);
    check_class_ids(class_ids, path);
    // (N, 3072) -> (N, 3, 32, 32): planes of red, green, blue, each row-major.
    images.push_back(records.narrow(1, 1, kPixelBytes).view({-1, kChannels, kSide, kSide}));
    labels.push_back(class_ids);
  }
  return {torch::cat(images), torch::cat(labels)};
}

}  // namespace cifar10
