// Where the cifar10 dataset fetches its archive from: its keys download, mirrors and md5.
#pragma once

#include <runner/datasets/http_fetch.hpp>
#include <runner/option_fields.hpp>
#include <runner/options.hpp>

#include <string>
#include <vector>

namespace cifar10 {

// The official archive of the binary version, and the folder its six files extract to.
inline const std::string kCifarArchive = "cifar-10-binary.tar.gz";
inline const std::vector<std::string> kCifarMirrors = {"https://www.cs.toronto.edu/~kriz/"};
inline const std::string kCifarMd5 = "c32a1d4ab5d03f1284b67883e8d87530";

struct DownloadSource {
  std::vector<std::string> mirrors = kCifarMirrors;  // base URLs; a missing '/' is added
  std::string md5 = kCifarMd5;                       // of the archive, in lower case
  runner::datasets::FetchLimits limits;
};

// The values of the keys `mirrors` and `md5`. Throw a runner::ConfigError naming the key when
// mirrors is empty or holds an empty URL, or md5 is not 32 hex digits.
std::vector<std::string> checked_mirrors(const runner::Options& options, const std::string& key);
std::string checked_md5(const runner::Options& options, const std::string& key);

// Declares the keys download, mirrors and md5 of options that hold `bool download` and a
// DownloadSource `source`.
template <typename T>
void add_download_keys(runner::OptionFields<T>& fields) {
  fields.flag("download", &T::download,
              "when neither data_dir nor data_dir/cifar-10-batches-bin holds the six files, fetch "
              "cifar-10-binary.tar.gz from the first mirror that serves it with the expected MD5 "
              "and extract them into data_dir/cifar-10-batches-bin");
  fields.custom({"mirrors", runner::KeyType::string_list, kCifarMirrors,
                 "base URLs to fetch cifar-10-binary.tar.gz from, tried in order"},
                [](T& out, const runner::Options& options, const std::string& key) {
                  out.source.mirrors = checked_mirrors(options, key);
                });
  fields.custom({"md5", runner::KeyType::string, kCifarMd5,
                 "MD5 of cifar-10-binary.tar.gz (default: the official archive's)"},
                [](T& out, const runner::Options& options, const std::string& key) {
                  out.source.md5 = checked_md5(options, key);
                });
}

}  // namespace cifar10
