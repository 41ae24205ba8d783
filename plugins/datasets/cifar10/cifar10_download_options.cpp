// cifar10's mirrors and md5 keys, checked and read into a DownloadSource.
#include "cifar10_download_options.hpp"

#include <runner/datasets/md5.hpp>
#include <runner/datasets/mirrors.hpp>
#include <runner/errors.hpp>

#include <optional>

namespace cifar10 {

std::vector<std::string> checked_mirrors(const runner::Options& options, const std::string& key) {
  return runner::datasets::checked_mirrors(
      options, key,
      "list base URLs of " + kCifarArchive + ", such as \"" + kCifarMirrors[0] + "\"");
}

std::string checked_md5(const runner::Options& options, const std::string& key) {
  const std::string& text = options.get_string(key);
  std::optional<std::string> sum = runner::datasets::md5_from_text(text);
  if (!sum)
    throw runner::ConfigError(
        "[" + options.section() + "] " + key + " \"" + text + "\" is not 32 hex digits",
        "give the MD5 of " + kCifarArchive + " (the official one's is " + kCifarMd5 + ")");
  return *sum;
}

}  // namespace cifar10
