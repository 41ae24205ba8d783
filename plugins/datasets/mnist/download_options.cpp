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

std::vector<std::string> checked_md5(const runner::Options& options) {
  const std::string key = "[" + options.section() + "] md5";
  const std::string hint =
      "give the MD5 of train-images, train-labels, t10k-images and t10k-labels .gz, in that "
      "order, each 32 hex digits";
  const std::vector<std::string>& sums = options.get_strings("md5");
  if (sums.size() != kMnistStems.size())
    throw runner::ConfigError(key + " needs " + std::to_string(kMnistStems.size()) +
                                  " entries, one per file; it has " + std::to_string(sums.size()),
                              hint);
  std::vector<std::string> lower;
  for (size_t i = 0; i < sums.size(); ++i) {
    if (!is_md5_hex(sums[i]))
      throw runner::ConfigError(key + " entry " + std::to_string(i + 1) + " (" + kMnistStems[i] +
                                    ".gz) \"" + sums[i] + "\" is not 32 hex digits",
                                hint);
    lower.push_back(lower_case(sums[i]));
  }
  return lower;
}

std::vector<std::string> checked_mirrors(const runner::Options& options) {
  const std::vector<std::string>& mirrors = options.get_strings("mirrors");
  bool has_empty = std::any_of(mirrors.begin(), mirrors.end(),
                               [](const std::string& url) { return url.empty(); });
  if (mirrors.empty() || has_empty)
    throw runner::ConfigError(
        "[" + options.section() + "] mirrors " + (has_empty ? "holds an empty URL" : "is empty"),
        "list base URLs of the four .gz files, such as \"" + kMnistMirrors[0] + "\"");
  return mirrors;
}

}  // namespace

void add_download_keys(runner::Schema& schema) {
  schema.flag("download", false,
              "fetch the files missing from data_dir (as <stem>.gz) from the first mirror that "
              "serves them with the expected MD5");
  schema.texts("mirrors", kMnistMirrors, "base URLs to fetch <stem>.gz from, tried in order");
  schema.texts("md5", kMnistMd5,
               "MD5 of train-images, train-labels, t10k-images, t10k-labels .gz (default: "
               "MNIST's)");
}

DownloadSource download_source_from(const runner::Options& options) {
  DownloadSource source;
  source.mirrors = checked_mirrors(options);
  source.md5 = checked_md5(options);
  return source;
}

}  // namespace mnist
