// download_cifar_files: the archive from the mirrors in turn, MD5-checked, then its six files.
#include "cifar10_download.hpp"

#include <runner/datasets/created_folders.hpp>
#include <runner/datasets/mirrors.hpp>
#include <runner/datasets/temporary_file.hpp>
#include <runner/errors.hpp>

#include <string>

#include "cifar10_files.hpp"
#include "extract_batches.hpp"

namespace cifar10 {
namespace {

runner::DataError archive_not_fetched(const std::filesystem::path& data_dir,
                                      const std::filesystem::path& folder,
                                      const runner::datasets::MirrorFetch& fetched) {
  return runner::DataError(
      "could not download " + kCifarArchive + " into " + folder.string() + "; " +
          runner::datasets::attempts_text(fetched.failures),
      "check the network and the mirrors and md5 keys, or download the archive and extract it "
      "by hand: " +
          manual_download_commands(data_dir));
}

}  // namespace

void download_cifar_files(const std::filesystem::path& data_dir, const DownloadSource& source) {
  RUNNER_CHECK(!source.mirrors.empty(), "at least one mirror");
  const std::filesystem::path folder = data_dir / kTarballFolder;
  if (missing_cifar_files(data_dir).empty() || missing_cifar_files(folder).empty()) return;
  // Declared first, so destroyed last: the archive's temporary file is gone by then.
  const runner::datasets::CreatedFolders folders(folder);
  const runner::datasets::TemporaryFile archive(folder / kCifarArchive);
  runner::datasets::MirrorFetch fetched = runner::datasets::fetch_from_mirrors(
      source.mirrors, kCifarArchive, source.md5, archive.path(), source.limits);
  if (!fetched.fetched()) throw archive_not_fetched(data_dir, folder, fetched);
  extract_cifar_batches(archive.path(), fetched.url, folder);
}

}  // namespace cifar10
