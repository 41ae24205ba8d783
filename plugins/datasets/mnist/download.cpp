// download_missing_files: each file from the mirrors in turn, MD5-checked, renamed into place.
#include "download.hpp"

#include <unistd.h>
#include <runner/errors.hpp>

#include <algorithm>
#include <atomic>
#include <string>
#include <system_error>
#include <vector>

#include "md5.hpp"
#include "mnist_files.hpp"

namespace mnist {
namespace {

struct FailedAttempt {
  std::string url;
  std::string reason;
  bool unreachable = false;  // no answer from the server: the network may be down
};

// A file in the target's folder, named for this process and call so that concurrent downloads
// never share one; removed on destruction unless it was renamed into place.
class TemporaryFile {
 public:
  explicit TemporaryFile(const std::filesystem::path& target) : path_(unique_name(target)) {}
  ~TemporaryFile() {
    std::error_code ignored;
    if (!renamed_) std::filesystem::remove(path_, ignored);
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  const std::filesystem::path& path() const { return path_; }

  // Atomic: a reader of `target` sees the old file or the whole new one.
  void rename_to(const std::filesystem::path& target) {
    std::error_code error;
    std::filesystem::rename(path_, target, error);
    if (error)
      throw runner::DataError(
          "cannot rename " + path_.string() + " to " + target.string() + ": " + error.message(),
          "data_dir must be a folder you can write to");
    renamed_ = true;
  }

 private:
  static std::filesystem::path unique_name(const std::filesystem::path& target) {
    static std::atomic<unsigned> calls{0};
    return target.parent_path() /
           ("." + target.filename().string() + "." + std::to_string(::getpid()) + "-" +
            std::to_string(calls++) + ".part");
  }

  std::filesystem::path path_;
  bool renamed_ = false;
};

std::string with_trailing_slash(const std::string& url) {
  return !url.empty() && url.back() == '/' ? url : url + "/";
}

// Throws a FetchError when the URL fails or serves bytes of another MD5.
void fetch_verified(const std::string& url, const std::filesystem::path& target,
                    const std::string& md5, const FetchLimits& limits) {
  TemporaryFile part(target);
  http_fetch(url, part.path(), limits);
  std::string got = md5_hex_of_file(part.path());
  if (got != md5) throw FetchError("MD5 mismatch: expected " + md5 + ", got " + got);
  part.rename_to(target);
}

// Tries each mirror in turn until one serves the file. Returns why each failed when none did,
// nothing otherwise.
std::vector<FailedAttempt> fetch_from_mirrors(const std::filesystem::path& target,
                                              const std::string& md5,
                                              const DownloadSource& source) {
  std::vector<FailedAttempt> failures;
  for (const std::string& mirror : source.mirrors) {
    std::string url = with_trailing_slash(mirror) + target.filename().string();
    try {
      fetch_verified(url, target, md5, source.limits);
      return {};
    } catch (const FetchError& e) {
      failures.push_back({url, e.what(), e.unreachable});
    }
  }
  return failures;
}

// Creates a folder and the parents it lacks; on destruction removes those of them that are
// still empty, innermost first, so a download that fetched nothing leaves no empty folders.
class CreatedFolders {
 public:
  explicit CreatedFolders(const std::filesystem::path& dir) {
    for (std::filesystem::path at = dir; !at.empty() && !exists(at); at = at.parent_path()) {
      created_.push_back(at);
      if (at == at.parent_path()) break;
    }
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error)
      throw runner::DataError(dir.string() + ": cannot create the folder: " + error.message(),
                              "data_dir must be a folder you can create and write to");
  }
  ~CreatedFolders() {
    std::error_code ignored;
    for (const std::filesystem::path& folder : created_)
      if (std::filesystem::is_empty(folder, ignored)) std::filesystem::remove(folder, ignored);
  }
  CreatedFolders(const CreatedFolders&) = delete;
  CreatedFolders& operator=(const CreatedFolders&) = delete;

 private:
  static bool exists(const std::filesystem::path& path) {
    std::error_code ignored;
    return std::filesystem::exists(path, ignored);
  }

  std::vector<std::filesystem::path> created_;  // innermost first
};

std::vector<std::string> missing_stems(const std::filesystem::path& dir) {
  std::vector<std::string> missing;
  for (const std::string& stem : kMnistStems)
    if (!find_mnist_file(dir, stem)) missing.push_back(stem);
  return missing;
}

bool all_unreachable(const std::vector<FailedAttempt>& failures) {
  return std::all_of(failures.begin(), failures.end(),
                     [](const FailedAttempt& failure) { return failure.unreachable; });
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

// No mirror could be reached (offline): the files to fetch by hand and where they go, once.
runner::DataError offline_error(const std::filesystem::path& dir,
                                const std::vector<std::string>& missing,
                                const std::vector<FailedAttempt>& failures) {
  std::string tried;
  for (const FailedAttempt& failure : failures)
    tried += (tried.empty() ? "" : "; ") + failure.url + ": " + failure.reason;
  return runner::DataError(dir.string() + " lacks " + joined(missing) +
                           " and no mirror could be reached to download them (" + tried +
                           "): put those files, plain or .gz, into " + dir.string());
}

runner::DataError download_error(const std::filesystem::path& dir,
                                 const std::vector<std::string>& not_fetched,
                                 const std::vector<FailedAttempt>& failures) {
  std::string message = "could not download";
  for (size_t i = 0; i < not_fetched.size(); ++i) message += (i ? ", " : " ") + not_fetched[i];
  message += " into " + dir.string();
  for (const FailedAttempt& failure : failures)
    message += "; " + failure.url + ": " + failure.reason;
  return runner::DataError(message,
                           "check the network and the mirrors key, or place the files in "
                           "data_dir by hand (each plain or .gz)");
}

}  // namespace

void download_missing_files(const std::filesystem::path& dir, const DownloadSource& source) {
  RUNNER_CHECK(source.md5.size() == kMnistStems.size(), "one MD5 per file");
  RUNNER_CHECK(!source.mirrors.empty(), "at least one mirror");
  if (missing_stems(dir).empty()) return;
  const CreatedFolders folders(dir);
  std::vector<std::string> not_fetched;
  std::vector<FailedAttempt> failures;
  for (size_t i = 0; i < kMnistStems.size(); ++i) {
    if (find_mnist_file(dir, kMnistStems[i])) continue;
    std::string name = kMnistStems[i] + ".gz";
    std::vector<FailedAttempt> file_failures =
        fetch_from_mirrors(dir / name, source.md5[i], source);
    if (file_failures.empty()) continue;
    // Every other file would wait for the same silent mirrors.
    if (all_unreachable(file_failures)) throw offline_error(dir, missing_stems(dir), file_failures);
    not_fetched.push_back(name);
    failures.insert(failures.end(), file_failures.begin(), file_failures.end());
  }
  if (!not_fetched.empty()) throw download_error(dir, not_fetched, failures);
}

}  // namespace mnist
