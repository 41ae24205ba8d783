// Where the mnist dataset fetches missing files from: its keys download, mirrors and md5.
#pragma once

#include <runner/options.hpp>

#include <string>
#include <vector>

#include "http_fetch.hpp"

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
  FetchLimits limits;
};

// Declares the keys download, mirrors and md5.
void add_download_keys(runner::Schema& schema);

// Throws a runner::ConfigError naming the key when md5 is not 4 sums of 32 hex digits or
// mirrors is empty or holds an empty URL.
DownloadSource download_source_from(const runner::Options& options);

}  // namespace mnist
