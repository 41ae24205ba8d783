// download_missing_files: each file from the mirrors in turn, MD5-checked, renamed into place.
#include "mnist_download.hpp"

#include <runner/datasets/created_folders.hpp>
#include <runner/datasets/mirrors.hpp>
#include <runner/datasets/temporary_file.hpp>
#include <runner/errors.hpp>

#include <string>
#include <vector>

#include "mnist_files.hpp"

namespace mnist {
namespace {

using runner::datasets::FailedAttempt;

const std::string kOfflineHint =
    std::string("check the network (and http_proxy, https_proxy), or, ") + kFashionMnistOffline;

std::vector<std::string> missing_stems(const std::filesystem::path& dir) {
  std::vector<std::string> missing;
  for (const std::string& stem : kMnistStems)
    if (!find_mnist_file(dir, stem)) missing.push_back(stem);
  return missing;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

// No mirror could be reached (offline): the files to fetch by hand and where they go, once, and
// the set that needs no network.
runner::DataError offline_error(const std::filesystem::path& dir,
                                const std::vector<std::string>& missing,
                                const std::vector<FailedAttempt>& failures) {
  return runner::DataError(dir.string() + " lacks " + joined(missing) +
                               " and no mirror could be reached to download them (" +
                               runner::datasets::attempts_text(failures) +
                               "): put those files, plain or .gz, into " + dir.string(),
                           kOfflineHint);
}

runner::DataError download_error(const std::filesystem::path& dir,
                                 const std::vector<std::string>& not_fetched,
                                 const std::vector<FailedAttempt>& failures) {
  std::string message = "could not download";
  for (size_t i = 0; i < not_fetched.size(); ++i) message += (i ? ", " : " ") + not_fetched[i];
  message += " into " + dir.string() + "; " + runner::datasets::attempts_text(failures);
  return runner::DataError(message,
                           "check the network and the mirrors key, or place the files in "
                           "data_dir by hand (each plain or .gz)");
}

// The file from the first mirror that serves it with `md5`, renamed into place; why each mirror
// failed when none did.
std::vector<FailedAttempt> fetch_file(const std::filesystem::path& target, const std::string& md5,
                                      const DownloadSource& source) {
  runner::datasets::TemporaryFile part(target);
  runner::datasets::MirrorFetch fetched = runner::datasets::fetch_from_mirrors(
      source.mirrors, target.filename().string(), md5, part.path(), source.limits);
  if (!fetched.fetched()) return fetched.failures;
  part.rename_to(target);
  return {};
}

}  // namespace

void download_missing_files(const std::filesystem::path& dir, const DownloadSource& source) {
  RUNNER_CHECK(source.md5.size() == kMnistStems.size(), "one MD5 per file");
  RUNNER_CHECK(!source.mirrors.empty(), "at least one mirror");
  if (missing_stems(dir).empty()) return;
  const runner::datasets::CreatedFolders folders(dir);
  std::vector<std::string> not_fetched;
  std::vector<FailedAttempt> failures;
  for (size_t i = 0; i < kMnistStems.size(); ++i) {
    if (find_mnist_file(dir, kMnistStems[i])) continue;
    std::string name = kMnistStems[i] + ".gz";
    std::vector<FailedAttempt> file_failures = fetch_file(dir / name, source.md5[i], source);
    if (file_failures.empty()) continue;
    // Every other file would wait for the same silent mirrors.
    if (runner::datasets::all_unreachable(file_failures))
      throw offline_error(dir, missing_stems(dir), file_failures);
    not_fetched.push_back(name);
    failures.insert(failures.end(), file_failures.begin(), file_failures.end());
  }
  if (!not_fetched.empty()) throw download_error(dir, not_fetched, failures);
}

}  // namespace mnist
