// mnist's download, mirrors and md5 keys, checked and read into a DownloadSource.
#include "download_options.hpp"

#include <runner/errors.hpp>

#include <algorithm>
#include <cctype>

#include "md5.hpp"
#include "mnist_files.hpp"

namespace mnist {
namespace {

std::string lower_case(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

}  // namespace

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
    if (!is_md5_hex(sums[i]))
      throw runner::ConfigError(named + " entry " + std::to_string(i + 1) + " (" + kMnistStems[i] +
                                    ".gz) \"" + sums[i] + "\" is not 32 hex digits",
                                hint);
    lower.push_back(lower_case(sums[i]));
  }
  return lower;
}

std::vector<std::string> checked_mirrors(const runner::Options& options, const std::string& key) {
  const std::vector<std::string>& mirrors = options.get_strings(key);
  bool has_empty = std::any_of(mirrors.begin(), mirrors.end(),
                               [](const std::string& url) { return url.empty(); });
  if (mirrors.empty() || has_empty)
    throw runner::ConfigError(
        "[" + options.section() + "] " + key + (has_empty ? " holds an empty URL" : " is empty"),
        "list base URLs of the four .gz files, such as \"" + kMnistMirrors[0] + "\"");
  return mirrors;
}

}  // namespace mnist
