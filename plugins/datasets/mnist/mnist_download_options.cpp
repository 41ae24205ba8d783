// mnist's download, mirrors and md5 keys, checked and read into a DownloadSource.
#include "mnist_download_options.hpp"

#include <runner/datasets/md5.hpp>
#include <runner/datasets/mirrors.hpp>
#include <runner/errors.hpp>

#include <optional>

#include "mnist_files.hpp"

namespace mnist {

std::vector<std::string> checked_md5(const runner::Options& options, const std::string& key) {
  const std::string named = "[" + options.section() + "] " + key;
  const std::string hint =
      "give the MD5 of train-images, train-labels, t10k-images and t10k-labels .gz, in that "
      "order, each 32 hex digits";
  const std::vector<std::string>& sums = options.get_strings(key);
  if (sums.size() != kMnistStems.size())
    throw runner::ConfigError(named + " needs " + std::to_string(kMnistStems.size()) +
                                  " entries, one per file; it has " + std::to_string(sums.size()),
                              hint);
  std::vector<std::string> lower;
  for (size_t i = 0; i < sums.size(); ++i) {
    std::optional<std::string> sum = runner::datasets::md5_from_text(sums[i]);
    if (!sum)
      throw runner::ConfigError(named + " entry " + std::to_string(i + 1) + " (" + kMnistStems[i] +
                                    ".gz) \"" + sums[i] + "\" is not 32 hex digits",
                                hint);
    lower.push_back(*sum);
  }
  return lower;
}

std::vector<std::string> checked_mirrors(const runner::Options& options, const std::string& key) {
  return runner::datasets::checked_mirrors(
      options, key, "list base URLs of the four .gz files, such as \"" + kMnistMirrors[0] + "\"");
}

}  // namespace mnist
