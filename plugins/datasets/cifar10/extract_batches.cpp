// extract_cifar_batches: the wanted entries of the archive to temporary files, then renamed.
#include "extract_batches.hpp"

#include <runner/datasets/tar_gz.hpp>
#include <runner/datasets/temporary_file.hpp>
#include <runner/errors.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "cifar10_download_options.hpp"
#include "cifar10_files.hpp"

namespace cifar10 {
namespace {

using Parts = std::map<std::string, std::unique_ptr<runner::datasets::TemporaryFile>>;

std::string not_the_official_archive(const std::filesystem::path& folder) {
  return "is it the official " + kCifarArchive +
         "? Check the mirrors and md5 keys, or download the archive and extract it by hand: " +
         manual_download_commands(folder.parent_path());
}

// "data_batch_1.bin" for "cifar-10-batches-bin/data_batch_1.bin" when it is one of `wanted`;
// nothing for any other entry.
std::optional<std::string> wanted_file(const std::string& entry,
                                       const std::vector<std::string>& wanted) {
  const std::string prefix = std::string(kTarballFolder) + "/";
  if (entry.rfind(prefix, 0) != 0) return std::nullopt;
  std::string name = entry.substr(prefix.size());
  if (std::find(wanted.begin(), wanted.end(), name) == wanted.end()) return std::nullopt;
  return name;
}

}  // namespace

void extract_cifar_batches(const std::filesystem::path& archive, const std::string& url,
                           const std::filesystem::path& folder) {
  const std::vector<std::string> wanted = missing_cifar_files(folder);
  Parts parts;
  auto target = [&](const std::string& entry) -> std::optional<std::filesystem::path> {
    std::optional<std::string> name = wanted_file(entry, wanted);
    if (!name) return std::nullopt;
    std::unique_ptr<runner::datasets::TemporaryFile>& part = parts[*name];
    if (!part) part = std::make_unique<runner::datasets::TemporaryFile>(folder / *name);
    return part->path();
  };
  try {
    runner::datasets::extract_tar_gz(archive, url, target);
  } catch (const runner::DataError& e) {
    // The reader's own errors say what is wrong with the archive; a file it could not write
    // has its hint already.
    if (!e.hint().empty()) throw;
    throw runner::DataError(e.what(), not_the_official_archive(folder));
  }
  for (const std::string& name : wanted)
    if (parts.count(name) == 0)
      throw runner::DataError(url + ": the archive holds no " + kTarballFolder + "/" + name,
                              not_the_official_archive(folder));
  for (auto& [name, part] : parts) part->rename_to(folder / name);
}

}  // namespace cifar10
