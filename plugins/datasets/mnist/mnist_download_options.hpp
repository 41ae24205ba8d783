// Where the mnist dataset fetches missing files from: its keys download, mirrors and md5.
#pragma once

#include <runner/datasets/http_fetch.hpp>
#include <runner/option_fields.hpp>
#include <runner/options.hpp>
#include <string>
#include <vector>

namespace mnist {

// Base URLs of MNIST, tried in order.
inline const std::vector<std::string> kMnistMirrors = {
    "https://ossci-datasets.s3.amazonaws.com/mnist/", "http://yann.lecun.com/exdb/mnist/"};

// MD5 of MNIST's four .gz files in kMnistStems order, as torchvision checks them.
inline const std::vector<std::string> kMnistMd5 = {
    "f68b3c2dcbeaaa9fbdd348bbdeb94873", "d53e105ee54ea40749a09fcbcd1e9432",
    "9fb629c4189551a2d022fa330f9573f3", "ec29112dd5afa0611ce80d1b7f02629c"};

struct DownloadSource {
  std::vector<std::string> mirrors = kMnistMirrors;  // base URLs; a missing '/' is added
  std::vector<std::string> md5 = kMnistMd5;          // lower-case hex, one per file of kMnistStems
  runner::datasets::FetchLimits limits;
};

// The values of the keys `mirrors` and `md5`. Throw a runner::ConfigError naming the key when
// mirrors is empty or holds an empty URL, or md5 is not 4 sums of 32 hex digits.
std::vector<std::string> checked_mirrors(const runner::Options& options, const std::string& key);
std::vector<std::string> checked_md5(const runner::Options& options, const std::string& key);

// Declares the keys download, mirrors and md5 of options that hold `bool download` and a
// DownloadSource `source`.
template <typename T>
void add_download_keys(runner::OptionFields<T>& fields) {
  fields.flag("download", &T::download,
              "fetch the files missing from data_dir (as <stem>.gz) from the first mirror that "
              "serves them with the expected MD5");
  fields.custom({"mirrors", runner::KeyType::string_list, kMnistMirrors,
                 "base URLs to fetch <stem>.gz from, tried in order"},
                [](T& out, const runner::Options& options, const std::string& key) {
                  out.source.mirrors = checked_mirrors(options, key);
                });
  fields.custom({"md5", runner::KeyType::string_list, kMnistMd5,
                 "MD5 of train-images, train-labels, t10k-images, t10k-labels .gz (default: "
                 "MNIST's)"},
                [](T& out, const runner::Options& options, const std::string& key) {
                  out.source.md5 = checked_md5(options, key);
                });
}

}  // namespace mnist
